#if os(Linux)
  import CDBus
  import Foundation
  import Glibc
  import RecorderBluetooth
  import RecorderConcurrency

  /// One BlueZ connection (a Device1 object) as a `PeripheralLink`.
  ///
  /// - Writes without response go through AcquireWrite's socket: one datagram per ATT Write
  ///   Command, sent non-blocking; a full socket is the radio's back pressure, waited out with
  ///   poll(2). When bluetoothd refuses the socket, WriteValue with `type: "command"`.
  /// - Writes with response: WriteValue with `type: "request"`; reads: ReadValue.
  /// - Notifications: AcquireNotify's socket read by a thread of this link (no D-Bus message
  ///   per notification), or StartNotify and `Value` PropertiesChanged (see
  ///   ``BlueZCentral/NotificationPath``).
  /// - MTU: the characteristic's `MTU` property, or AcquireWrite/AcquireNotify's answer.
  /// - Battery level (0x2A19) without GATT objects for it (bluetoothd's battery plugin
  ///   claimed the service, BlueZ before 5.80): read as `org.bluez.Battery1`'s `Percentage`,
  ///   notified on its PropertiesChanged.
  final class BlueZPeripheralLink: PeripheralLink {
    private enum Notify {
      case descriptor(NotificationReader)
      case propertiesChanged
    }

    private struct State {
      var characteristics: [BluetoothUUID: String] = [:]
      var mtu = 23
      var writeFD: Int32?
      var writeSocketRefused = false
      var notify: [BluetoothUUID: Notify] = [:]
      /// The battery level is subscribed to through Battery1.
      var batteryNotifying = false
      var ended: DisconnectReason?
    }

    let peripheral: PeripheralID
    let devicePath: String
    let events: BackpressureStream<LinkEvent>
    private let continuation: BackpressureStream<LinkEvent>.Continuation
    private let bus: BusConnection
    private weak let central: BlueZCentral?
    private let notificationPath: BlueZCentral.NotificationPath
    private let callTimeout: Duration
    private let state = Locked(State())
    /// How many times a write without response found the socket full and waited (tests and
    /// diagnostics: back pressure from the radio reached us).
    let backPressureWaits = Locked(0)
    /// Notifications buffered before a reader thread waits for the consumer.
    static let eventBufferLimit = 8192

    init(
      peripheral: PeripheralID, devicePath: String, bus: BusConnection, central: BlueZCentral,
      notificationPath: BlueZCentral.NotificationPath, callTimeout: Duration
    ) {
      self.peripheral = peripheral
      self.devicePath = devicePath
      self.bus = bus
      self.central = central
      self.notificationPath = notificationPath
      self.callTimeout = callTimeout
      (events, continuation) = BackpressureStream<LinkEvent>.makeStream()
    }

    func resolved(characteristics: [BluetoothUUID: String], mtu: Int?) {
      state.withLock { state in
        state.characteristics = characteristics
        if let mtu { state.mtu = mtu }
      }
    }

    func emit(_ event: LinkEvent) { continuation.yield(event) }

    /// Ends the link once: closes the sockets, tells the consumer (unless `emit` is false,
    /// for a link that was never handed out).
    func end(_ reason: DisconnectReason, emit: Bool) {
      let (first, writeFD, readers) = state.withLock {
        state -> (Bool, Int32?, [NotificationReader]) in
        guard state.ended == nil else { return (false, nil, []) }
        state.ended = reason
        defer {
          state.writeFD = nil
          state.notify.removeAll()
        }
        let readers = state.notify.values.compactMap { notify -> NotificationReader? in
          if case .descriptor(let reader) = notify { return reader }
          return nil
        }
        return (true, state.writeFD, readers)
      }
      guard first else { return }
      for reader in readers { reader.stop() }
      if let writeFD { Glibc.close(writeFD) }
      if emit { continuation.yield(.disconnected(reason)) }
      continuation.finish()
    }

    /// A `Value` PropertiesChanged of one of our characteristics.
    func valueChanged(path: String, value: [UInt8]) {
      let uuid = state.withLock { state -> BluetoothUUID? in
        guard let entry = state.characteristics.first(where: { $0.value == path }),
          case .propertiesChanged = state.notify[entry.key]
        else { return nil }
        return entry.key
      }
      if let uuid { continuation.yield(.notification(characteristic: uuid, value: value)) }
    }

    /// Battery1's `Percentage` changed: a 2A19 notification when subscribed through it.
    func batteryChanged(_ level: UInt8) {
      guard state.withLock({ $0.batteryNotifying && $0.ended == nil }) else { return }
      continuation.yield(.notification(characteristic: RecorderGATT.batteryLevel, value: [level]))
    }

    /// The device's Battery1 properties when they stand in for `characteristic`: 0x2A19
    /// without GATT objects (bluetoothd claimed the Battery Service). Nil otherwise.
    private func claimedBattery(for characteristic: BluetoothUUID) -> BlueZObjects.Properties? {
      guard characteristic == RecorderGATT.batteryLevel,
        state.withLock({ $0.characteristics[characteristic] }) == nil
      else { return nil }
      return central?.objects()[devicePath, BlueZ.battery]
    }

    private func live() throws(LinkError) {
      if let reason = state.withLock({ $0.ended }) { throw .disconnected(reason) }
    }

    private func path(_ characteristic: BluetoothUUID) throws(LinkError) -> String {
      try live()
      guard let path = state.withLock({ $0.characteristics[characteristic] }) else {
        throw .characteristicNotFound(characteristic)
      }
      return path
    }

    private func call(
      _ path: String, _ method: String, _ arguments: [DBusValue] = []
    ) async throws(LinkError) -> [DBusValue] {
      switch await bus.call(
        BlueZ.service, path, BlueZ.gattCharacteristic, method, arguments, timeout: callTimeout)
      {
      case .success(let values): return values
      case .failure(let failure):
        if let reason = state.withLock({ $0.ended }) { throw .disconnected(reason) }
        throw .bluez(failure, during: method)
      }
    }

    // MARK: PeripheralLink

    func requestMTU(_ mtu: Int) async throws(LinkError) -> Int {
      try live()
      // BlueZ exchanges the MTU itself on connect (it offers 517); a client cannot ask. Its
      // answer is the characteristics' MTU property, or AcquireWrite's.
      if state.withLock({ $0.mtu }) <= 23 { _ = try? await writeSocket() }
      return min(mtu, state.withLock { $0.mtu })
    }

    func maximumWriteLength(for type: WriteType) async -> Int {
      state.withLock { $0.mtu } - 3
    }

    func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
      try live()
      if let battery = claimedBattery(for: characteristic) {
        guard let level = battery["Percentage"]?.intValue else {
          throw .transport("org.bluez.Battery1 has no Percentage")
        }
        return [UInt8(clamping: level)]
      }
      let path = try path(characteristic)
      let reply = try await call(path, "ReadValue", [.options([:])])
      guard let bytes = reply.first?.bytesValue else { throw .transport("ReadValue: no value") }
      return bytes
    }

    func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
      async throws(LinkError)
    {
      let path = try path(characteristic)
      let maximum = state.withLock { $0.mtu } - 3
      guard value.count <= maximum else {
        throw .valueTooLong(length: value.count, maximum: maximum)
      }
      if type == .withoutResponse, let fd = try await writeSocket() {
        try await send(value, on: fd)
        return
      }
      let kind = type == .withResponse ? "request" : "command"
      _ = try await call(path, "WriteValue", [.bytes(value), .options(["type": .string(kind)])])
    }

    /// AcquireWrite's socket for the write characteristic, acquired once; nil when
    /// bluetoothd refused it (then WriteValue carries the commands).
    private func writeSocket() async throws(LinkError) -> Int32? {
      let (existing, refused, path) = state.withLock {
        ($0.writeFD, $0.writeSocketRefused, $0.characteristics[RecorderGATT.writeCharacteristic])
      }
      if let existing { return existing }
      guard !refused, let path else { return nil }
      let reply: [DBusValue]
      do {
        reply = try await call(path, "AcquireWrite", [.options([:])])
      } catch {
        state.withLock { $0.writeSocketRefused = true }
        return nil
      }
      guard reply.count >= 2, case .unixFD(let fd) = reply[0] else {
        state.withLock { $0.writeSocketRefused = true }
        return nil
      }
      let flags = fcntl(fd, F_GETFL)
      _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
      let kept = state.withLock { state -> Int32? in
        guard state.ended == nil else { return nil }
        if let mtu = reply[1].intValue { state.mtu = mtu }
        if let other = state.writeFD { return other }
        state.writeFD = fd
        return fd
      }
      if kept != fd { Glibc.close(fd) }
      try live()
      return kept
    }

    private func send(_ value: [UInt8], on fd: Int32) async throws(LinkError) {
      while true {
        let sent = value.withUnsafeBytes {
          Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
        }
        if sent == value.count { return }
        let error = errno
        guard sent < 0, error == EAGAIN || error == EWOULDBLOCK || error == EINTR else {
          try live()
          throw .disconnected(.linkLoss)
        }
        // Back pressure: the radio's queue is full. Wait (bounded slices) for room.
        backPressureWaits.withLock { $0 += 1 }
        await Self.waitWritable(fd)
        try live()
        if Task.isCancelled { throw .cancelled }
      }
    }

    private static func waitWritable(_ fd: Int32) async {
      await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
          var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
          _ = poll(&pfd, 1, 200)
          done.resume()
        }
      }
    }

    func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID)
      async throws(LinkError)
    {
      try live()
      if claimedBattery(for: characteristic) != nil {
        // bluetoothd's plugin is subscribed already; its PropertiesChanged are ours to pass on.
        state.withLock { $0.batteryNotifying = enabled }
        return
      }
      let path = try path(characteristic)
      if !enabled {
        let previous = state.withLock { $0.notify.removeValue(forKey: characteristic) }
        switch previous {
        case .descriptor(let reader): reader.stop()
        case .propertiesChanged: _ = try await call(path, "StopNotify")
        case nil: break
        }
        return
      }
      if state.withLock({ $0.notify[characteristic] }) != nil { return }
      if notificationPath == .automatic,
        let reply = try? await call(path, "AcquireNotify", [.options([:])]),
        reply.count >= 2, case .unixFD(let fd) = reply[0]
      {
        let reader = NotificationReader(
          fd: fd, characteristic: characteristic, continuation: continuation,
          limit: Self.eventBufferLimit)
        let kept = state.withLock { state -> Bool in
          guard state.ended == nil else { return false }
          if let mtu = reply[1].intValue, state.mtu <= 23 { state.mtu = mtu }
          state.notify[characteristic] = .descriptor(reader)
          return true
        }
        guard kept else {
          Glibc.close(fd)
          try live()
          return
        }
        reader.start()
        return
      }
      state.withLock { $0.notify[characteristic] = .propertiesChanged }
      do {
        _ = try await call(path, "StartNotify")
      } catch {
        state.withLock { _ = $0.notify.removeValue(forKey: characteristic) }
        throw error
      }
    }

    var bondState: BondState {
      get async {
        let device = central?.objects()[devicePath, BlueZ.device]
        let bonded = device?["Bonded"]?.boolValue ?? device?["Paired"]?.boolValue ?? false
        return bonded ? .bonded : .none
      }
    }

    func disconnect() async {
      guard state.withLock({ $0.ended == nil }) else { return }
      central?.forget(self)
      _ = await bus.call(
        BlueZ.service, devicePath, BlueZ.device, "Disconnect", timeout: callTimeout)
      end(.localRequest, emit: true)
    }
  }

  /// Reads AcquireNotify's socket on a thread of its own: one datagram, one notification.
  ///
  /// `@unchecked Sendable` is sound: `fd` and `stopFD` are immutable descriptors; the thread
  /// is the only reader of `fd` and closes both when it ends; `stop()` only writes to
  /// `stopFD` (an eventfd, atomic), guarded by `stopped` under a lock so it writes at most
  /// once and never after the thread closed it.
  final class NotificationReader: @unchecked Sendable {
    private let fd: Int32
    private let stopFD: Int32
    private let characteristic: BluetoothUUID
    private let continuation: BackpressureStream<LinkEvent>.Continuation
    private let limit: Int
    private let stopped = Locked(false)

    init(
      fd: Int32, characteristic: BluetoothUUID,
      continuation: BackpressureStream<LinkEvent>.Continuation, limit: Int
    ) {
      self.fd = fd
      self.characteristic = characteristic
      self.continuation = continuation
      self.limit = limit
      stopFD = eventfd(0, Int32(EFD_CLOEXEC))
    }

    func start() {
      let thread = Thread { [self] in run() }
      thread.name = "RecorderBlueZ notify"
      thread.start()
    }

    func stop() {
      stopped.withLock { stopped in
        guard !stopped else { return }
        stopped = true
        var one: UInt64 = 1
        _ = Glibc.write(stopFD, &one, 8)
      }
    }

    private func run() {
      var buffer = [UInt8](repeating: 0, count: 1024)
      loop: while true {
        var fds = [
          pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
          pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
        ]
        guard poll(&fds, 2, -1) >= 0 || errno == EINTR else { break }
        if fds[1].revents != 0 { break }
        if fds[0].revents & Int16(POLLIN) == 0, fds[0].revents != 0 { break }
        // Everything that is there now, then poll again.
        while true {
          let count = buffer.withUnsafeMutableBytes {
            recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
          }
          if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
          guard count > 0 else { break loop }
          continuation.yield(
            .notification(characteristic: characteristic, value: Array(buffer[0..<count])))
          if continuation.buffered >= limit { waitForConsumer() }
        }
      }
      stopped.withLock { stopped in
        stopped = true
        Glibc.close(fd)
        Glibc.close(stopFD)
      }
    }

    /// Blocks this thread until the consumer caught up: the socket then fills and bluetoothd
    /// (or the mock) sees back pressure.
    private func waitForConsumer() {
      let semaphore = DispatchSemaphore(value: 0)
      let continuation = continuation
      let limit = limit
      Task {
        await continuation.waitForRoom(below: limit / 2)
        semaphore.signal()
      }
      semaphore.wait()
    }
  }
#endif
