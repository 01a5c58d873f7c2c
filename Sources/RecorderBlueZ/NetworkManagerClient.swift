#if os(Linux)
  import Foundation
  import RecorderConcurrency

  /// Joins and leaves Wi-Fi networks through NetworkManager's D-Bus API on the system bus
  /// (`org.freedesktop.NetworkManager`), over the same libdbus plumbing as ``BlueZCentral``.
  ///
  /// A join adds a connection of its own and touches nothing else:
  /// - it picks the first Wi-Fi device NetworkManager manages, asks it to scan and waits,
  ///   re-asking every ``Options/rescanInterval``, until an access point with the SSID is
  ///   seen or ``Options/scanTimeout`` has passed;
  /// - it calls AddAndActivateConnection2 with a connection named `recorder-<SSID>-<8 hex>`
  ///   with a fresh UUID, WPA-PSK with the password, `autoconnect` off, and the options
  ///   `persist: volatile` (never written to disk; NetworkManager deletes it once it is no
  ///   longer active) and `bind-activation: dbus-client` (NetworkManager deactivates it if
  ///   this process dies without leaving);
  /// - it waits for the active connection to reach ACTIVATED, or fails with its reason.
  ///
  /// ``leave(_:)`` deactivates and deletes exactly that connection, by its path (or, after
  /// NetworkManager restarted, by its UUID). A failed join cleans up before it throws.
  ///
  /// Every wait runs on the injected clock. The password goes out in one D-Bus call and is
  /// never logged, described or put in an error. Thread-safe: each join has its own signal
  /// queue; the one bus connection is shared under a lock.
  public final class NetworkManagerClient: Sendable {
    /// The bounds and the bus of a ``NetworkManagerClient``.
    public struct Options: Sendable {
      /// A D-Bus address; nil: the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set).
      public var busAddress: String?
      /// The bound on each call to NetworkManager.
      public var callTimeout: Duration
      /// How long to wait for the SSID to show up in scans.
      public var scanTimeout: Duration
      /// How often to ask for a new scan while waiting for the SSID.
      public var rescanInterval: Duration
      /// How long an activation may stay in ACTIVATING.
      public var activationTimeout: Duration
      /// After NetworkManager left the bus mid-join: how long to wait for it to come back
      /// before giving up on deleting our connection.
      public var restartGrace: Duration

      public init(
        busAddress: String? = nil, callTimeout: Duration = .seconds(25),
        scanTimeout: Duration = .seconds(30), rescanInterval: Duration = .seconds(10),
        activationTimeout: Duration = .seconds(60), restartGrace: Duration = .seconds(10)
      ) {
        self.busAddress = busAddress
        self.callTimeout = callTimeout
        self.scanTimeout = scanTimeout
        self.rescanInterval = rescanInterval
        self.activationTimeout = activationTimeout
        self.restartGrace = restartGrace
      }
    }

    /// A network joined by ``join(ssid:password:)``: what ``leave(_:)`` removes. No secret.
    public struct Joined: Sendable, Equatable, CustomStringConvertible {
      public var ssid: String
      /// Our connection's settings object and its UUID and id (`recorder-…`).
      public var connection: String
      public var uuid: String
      public var id: String
      /// The active connection and the Wi-Fi device it runs on.
      public var activeConnection: String
      public var device: String
      public var interface: String

      public var description: String { "\(id) on \(interface.isEmpty ? device : interface)" }
    }

    /// This host's IPv4 configuration on a joined network.
    public struct IPv4: Sendable, Equatable {
      public var address: String
      public var netmask: String
      /// The network's gateway (on a device's hotspot, the device), when NM knows it.
      public var gateway: String?
    }

    public let options: Options
    private let clock: AnyClock
    private let bus = Locked<BusConnection?>(nil)
    /// The signal queues of the joins and leaves in progress: each gets every signal, and
    /// ``NetworkManagerEvent/busClosed`` when the connection ends.
    private let inboxes = Locked<[ObjectIdentifier: NetworkManagerSignalInbox]>([:])
    private typealias NM = NetworkManagerProperties

    /// A client for `options`, every wait on `clock`. Does no I/O until the first call.
    public init(options: Options = Options(), clock: AnyClock = .continuous) {
      self.options = options
      self.clock = clock
    }

    deinit { bus.withLock { $0 }?.close() }

    /// Closes the bus connection (a join in progress fails).
    public func close() {
      let open = bus.withLock { bus -> BusConnection? in
        defer { bus = nil }
        return bus
      }
      open?.close()
    }

    /// Whether NetworkManager owns its name on the bus.
    public func isRunning() async -> Bool {
      guard let bus = try? await connection() else { return false }
      return await nameHasOwner(bus)
    }

    // MARK: Join

    /// Joins the WPA-PSK network `ssid` with `password` (see the type's contract).
    /// - Throws: the ``NetworkManagerError`` saying why; nothing of ours is left behind
    ///   (unless NetworkManager went away for longer than ``Options/restartGrace``: then
    ///   ``NetworkManagerError/stopped(ssid:cleanedUp:)`` says so).
    public func join(ssid: String, password: String) async throws(NetworkManagerError) -> Joined {
      let bus = try await connection()
      let inbox = listen(on: bus)
      defer { stopListening(inbox) }
      guard await nameHasOwner(bus) else { throw .notRunning }
      let (device, interface) = try await wifiDevice(bus)
      let accessPoint = try await waitForAccessPoint(ssid, on: device, bus: bus, inbox: inbox)
      let uuid = UUID().uuidString.lowercased()
      let id = "recorder-\(ssid)-\(uuid.prefix(8))"
      let reply = await bus.call(
        NM.service, NM.managerPath, NM.manager, "AddAndActivateConnection2",
        [
          Self.settings(ssid: ssid, password: password, id: id, uuid: uuid),
          .objectPath(device), .objectPath(accessPoint),
          .options(["persist": .string("volatile"), "bind-activation": .string("dbus-client")]),
        ], timeout: options.callTimeout)
      let added: (connection: String, active: String)
      switch reply {
      case .failure(let failure):
        // A call that never answered may still have added it: look it up by UUID.
        _ = await remove(uuid: uuid, connection: nil, active: nil, bus: bus, inbox: inbox)
        throw .failed(failure, during: "AddAndActivateConnection2", secret: password)
      case .success(let values):
        guard let parsed = NM.addAndActivateReply(values) else {
          _ = await remove(uuid: uuid, connection: nil, active: nil, bus: bus, inbox: inbox)
          throw .call(
            "AddAndActivateConnection2",
            DBusFailure(name: "InvalidReply", message: "no connection and active connection paths"))
        }
        added = parsed
      }
      let joined = Joined(
        ssid: ssid, connection: added.connection, uuid: uuid, id: id,
        activeConnection: added.active, device: device, interface: interface)
      do {
        try await waitForActivation(joined, bus: bus, inbox: inbox)
        return joined
      } catch .stopped {
        let cleaned = await cleanUpAfterRestart(joined, bus: bus, inbox: inbox)
        throw .stopped(ssid: ssid, cleanedUp: cleaned)
      } catch {
        _ = await remove(
          uuid: uuid, connection: added.connection, active: added.active, bus: bus, inbox: inbox)
        throw error
      }
    }

    /// Deactivates and deletes the connection of `joined`, and nothing else. A connection
    /// NetworkManager already removed (volatile ones go when they deactivate) counts as left.
    /// - Returns: nil when it is gone, else why it could not be removed (best effort).
    @discardableResult
    public func leave(_ joined: Joined) async -> NetworkManagerError? {
      let bus: BusConnection
      do { bus = try await connection() } catch { return error }
      let inbox = listen(on: bus)
      defer { stopListening(inbox) }
      if !(await nameHasOwner(bus)) {
        guard await waitForOwner(bus: bus, inbox: inbox) else {
          return .stopped(ssid: joined.ssid, cleanedUp: false)
        }
        return await remove(
          uuid: joined.uuid, connection: nil, active: nil, bus: bus, inbox: inbox)
      }
      return await remove(
        uuid: joined.uuid, connection: joined.connection, active: joined.activeConnection,
        bus: bus, inbox: inbox)
    }

    /// This host's IPv4 address, netmask and gateway on the network of `joined`, from the
    /// device's IP4Config; nil when NetworkManager has none (yet).
    public func ipv4(of joined: Joined) async -> IPv4? {
      guard let bus = try? await connection() else { return nil }
      guard
        let config = NM.objectPath(
          try? await property(bus, joined.device, NM.device, "Ip4Config").get())
      else { return nil }
      guard
        let first = NM.firstAddress(
          try? await property(bus, config, NM.ip4Config, "AddressData").get())
      else { return nil }
      let gateway = NM.gateway(try? await property(bus, config, NM.ip4Config, "Gateway").get())
      return IPv4(
        address: first.address, netmask: NM.netmask(prefix: first.prefix), gateway: gateway)
    }

    // MARK: Steps

    /// Our connection's settings (`a{sa{sv}}`).
    static func settings(ssid: String, password: String, id: String, uuid: String) -> DBusValue {
      func section(_ name: String, _ entries: [String: DBusValue]) -> DBusValue {
        .dictEntry(.string(name), .options(entries))
      }
      return .array(
        elementSignature: "{sa{sv}}",
        [
          section(
            "connection",
            [
              "id": .string(id), "uuid": .string(uuid), "type": .string("802-11-wireless"),
              "autoconnect": .bool(false),
            ]),
          section(
            "802-11-wireless",
            ["ssid": .bytes(Array(ssid.utf8)), "mode": .string("infrastructure")]),
          section(
            "802-11-wireless-security",
            ["key-mgmt": .string("wpa-psk"), "psk": .string(password)]),
          section("ipv4", ["method": .string("auto")]),
          section("ipv6", ["method": .string("ignore")]),
        ])
    }

    /// The first Wi-Fi device NetworkManager can use, and its interface name.
    private func wifiDevice(_ bus: BusConnection) async throws(NetworkManagerError) -> (
      String, String
    ) {
      let reply = await bus.call(
        NM.service, NM.managerPath, NM.manager, "GetDevices", timeout: options.callTimeout)
      let paths: [String]
      switch reply {
      case .failure(let failure): throw .failed(failure, during: "GetDevices", secret: nil)
      case .success(let values): paths = NM.objectPaths(values.first) ?? []
      }
      for path in paths {
        let all = await bus.call(
          NM.service, path, NM.properties, "GetAll", [.string(NM.device)],
          timeout: options.callTimeout)
        guard case .success(let values) = all, let device = NM.Device(values.first),
          device.isWiFi, device.usable
        else { continue }
        return (path, device.interface)
      }
      throw .noWiFiDevice
    }

    /// Asks `device` to scan until an access point with `ssid` is seen; its path.
    private func waitForAccessPoint(
      _ ssid: String, on device: String, bus: BusConnection, inbox: NetworkManagerSignalInbox
    ) async throws(NetworkManagerError) -> String {
      let wanted = Array(ssid.utf8)
      let deadline = clock.elapsed + options.scanTimeout
      var nextScan = clock.elapsed
      while true {
        if clock.elapsed >= nextScan {
          // NetworkManager refuses scans too close together; the next one may be allowed.
          _ = await bus.call(
            NM.service, device, NM.wireless, "RequestScan", [.options([:])],
            timeout: options.callTimeout)
          nextScan = clock.elapsed + options.rescanInterval
        }
        if let found = try await accessPoint(wanted, on: device, bus: bus) { return found }
        let now = clock.elapsed
        guard now < deadline else { throw .ssidNotFound(ssid: ssid, after: options.scanTimeout) }
        // Wait for a new access point, the next scan, or the deadline.
        while true {
          let left = min(deadline, nextScan) - clock.elapsed
          guard let event = await inbox.next(within: left, on: clock) else {
            if Task.isCancelled { throw .timedOut("the scan (cancelled)") }
            break
          }
          if vanished(event) { throw .stopped(ssid: ssid, cleanedUp: true) }
          if case .signal(let signal) = event, signal.path == device,
            signal.interface == NM.wireless, signal.member == "AccessPointAdded"
          {
            break
          }
        }
      }
    }

    /// The access point with SSID `wanted` among those `device` sees now.
    private func accessPoint(_ wanted: [UInt8], on device: String, bus: BusConnection)
      async throws(NetworkManagerError) -> String?
    {
      let reply = await bus.call(
        NM.service, device, NM.wireless, "GetAllAccessPoints", timeout: options.callTimeout)
      let paths: [String]
      switch reply {
      case .failure(let failure):
        throw .failed(failure, during: "GetAllAccessPoints", secret: nil)
      case .success(let values): paths = NM.objectPaths(values.first) ?? []
      }
      for path in paths {
        // An access point that vanished between the list and this read is simply skipped.
        let ssid = try? await property(bus, path, NM.accessPoint, "Ssid").get()
        if NM.ssid(ssid) == wanted { return path }
      }
      return nil
    }

    /// Waits for `joined`'s activation to end: ACTIVATED returns; DEACTIVATED throws its
    /// reason; NetworkManager leaving the bus throws ``NetworkManagerError/stopped``.
    private func waitForActivation(
      _ joined: Joined, bus: BusConnection, inbox: NetworkManagerSignalInbox
    ) async throws(NetworkManagerError) {
      let deadline = clock.elapsed + options.activationTimeout
      var deviceReason: UInt32?
      // The state now: the signals before this read are queued too, so none is missed.
      let now = NM.uint32(
        try? await property(bus, joined.activeConnection, NM.active, "State").get())
      if now == NM.ActiveState.activated.rawValue { return }
      while true {
        let left = deadline - clock.elapsed
        guard let event = await inbox.next(within: left, on: clock) else {
          throw .timedOut("the activation of \(joined.id)")
        }
        if vanished(event) { throw .stopped(ssid: joined.ssid, cleanedUp: false) }
        guard case .signal(let signal) = event else { continue }
        if signal.path == joined.device, signal.interface == NM.device,
          signal.member == "StateChanged",
          let change = NM.deviceStateChange(signal.arguments),
          change.state == NM.deviceStateFailed
        {
          deviceReason = change.reason
        }
        guard signal.path == joined.activeConnection, signal.interface == NM.active,
          signal.member == "StateChanged",
          let change = NM.activeStateChange(signal.arguments)
        else { continue }
        switch change.state {
        case .activated: return
        case .deactivated:
          throw Self.activationError(
            ssid: joined.ssid, reason: change.reason, deviceReason: deviceReason)
        case .unknown, .activating, .deactivating: continue
        }
      }
    }

    /// The error for an activation that ended DEACTIVATED with `reason`.
    static func activationError(ssid: String, reason: UInt32, deviceReason: UInt32?)
      -> NetworkManagerError
    {
      if NM.passwordReasons.contains(reason) {
        return .passwordRefused(ssid: ssid, reason: NM.activeReasonName(reason))
      }
      if let deviceReason, NM.devicePasswordReasons.contains(deviceReason) {
        return .passwordRefused(ssid: ssid, reason: NM.deviceReasonName(deviceReason))
      }
      var words = NM.activeReasonName(reason)
      if let deviceReason { words += " (\(NM.deviceReasonName(deviceReason)))" }
      return .activationFailed(ssid: ssid, reason: words)
    }

    /// NetworkManager left the bus mid-join: waits (bounded) for it to come back, then
    /// deletes our connection by UUID. Whether nothing of ours is left.
    private func cleanUpAfterRestart(
      _ joined: Joined, bus: BusConnection, inbox: NetworkManagerSignalInbox
    ) async -> Bool {
      guard await waitForOwner(bus: bus, inbox: inbox) else { return false }
      return await remove(uuid: joined.uuid, connection: nil, active: nil, bus: bus, inbox: inbox)
        == nil
    }

    /// Waits up to ``Options/restartGrace`` for NetworkManager to own its name again and to
    /// have finished starting (its manager's `Startup` reads false: its connections are
    /// loaded, so ours can be found by UUID).
    private func waitForOwner(bus: BusConnection, inbox: NetworkManagerSignalInbox) async -> Bool {
      let deadline = clock.elapsed + options.restartGrace
      while true {
        if await nameHasOwner(bus),
          case .success(let value) = await property(bus, NM.managerPath, NM.manager, "Startup"),
          value.boolValue == false
        {
          return true
        }
        let left = deadline - clock.elapsed
        guard left > .zero else { return false }
        // Woken by its signals as it comes up, else polled again shortly.
        let event = await inbox.next(within: min(left, Self.startupPoll), on: clock)
        if case .busClosed? = event { return false }
        if event == nil, Task.isCancelled { return false }
      }
    }

    /// How often a NetworkManager coming back is asked whether it has finished starting.
    private static let startupPoll: Duration = .milliseconds(200)

    /// Deactivates `active` and deletes our connection (`connection`, else found by `uuid`).
    /// nil when nothing of ours is left.
    private func remove(
      uuid: String, connection: String?, active: String?, bus: BusConnection,
      inbox: NetworkManagerSignalInbox
    ) async -> NetworkManagerError? {
      if let active {
        // Already inactive or gone is fine: only deletion below must succeed.
        _ = await bus.call(
          NM.service, NM.managerPath, NM.manager, "DeactivateConnection", [.objectPath(active)],
          timeout: options.callTimeout)
      }
      var path = connection
      if path == nil {
        let found = await bus.call(
          NM.service, NM.settingsPath, NM.settings, "GetConnectionByUuid", [.string(uuid)],
          timeout: options.callTimeout)
        switch found {
        case .success(let values): path = NM.objectPath(values.first)
        case .failure(let failure) where Self.isAbsent(failure): return nil
        case .failure(let failure):
          return .failed(failure, during: "GetConnectionByUuid", secret: nil)
        }
      }
      guard let path else { return nil }
      let deleted = await bus.call(
        NM.service, path, NM.connection, "Delete", timeout: options.callTimeout)
      switch deleted {
      case .success: return nil
      case .failure(let failure) where Self.isAbsent(failure): return nil
      case .failure(let failure): return .failed(failure, during: "Delete", secret: nil)
      }
    }

    /// A failure that means "no such connection" (already deleted).
    private static func isAbsent(_ failure: DBusFailure) -> Bool {
      [
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.NetworkManager.Settings.InvalidConnection",
        "org.freedesktop.NetworkManager.Settings.Connection.InvalidConnection",
      ].contains(failure.name) || failure.message.contains("no connection")
        || failure.message.contains("There was no connection")
    }

    // MARK: Bus

    /// A signal queue for one join or leave, fed until ``stopListening(_:)``. A bus that is
    /// already closed feeds it ``NetworkManagerEvent/busClosed`` at once.
    private func listen(on bus: BusConnection) -> NetworkManagerSignalInbox {
      let inbox = NetworkManagerSignalInbox()
      inboxes.withLock { $0[ObjectIdentifier(inbox)] = inbox }
      if bus.isClosed { inbox.deliver(.busClosed) }
      return inbox
    }

    private func stopListening(_ inbox: NetworkManagerSignalInbox) {
      inboxes.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(inbox)) }
    }

    /// Hands `event` to every listening queue (the bus thread, or the close handler).
    private func broadcast(_ event: NetworkManagerEvent) {
      for inbox in inboxes.withLock({ Array($0.values) }) { inbox.deliver(event) }
    }

    /// True when `event` says NetworkManager (or the bus) went away.
    private func vanished(_ event: NetworkManagerEvent) -> Bool {
      switch event {
      case .busClosed: return true
      case .signal(let signal):
        guard signal.member == "NameOwnerChanged",
          let change = NM.ownerChange(signal.arguments, of: NM.service)
        else { return false }
        // Gone, or a new owner (a restart): either way our objects are no longer there.
        return change.new.isEmpty || !change.old.isEmpty
      }
    }

    private func nameHasOwner(_ bus: BusConnection) async -> Bool {
      let reply = await bus.call(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
        [.string(NM.service)], timeout: options.callTimeout)
      guard case .success(let values) = reply else { return false }
      return values.first?.boolValue == true
    }

    private func property(_ bus: BusConnection, _ path: String, _ interface: String, _ name: String)
      async -> Result<DBusValue, DBusFailure>
    {
      await bus.call(
        NM.service, path, NM.properties, "Get", [.string(interface), .string(name)],
        timeout: options.callTimeout
      ).map { $0.first ?? .variant(.string("")) }
    }

    /// The open bus connection, connecting (and adding the match rules) the first time.
    private func connection() async throws(NetworkManagerError) -> BusConnection {
      if let open = bus.withLock({ $0 }), !open.isClosed { return open }
      let opened: BusConnection
      do {
        opened = try BusConnection(address: options.busAddress)
      } catch {
        throw error.name.hasSuffix("AccessDenied")
          ? .accessDenied(error.description) : .busUnavailable(error.description)
      }
      for rule in [
        "type='signal',sender='\(NM.service)'",
        "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',"
          + "arg0='\(NM.service)'",
      ] {
        if case .failure(let failure) = await opened.addMatch(rule) {
          opened.close()
          throw .failed(failure, during: "AddMatch", secret: nil)
        }
      }
      let (kept, extra) = bus.withLock { bus -> (BusConnection, BusConnection?) in
        if let open = bus, !open.isClosed { return (open, opened) }
        bus = opened
        return (opened, nil)
      }
      if let extra {
        // Another call connected meanwhile: use its connection.
        extra.close()
        return kept
      }
      // One subscription and one close handler for the connection's life: they hand each
      // event to the queues listening then (weakly held: a released client stops them).
      opened.subscribe { [weak self] signal in self?.broadcast(.signal(signal)) }
      opened.onClose { [weak self] in self?.broadcast(.busClosed) }
      return kept
    }
  }
#endif
