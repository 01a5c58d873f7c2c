#if os(Linux)
  import Foundation
  import RecorderBluetooth
  import RecorderConcurrency

  /// A `Central` over BlueZ, the Linux Bluetooth stack, through its D-Bus API on the system
  /// bus (`org.bluez`: Adapter1, Device1, GattService1, GattCharacteristic1), using libdbus-1
  /// (see `BusConnection` for why that library).
  ///
  /// - State: the chosen adapter's `Powered` (`CentralState/poweredOn` / `poweredOff`);
  ///   `CentralState/unsupported` while bluetoothd has no such adapter,
  ///   `CentralState/resetting` while bluetoothd is gone from the bus (it is re-read when it
  ///   comes back).
  /// - Scanning: SetDiscoveryFilter (LE, duplicates on so RSSI keeps coming), StartDiscovery;
  ///   an advertisement per Device1 InterfacesAdded and per PropertiesChanged of its RSSI,
  ///   ManufacturerData or Name. Discovery is restarted when the adapter powers on again or
  ///   bluetoothd restarts while a scan is being iterated.
  ///   A scan starts with the devices bluetoothd already holds with an RSSI (heard in the
  ///   current discovery), as CoreBluetooth reports a peripheral heard before the scan.
  /// - Peripheral ids are device addresses (`AA:BB:CC:DD:EE:FF`).
  /// - Services: a connect needs the recorder's own service only
  ///   (`RecorderGATT/required(of:)`). bluetoothd before 5.80 claims the Battery Service
  ///   for its battery plugin (no GATT objects for 0x180F); the link then reads the level,
  ///   and hears its changes, as `org.bluez.Battery1`'s `Percentage` on the device object.
  /// - Connect: Device1.Connect bounded by the timeout, then ServicesResolved. Cancellation
  ///   is seen while waiting for ServicesResolved; a Connect call in flight runs to its reply
  ///   or the deadline (libdbus cannot withdraw a call), then throws `LinkError/cancelled`.
  ///
  /// Commands while the adapter is not powered on fail with `LinkError/notPoweredOn(_:)`.
  /// Nothing here asks for privileges: no MTU, PHY or interval requests (a D-Bus client
  /// cannot make them; docs/linux-gateway.md says how an administrator sets them once).
  public final class BlueZCentral: Central {
    /// How notifications reach us.
    public enum NotificationPath: Sendable, Equatable {
      /// AcquireNotify's socket (one datagram per notification, no D-Bus message each), and
      /// StartNotify + `Value` PropertiesChanged when bluetoothd refuses the descriptor.
      case automatic
      /// StartNotify + `Value` PropertiesChanged only (a D-Bus signal per notification).
      case propertiesChanged
    }

    /// What a ``BlueZCentral`` uses.
    public struct Options: Sendable {
      /// The adapter (`hci0`); nil: the first powered one, else the first.
      public var adapter: String?
      /// A D-Bus address; nil: the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set).
      public var busAddress: String?
      public var notificationPath: NotificationPath
      /// The bound on every call to bluetoothd but Connect (which gets the connect timeout).
      public var callTimeout: Duration

      public init(
        adapter: String? = nil, busAddress: String? = nil,
        notificationPath: NotificationPath = .automatic, callTimeout: Duration = .seconds(25)
      ) {
        self.adapter = adapter
        self.busAddress = busAddress
        self.notificationPath = notificationPath
        self.callTimeout = callTimeout
      }
    }

    private struct Waiter {
      var predicate: @Sendable (BlueZObjects) -> Bool
      var continuation: CheckedContinuation<Bool, Never>
    }

    private struct Model {
      var bus: BusConnection?
      var objects = BlueZObjects()
      var adapterPath: String?
      var scans: [Int: AsyncStream<Advertisement>.Continuation] = [:]
      var links: [String: BlueZPeripheralLink] = [:]
      var waiters: [Int: Waiter] = [:]
      var nextID = 0
    }

    public let options: Options
    private let broadcast = CentralStateBroadcast(.unknown)
    private let model = Locked(Model())
    private let discovery: DiscoveryControl

    /// A central for `options`. Does no I/O: ``open()`` (or the first command) connects.
    public init(options: Options = Options()) {
      self.options = options
      discovery = DiscoveryControl(timeout: options.callTimeout)
    }

    /// The adapter in use (`/org/bluez/hci0`), once open.
    public var adapterPath: String? { model.withLock { $0.adapterPath } }

    /// Connects to the bus, checks bluetoothd is there and lets us in, reads its objects and
    /// picks the adapter. Idempotent.
    /// - Throws: a ``BlueZError`` saying what to fix.
    public func open() async throws(BlueZError) {
      // One opening at a time: callers that arrive meanwhile share its outcome (two buses
      // would each deliver every signal).
      let task = opening.withLock { opening -> Task<Result<Void, BlueZError>, Never>? in
        if model.withLock({ $0.bus != nil && !($0.bus?.isClosed ?? true) }) { return nil }
        if let opening { return opening }
        let task = Task { () async -> Result<Void, BlueZError> in
          do throws(BlueZError) {
            try await self.connectBus()
            return .success(())
          } catch {
            return .failure(error)
          }
        }
        opening = task
        return task
      }
      guard let task else { return }
      let result = await task.value
      opening.withLock { if $0 == task { $0 = nil } }
      try result.get()
    }

    private let opening = Locked<Task<Result<Void, BlueZError>, Never>?>(nil)

    private func connectBus() async throws(BlueZError) {
      let bus: BusConnection
      do {
        bus = try BusConnection(address: options.busAddress)
      } catch {
        throw error.name.hasSuffix("AccessDenied")
          ? .accessDenied(error.description) : .busUnavailable(error.description)
      }
      bus.subscribe { [weak self] signal in self?.handle(signal) }
      bus.onClose { [weak self] in self?.busClosed() }
      for rule in [
        "type='signal',sender='org.bluez',interface='\(BlueZ.objectManager)'",
        "type='signal',sender='org.bluez',interface='\(BlueZ.properties)'",
        "type='signal',sender='org.bluez',interface='\(BlueZ.device)'",
        "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.bluez'",
      ] {
        if case .failure(let failure) = await bus.addMatch(rule) {
          bus.close()
          throw .opening(failure)
        }
      }
      let owner = await bus.call(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
        [.string(BlueZ.service)])
      guard case .success(let answer) = owner, answer.first?.boolValue == true else {
        bus.close()
        if case .failure(let failure) = owner { throw .opening(failure) }
        throw .bluetoothdNotRunning
      }
      model.withLock { $0.bus = bus }
      do {
        try await reload(bus)
      } catch {
        bus.close()
        model.withLock { $0.bus = nil }
        throw error
      }
    }

    /// Closes the bus connection; links end with a reason.
    public func close() {
      let bus = model.withLock { model -> BusConnection? in
        defer { model.bus = nil }
        return model.bus
      }
      bus?.close()
    }

    /// Reads every object (GetManagedObjects) and picks the adapter.
    private func reload(_ bus: BusConnection) async throws(BlueZError) {
      let reply = await bus.call(
        BlueZ.service, "/", BlueZ.objectManager, "GetManagedObjects", timeout: options.callTimeout)
      let objects: BlueZObjects
      switch reply {
      case .success(let values): objects = BlueZObjects(managedObjects: values.first)
      case .failure(let failure): throw .opening(failure)
      }
      let adapters = objects.paths(with: BlueZ.adapter)
      let chosen: String
      if let name = options.adapter {
        guard let path = adapters.first(where: { $0.hasSuffix("/" + name) }) else {
          throw .adapterNotFound(
            name, available: adapters.map { String($0.split(separator: "/").last ?? "") })
        }
        chosen = path
      } else {
        guard
          let path = adapters.first(where: {
            objects[$0, BlueZ.adapter]?["Powered"]?.boolValue == true
          })
            ?? adapters.first
        else { throw .noAdapter }
        chosen = path
      }
      model.withLock { model in
        model.objects = objects
        model.adapterPath = chosen
      }
      refreshState()
    }

    private func openForCommand() async throws(LinkError) -> BusConnection {
      do {
        try await open()
      } catch {
        throw .transport(error.description)
      }
      guard let bus = model.withLock({ $0.bus }) else {
        throw .transport(BlueZError.bluetoothdNotRunning.description)
      }
      return bus
    }

    // MARK: Central

    public var state: CentralState {
      get async {
        if model.withLock({ $0.bus == nil }) { try? await open() }
        return broadcast.current
      }
    }

    public func stateUpdates() -> AsyncStream<CentralState> {
      if model.withLock({ $0.bus == nil }) { Task { try? await open() } }
      return broadcast.updates()
    }

    public func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
      let (stream, continuation) = AsyncStream.makeStream(
        of: Advertisement.self, bufferingPolicy: .bufferingNewest(256))
      let wanted = services.map(Set.init)
      let sink = ScanSink(continuation: continuation, services: wanted)
      let id = model.withLock { model -> Int in
        let id = model.nextID
        model.nextID += 1
        model.scans[id] = sink.continuation
        return id
      }
      scanSinks.withLock { $0[id] = sink }
      continuation.onTermination = { [weak self] _ in
        guard let self else { return }
        let last = self.model.withLock { model -> Bool in
          model.scans.removeValue(forKey: id)
          return model.scans.isEmpty
        }
        self.scanSinks.withLock { _ = $0.removeValue(forKey: id) }
        if last { Task { await self.updateDiscovery() } }
      }
      Task {
        guard (try? await self.openForCommand()) != nil else {
          continuation.finish()
          return
        }
        // Devices bluetoothd already sees (RSSI present: heard in this discovery).
        let known = self.model.withLock { model -> [Advertisement] in
          guard let adapter = model.adapterPath else { return [] }
          return model.objects.paths(with: BlueZ.device).filter { path in
            model.objects[path, BlueZ.device]?["Adapter"]?.stringValue == adapter
              && model.objects[path, BlueZ.device]?["RSSI"] != nil
          }.compactMap { model.objects.advertisement($0) }
        }
        for advertisement in known { sink.offer(advertisement) }
        await self.updateDiscovery()
      }
      return stream
    }

    private let scanSinks = Locked([Int: ScanSink]())

    /// Starts or stops discovery to match whether anyone is scanning.
    private func updateDiscovery() async {
      let (bus, adapter, scanning, powered) = model.withLock { model in
        (
          model.bus, model.adapterPath, !model.scans.isEmpty,
          model.adapterPath.flatMap { model.objects[$0, BlueZ.adapter]?["Powered"]?.boolValue }
            == true
        )
      }
      guard let bus, let adapter else { return }
      await discovery.set(scanning && powered, bus: bus, adapter: adapter)
    }

    public func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
      async throws(LinkError) -> any PeripheralLink
    {
      let bus = try await openForCommand()
      let deadline = ContinuousClock.now + timeout
      guard broadcast.current == .poweredOn else { throw .notPoweredOn(broadcast.current) }
      let found = model.withLock { model -> String? in
        guard let adapter = model.adapterPath else { return nil }
        return model.objects.device(address: peripheral.rawValue, adapter: adapter)
      }
      guard let devicePath = found else { throw .unknownPeripheral(peripheral) }
      if Task.isCancelled { throw .cancelled }
      let link = BlueZPeripheralLink(
        peripheral: peripheral, devicePath: devicePath, bus: bus, central: self,
        notificationPath: options.notificationPath, callTimeout: options.callTimeout)
      model.withLock { $0.links[devicePath] = link }
      do {
        try await establish(link, bus: bus, services: services, deadline: deadline)
      } catch {
        model.withLock { model in
          if model.links[devicePath] === link { model.links.removeValue(forKey: devicePath) }
        }
        link.end(.localRequest, emit: false)
        _ = await bus.call(
          BlueZ.service, devicePath, BlueZ.device, "Disconnect", timeout: .seconds(2))
        throw error
      }
      return link
    }

    private func establish(
      _ link: BlueZPeripheralLink, bus: BusConnection, services: [BluetoothUUID],
      deadline: ContinuousClock.Instant
    ) async throws(LinkError) {
      let path = link.devicePath
      let left = ContinuousClock.now.duration(to: deadline)
      switch await bus.call(BlueZ.service, path, BlueZ.device, "Connect", timeout: left) {
      case .success: break
      case .failure(let failure) where failure.name == "org.bluez.Error.AlreadyConnected": break
      case .failure(let failure) where failure.name == "org.freedesktop.DBus.Error.NoReply":
        throw Task.isCancelled ? .cancelled : .connectTimeout
      case .failure(let failure): throw .bluez(failure, during: "Connect")
      }
      if Task.isCancelled { throw .cancelled }
      let resolved = await wait(until: deadline) { objects in
        objects[path, BlueZ.device]?["ServicesResolved"]?.boolValue == true
      }
      guard resolved else { throw Task.isCancelled ? .cancelled : .connectTimeout }
      let gatt = model.withLock { $0.objects.gatt(under: path) }
      // A service bluetoothd claimed for a plugin of its own (the Battery Service before
      // 5.80) has no GATT objects: only the recorder's own service is required.
      for service in RecorderGATT.required(of: services) where gatt[service] == nil {
        throw .serviceNotFound(service)
      }
      var characteristics: [BluetoothUUID: String] = [:]
      for service in services {
        for (uuid, charPath) in gatt[service] ?? [:] { characteristics[uuid] = charPath }
      }
      let mtu = model.withLock { model in
        characteristics.values.compactMap {
          model.objects[$0, BlueZ.gattCharacteristic]?["MTU"]?.intValue
        }.max()
      }
      link.resolved(characteristics: characteristics, mtu: mtu)
    }

    public func restoredPeripherals() async -> [PeripheralID] { [] }

    // MARK: Waiting on bluetoothd's objects

    /// True as soon as `predicate` holds for the objects; false at `deadline`, on task
    /// cancellation or when the bus closes.
    func wait(
      until deadline: ContinuousClock.Instant,
      _ predicate: @escaping @Sendable (BlueZObjects) -> Bool
    ) async -> Bool {
      let id = model.withLock { model -> Int in
        defer { model.nextID += 1 }
        return model.nextID
      }
      return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
          let done = model.withLock { model -> Bool in
            if predicate(model.objects) { return true }
            model.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
            return false
          }
          if done {
            continuation.resume(returning: true)
            return
          }
          Task { [weak self] in
            try? await Task.sleep(until: deadline, clock: .continuous)
            self?.resumeWaiter(id, with: false)
          }
        }
      } onCancel: {
        resumeWaiter(id, with: false)
      }
    }

    private func resumeWaiter(_ id: Int, with value: Bool) {
      let waiter = model.withLock { $0.waiters.removeValue(forKey: id) }
      waiter?.continuation.resume(returning: value)
    }

    func forget(_ link: BlueZPeripheralLink) {
      model.withLock { model in
        if model.links[link.devicePath] === link {
          model.links.removeValue(forKey: link.devicePath)
        }
      }
    }

    // MARK: Signals (on the bus thread)

    private enum Effect {
      case advertise(String)
      case end(BlueZPeripheralLink, DisconnectReason)
      case value(BlueZPeripheralLink, String, [UInt8])
      case batteryLevel(BlueZPeripheralLink, UInt8)
      case bond(BlueZPeripheralLink)
      case rediscover
      case reload
    }

    private func handle(_ signal: BusSignal) {
      var effects: [Effect] = []
      let stateMayChange =
        signal.interface != BlueZ.properties
        || signal.arguments.first?.stringValue == BlueZ.adapter
      let satisfied = model.withLock { model -> [Waiter] in
        apply(signal, to: &model, effects: &effects)
        var ready: [Waiter] = []
        for (id, waiter) in model.waiters where waiter.predicate(model.objects) {
          model.waiters.removeValue(forKey: id)
          ready.append(waiter)
        }
        return ready
      }
      for waiter in satisfied { waiter.continuation.resume(returning: true) }
      if stateMayChange { refreshState() }
      perform(effects)
    }

    private func apply(_ signal: BusSignal, to model: inout Model, effects: inout [Effect]) {
      let args = signal.arguments
      switch (signal.interface, signal.member) {
      case (BlueZ.objectManager, "InterfacesAdded"):
        guard let path = args.first?.stringValue, args.count >= 2 else { return }
        let interfaces = BlueZObjects.interfaces(args[1])
        model.objects.add(path, interfaces)
        if interfaces[BlueZ.device] != nil { effects.append(.advertise(path)) }
        if interfaces[BlueZ.adapter] != nil, model.adapterPath == nil { effects.append(.reload) }
      case (BlueZ.objectManager, "InterfacesRemoved"):
        guard let path = args.first?.stringValue, args.count >= 2 else { return }
        let names = (args[1].arrayValue ?? []).compactMap(\.stringValue)
        model.objects.remove(path, names)
        if names.contains(BlueZ.device), let link = model.links[path] {
          effects.append(.end(link, .linkLoss))
        }
        if names.contains(BlueZ.adapter), path == model.adapterPath {
          for link in model.links.values {
            effects.append(.end(link, .other("the Bluetooth adapter was removed")))
          }
        }
      case (BlueZ.properties, "PropertiesChanged"):
        guard args.count >= 2, let interface = args[0].stringValue else { return }
        let changed = args[1].stringDictionary ?? [:]
        let gone = args.count > 2 ? (args[2].arrayValue ?? []).compactMap(\.stringValue) : []
        model.objects.change(signal.path, interface, changed, gone)
        switch interface {
        case BlueZ.adapter where signal.path == model.adapterPath:
          if changed["Powered"]?.boolValue == false {
            for link in model.links.values {
              effects.append(.end(link, .other("the Bluetooth adapter was powered off")))
            }
          }
          if changed["Powered"]?.boolValue == true { effects.append(.rediscover) }
        case BlueZ.device:
          if changed["RSSI"] != nil || changed["ManufacturerData"] != nil || changed["Name"] != nil
          {
            effects.append(.advertise(signal.path))
          }
          if let link = model.links[signal.path] {
            if changed["Connected"]?.boolValue == false { effects.append(.end(link, .linkLoss)) }
            if changed["Paired"] != nil || changed["Bonded"] != nil { effects.append(.bond(link)) }
          }
        case BlueZ.battery:
          if let link = model.links[signal.path], let level = changed["Percentage"]?.intValue {
            effects.append(.batteryLevel(link, UInt8(clamping: level)))
          }
        case BlueZ.gattCharacteristic:
          guard let bytes = changed["Value"]?.bytesValue else { return }
          let device = signal.path.split(separator: "/").prefix(4).joined(separator: "/")
          if let link = model.links["/" + device] {
            effects.append(.value(link, signal.path, bytes))
          }
        default: break
        }
      case (BlueZ.device, "Disconnected"):
        // BlueZ 5.73+: the reason, as org.bluez.Reason.*.
        guard let link = model.links[signal.path] else { return }
        let reason: DisconnectReason =
          switch args.first?.stringValue ?? "" {
          case "org.bluez.Reason.Timeout": .linkLoss
          case "org.bluez.Reason.Remote": .remoteTerminated
          case "org.bluez.Reason.Local": .localRequest
          case "org.bluez.Reason.Authentication": .pairingFailed
          default: .other(args.count > 1 ? args[1].stringValue ?? "disconnected" : "disconnected")
          }
        effects.append(.end(link, reason))
      case ("org.freedesktop.DBus", "NameOwnerChanged"):
        guard args.count >= 3, args[0].stringValue == BlueZ.service else { return }
        if args[2].stringValue?.isEmpty ?? true {
          model.objects.removeAll()
          for link in model.links.values {
            effects.append(.end(link, .other("bluetoothd stopped")))
          }
        } else {
          effects.append(.reload)
        }
      default: break
      }
    }

    private func perform(_ effects: [Effect]) {
      for effect in effects {
        switch effect {
        case .advertise(let path):
          let (advertisement, sinks) = model.withLock { model in
            let onAdapter =
              model.objects[path, BlueZ.device]?["Adapter"]?.stringValue == model.adapterPath
            return (onAdapter ? model.objects.advertisement(path) : nil, model.scans.isEmpty)
          }
          guard let advertisement, !sinks else { continue }
          for sink in scanSinks.withLock({ Array($0.values) }) { sink.offer(advertisement) }
        case .end(let link, let reason):
          forget(link)
          link.end(reason, emit: true)
        case .value(let link, let path, let bytes):
          link.valueChanged(path: path, value: bytes)
        case .batteryLevel(let link, let level):
          link.batteryChanged(level)
        case .bond(let link):
          Task { link.emit(.bondStateChanged(await link.bondState)) }
        case .rediscover:
          Task {
            await discovery.reset()
            await updateDiscovery()
          }
        case .reload:
          Task {
            guard let bus = model.withLock({ $0.bus }) else { return }
            try? await reload(bus)
            await discovery.reset()
            await updateDiscovery()
          }
        }
      }
    }

    private func refreshState() {
      let state = model.withLock { model -> CentralState in
        guard model.bus != nil else { return .unknown }
        guard let adapter = model.adapterPath else { return .unsupported }
        if model.objects.paths(with: BlueZ.adapter).isEmpty
          && model.objects.paths(with: BlueZ.device).isEmpty
        {
          return .resetting
        }
        guard let properties = model.objects[adapter, BlueZ.adapter] else { return .unsupported }
        return properties["Powered"]?.boolValue == true ? .poweredOn : .poweredOff
      }
      broadcast.update(state)
    }

    private func busClosed() {
      let links = model.withLock { model -> [BlueZPeripheralLink] in
        model.bus = nil
        defer { model.links.removeAll() }
        return Array(model.links.values)
      }
      for link in links { link.end(.other("the system bus connection was closed"), emit: true) }
      let waiters = model.withLock { model -> [Waiter] in
        defer { model.waiters.removeAll() }
        return Array(model.waiters.values)
      }
      for waiter in waiters { waiter.continuation.resume(returning: false) }
      broadcast.update(.unknown)
    }

    func objects() -> BlueZObjects { model.withLock { $0.objects } }
  }

  /// One scan's consumer, with its service filter.
  struct ScanSink: Sendable {
    var continuation: AsyncStream<Advertisement>.Continuation
    var services: Set<BluetoothUUID>?

    func offer(_ advertisement: Advertisement) {
      if let services, services.isDisjoint(with: advertisement.serviceUUIDs) { return }
      continuation.yield(advertisement)
    }
  }

  /// Serialises StartDiscovery / StopDiscovery so that a scan ending right after it began
  /// never leaves discovery on.
  actor DiscoveryControl {
    private var running = false
    private let timeout: Duration

    init(timeout: Duration) { self.timeout = timeout }

    /// Forget what we started (the adapter or bluetoothd restarted: discovery is off).
    func reset() { running = false }

    func set(_ wanted: Bool, bus: BusConnection, adapter: String) async {
      guard wanted != running else { return }
      if wanted {
        _ = await bus.call(
          BlueZ.service, adapter, BlueZ.adapter, "SetDiscoveryFilter",
          [.options(["Transport": .string("le"), "DuplicateData": .bool(true)])],
          timeout: timeout)
        if case .success = await bus.call(
          BlueZ.service, adapter, BlueZ.adapter, "StartDiscovery", timeout: timeout)
        {
          running = true
        }
      } else {
        _ = await bus.call(
          BlueZ.service, adapter, BlueZ.adapter, "StopDiscovery", timeout: timeout)
        running = false
      }
    }
  }
#endif
