import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// A central with one scripted peripheral: every frame written to the recorder's write
/// characteristic goes to `script`, whose answer frames come back as notifications. Lets the
/// session's logic be tested byte by byte, apart from the emulator.
public final class ScriptedCentral: Central, Sendable {
  /// The one peripheral's link, to inspect what was written or to drop it.
  public let link: ScriptedLink
  /// What the central advertises for its peripheral.
  public let advertisement: Advertisement

  /// A V0095 Note with `serial` and `portVersion` whose replies come from `script`;
  /// `beforeWrite` runs before each write is taken (to slow one down, say).
  public init(
    serial: String = "8881234567890123", portVersion: UInt16 = 10,
    beforeWrite: @escaping @Sendable (PhoneMessage) async -> Void = { _ in },
    script: @escaping @Sendable (PhoneMessage) -> [[UInt8]]
  ) {
    let id = PeripheralID("scripted-1")
    link = ScriptedLink(peripheral: id, beforeWrite: beforeWrite, script: script)
    let payload = ManufacturerPayload(
      projectCode: 888, firmware: FirmwareVersion(type: 0x56, code: 95), serial: serial,
      portVersion: portVersion)
    advertisement = Advertisement(
      peripheral: id, localName: "PLAUD_NOTE",
      manufacturerData: payload.manufacturerData(companyID: ManufacturerPayload.noteCompanyID),
      serviceUUIDs: [RecorderGATT.service], rssi: -50)
  }

  public var state: CentralState { .poweredOn }

  /// Always powered on.
  public func stateUpdates() -> AsyncStream<CentralState> {
    AsyncStream { $0.yield(.poweredOn) }
  }

  public func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    AsyncStream { continuation in
      continuation.yield(advertisement)
    }
  }

  public func connect(
    _ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration
  ) async throws(LinkError) -> any PeripheralLink {
    guard peripheral == link.peripheral else { throw .unknownPeripheral(peripheral) }
    return link
  }

  public func restoredPeripherals() async -> [PeripheralID] { [] }
}

/// The scripted peripheral's link: records every message written and answers from the script.
public final class ScriptedLink: PeripheralLink, Sendable {
  public let peripheral: PeripheralID
  public let events: BackpressureStream<LinkEvent>
  private let continuation: BackpressureStream<LinkEvent>.Continuation
  private let script: @Sendable (PhoneMessage) -> [[UInt8]]
  private let beforeWrite: @Sendable (PhoneMessage) async -> Void
  private let record = Locked(Record())

  struct Record {
    var written: [PhoneMessage] = []
    var subscribedBeforeFirstWrite = false
    var subscribed = false
    var disconnected = false
  }

  /// A link to `peripheral` answering each written message with `script`'s frames, after
  /// `beforeWrite` has run for it.
  public init(
    peripheral: PeripheralID,
    beforeWrite: @escaping @Sendable (PhoneMessage) async -> Void = { _ in },
    script: @escaping @Sendable (PhoneMessage) -> [[UInt8]]
  ) {
    self.peripheral = peripheral
    self.script = script
    self.beforeWrite = beforeWrite
    (events, continuation) = BackpressureStream<LinkEvent>.makeStream()
  }

  /// Every message the session wrote, in order.
  public var written: [PhoneMessage] { record.withLock { $0.written } }
  /// Whether notifications were on before the first write.
  public var subscribedBeforeFirstWrite: Bool { record.withLock { $0.subscribedBeforeFirstWrite } }
  /// Whether the link has ended.
  public var isDisconnected: Bool { record.withLock { $0.disconnected } }

  /// Sends a frame as if the device had notified it on its own.
  public func notify(_ frame: [UInt8]) {
    continuation.yield(
      .notification(characteristic: RecorderGATT.notifyCharacteristic, value: frame))
  }

  /// Ends the link as the device or the radio would.
  public func drop(_ reason: DisconnectReason) {
    continuation.yield(.disconnected(reason))
    continuation.finish()
  }

  public func requestMTU(_ mtu: Int) async throws(LinkError) -> Int { min(mtu, 247) }
  public func maximumWriteLength(for type: WriteType) async -> Int { 244 }
  public func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] { [100] }
  public var bondState: BondState { .none }

  public func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    record.withLock { $0.subscribed = enabled }
  }

  public func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    guard !isDisconnected else { throw .disconnected(.linkLoss) }
    guard case .control(let frame)? = try? Frame(decoding: value),
      let message = try? PhoneMessage(frame)
    else { return }
    await beforeWrite(message)
    record.withLock {
      if $0.written.isEmpty { $0.subscribedBeforeFirstWrite = $0.subscribed }
      $0.written.append(message)
    }
    for reply in script(message) { notify(reply) }
  }

  public func disconnect() async {
    let first = record.withLock { record -> Bool in
      defer { record.disconnected = true }
      return !record.disconnected
    }
    if first { drop(.localRequest) }
  }
}

/// Replies of a V0095 Note taken from PROTOCOL.md §11, for the set-up sequence.
public enum V0095Replies {
  /// The reply frames to `message` for the set-up sequence (nothing for other commands).
  public static func standard(_ message: PhoneMessage) -> [[UInt8]] {
    switch message {
    case .handshake: [hex("01010000 0a000300 01010000 565f0000")]
    case .timeSync(let request):
      [
        DeviceMessage.timeSync(TimeSyncResponse(unixSeconds: request.unixSeconds, tzHours: 3))
          .encoded()
      ]
    case .battery: [hex("01090064")]
    case .getState: [hex("010300 01000000 00 04 00 00 00000000")]
    case .getName: [hex("016c00504c4155445f4e4f544500000000")]
    case .storage: [hex("010600 0000868f0e000000 0000888f0e000000 90abce3600000000")]
    case .setActive(let value): [DeviceMessage.active(value).encoded()]
    default: []
    }
  }

  /// Bytes from hex digits (spaces allowed); empty for malformed text.
  public static func hex(_ text: String) -> [UInt8] { [UInt8](hex: text) ?? [] }
}
