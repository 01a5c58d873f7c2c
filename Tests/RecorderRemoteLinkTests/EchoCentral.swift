import RecorderBluetooth
import RecorderConcurrency

/// A tiny scripted ``Central`` for the TCP link tests: peripherals that echo every write to
/// the write characteristic as a notification (once subscribed), report a battery level, and
/// end their link with a chosen reason on request.
final class EchoCentral: Central {
  /// Connectable and echoing.
  static let echo = PeripheralID("echo-1")
  /// A second echoing peripheral, for several links on one connection.
  static let other = PeripheralID("echo-2")
  /// Never answers a connection: the served central's own timeout fires.
  static let silent = PeripheralID("silent")

  /// The battery level every link reports.
  static let batteryLevel: UInt8 = 87
  /// A write of `[disconnectCommand, reason]` makes the device end the link.
  static let disconnectCommand: UInt8 = 0xDD

  let links = Locked<[EchoLink]>([])
  /// Every connect call, by peripheral.
  let connectAttempts = Locked<[PeripheralID]>([])

  var state: CentralState { get async { .poweredOn } }

  static func advertisement(_ peripheral: PeripheralID, rssi: Int) -> Advertisement {
    Advertisement(
      peripheral: peripheral, localName: "PLAUD_NOTE", manufacturerData: [0x59, 0x00, 1, 2, 3],
      serviceUUIDs: [RecorderGATT.service], rssi: rssi)
  }

  func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    AsyncStream { continuation in
      continuation.yield(Self.advertisement(Self.echo, rssi: -40))
      continuation.yield(Self.advertisement(Self.other, rssi: -70))
      // Stays open, like a real scan, until the consumer stops.
    }
  }

  func connect(_ peripheral: PeripheralID, timeout: Duration) async throws(LinkError)
    -> any PeripheralLink
  {
    connectAttempts.withLock { $0.append(peripheral) }
    switch peripheral {
    case Self.echo, Self.other:
      let link = EchoLink(peripheral: peripheral)
      links.withLock { $0.append(link) }
      return link
    case Self.silent:
      try? await Task.sleep(for: timeout)
      throw .connectTimeout
    default:
      throw .unknownPeripheral(peripheral)
    }
  }

  func restoredPeripherals() async -> [PeripheralID] { [Self.other] }
}

/// One scripted link. State is in a ``Locked``.
final class EchoLink: PeripheralLink {
  let peripheral: PeripheralID
  let events: BackpressureStream<LinkEvent>
  private let continuation: BackpressureStream<LinkEvent>.Continuation

  struct State {
    var mtu = 23
    var notifying = false
    var ended: DisconnectReason?
    var written: [[UInt8]] = []
    var endWaiters: [CheckedContinuation<DisconnectReason, Never>] = []
  }
  let state = Locked(State())

  init(peripheral: PeripheralID) {
    self.peripheral = peripheral
    (events, continuation) = BackpressureStream<LinkEvent>.makeStream()
  }

  var written: [[UInt8]] { state.withLock { $0.written } }

  private func check() throws(LinkError) {
    if let reason = state.withLock({ $0.ended }) { throw .disconnected(reason) }
  }

  func requestMTU(_ mtu: Int) async throws(LinkError) -> Int {
    try check()
    return state.withLock {
      $0.mtu = min(max(mtu, 23), 247)
      return $0.mtu
    }
  }

  func maximumWriteLength(for type: WriteType) async -> Int { state.withLock { $0.mtu - 3 } }

  func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    try check()
    guard characteristic == RecorderGATT.batteryLevel else {
      throw .characteristicNotFound(characteristic)
    }
    return [EchoCentral.batteryLevel]
  }

  func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    try check()
    guard characteristic == RecorderGATT.writeCharacteristic else {
      throw .characteristicNotFound(characteristic)
    }
    let maximum = state.withLock { $0.mtu - 3 }
    guard value.count <= maximum else { throw .valueTooLong(length: value.count, maximum: maximum) }
    if value.count == 2, value[0] == EchoCentral.disconnectCommand {
      end(value[1] == 1 ? .remoteTerminated : .other("scripted reason \(value[1])"))
      return
    }
    let notifying = state.withLock { state -> Bool in
      state.written.append(value)
      return state.notifying
    }
    if notifying {
      continuation.yield(
        .notification(characteristic: RecorderGATT.notifyCharacteristic, value: value))
    }
    if type == .withoutResponse, state.withLock({ $0.written.count }) % 100 == 0 {
      continuation.yield(.readyToSendWriteWithoutResponse)
    }
  }

  func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID) async throws(LinkError)
  {
    try check()
    guard characteristic == RecorderGATT.notifyCharacteristic else {
      throw .characteristicNotFound(characteristic)
    }
    state.withLock { $0.notifying = enabled }
  }

  var bondState: BondState { get async { .bonded } }

  func disconnect() async { end(.localRequest) }

  /// Ends the link with `reason` (once).
  func end(_ reason: DisconnectReason) {
    let waiters = state.withLock { state -> [CheckedContinuation<DisconnectReason, Never>]? in
      guard state.ended == nil else { return nil }
      state.ended = reason
      defer { state.endWaiters = [] }
      return state.endWaiters
    }
    guard let waiters else { return }
    continuation.yield(.disconnected(reason))
    continuation.finish()
    for waiter in waiters { waiter.resume(returning: reason) }
  }

  var isEnded: Bool { state.withLock { $0.ended != nil } }
}

extension EchoLink {
  /// Returns the reason once the link has ended (checked on every event the test consumes,
  /// so this needs no polling: it resumes when ``end(_:)`` runs).
  func waitUntilEnded() async -> DisconnectReason {
    await withCheckedContinuation { (continuation: CheckedContinuation<DisconnectReason, Never>) in
      let reason = state.withLock { state -> DisconnectReason? in
        if let ended = state.ended { return ended }
        state.endWaiters.append(continuation)
        return nil
      }
      if let reason { continuation.resume(returning: reason) }
    }
  }
}
