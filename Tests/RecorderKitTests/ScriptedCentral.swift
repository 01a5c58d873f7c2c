import RecorderLink
import RecorderProtocol

/// A central with one scripted peripheral: every frame written to the recorder's write
/// characteristic goes to `script`, whose answer frames come back as notifications. Lets the
/// session's logic be tested byte by byte, apart from the emulator.
final class ScriptedCentral: Central, Sendable {
  let link: ScriptedLink
  let advertisement: Advertisement

  init(
    serial: String = "8881234567890123", portVersion: UInt16 = 10,
    script: @escaping @Sendable (PhoneMessage) -> [[UInt8]]
  ) {
    let id = PeripheralID("scripted-1")
    link = ScriptedLink(peripheral: id, script: script)
    let payload = ManufacturerPayload(
      projectCode: 888, firmware: FirmwareVersion(type: 0x56, code: 95), serial: serial,
      portVersion: portVersion)
    advertisement = Advertisement(
      peripheral: id, localName: "PLAUD_NOTE",
      manufacturerData: payload.manufacturerData(companyID: ManufacturerPayload.noteCompanyID),
      serviceUUIDs: [RecorderGATT.service], rssi: -50)
  }

  var state: CentralState { .poweredOn }

  func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    AsyncStream { continuation in
      continuation.yield(advertisement)
    }
  }

  func connect(_ peripheral: PeripheralID, timeout: Duration) async throws(LinkError)
    -> any PeripheralLink
  {
    guard peripheral == link.peripheral else { throw .unknownPeripheral(peripheral) }
    return link
  }

  func restoredPeripherals() async -> [PeripheralID] { [] }
}

final class ScriptedLink: PeripheralLink, Sendable {
  let peripheral: PeripheralID
  let events: BackpressureStream<LinkEvent>
  private let continuation: BackpressureStream<LinkEvent>.Continuation
  private let script: @Sendable (PhoneMessage) -> [[UInt8]]
  private let record = Locked(Record())

  struct Record {
    var written: [PhoneMessage] = []
    var subscribedBeforeFirstWrite = false
    var subscribed = false
    var disconnected = false
  }

  init(peripheral: PeripheralID, script: @escaping @Sendable (PhoneMessage) -> [[UInt8]]) {
    self.peripheral = peripheral
    self.script = script
    (events, continuation) = BackpressureStream<LinkEvent>.makeStream()
  }

  /// Every message the session wrote, in order.
  var written: [PhoneMessage] { record.withLock { $0.written } }
  var subscribedBeforeFirstWrite: Bool { record.withLock { $0.subscribedBeforeFirstWrite } }
  var isDisconnected: Bool { record.withLock { $0.disconnected } }

  /// Sends a frame as if the device had notified it on its own.
  func notify(_ frame: [UInt8]) {
    continuation.yield(
      .notification(characteristic: RecorderGATT.notifyCharacteristic, value: frame))
  }

  /// Ends the link as the device or the radio would.
  func drop(_ reason: DisconnectReason) {
    continuation.yield(.disconnected(reason))
    continuation.finish()
  }

  func requestMTU(_ mtu: Int) async throws(LinkError) -> Int { min(mtu, 247) }
  func maximumWriteLength(for type: WriteType) async -> Int { 244 }
  func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] { [100] }
  var bondState: BondState { .none }

  func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID) async throws(LinkError)
  {
    record.withLock { $0.subscribed = enabled }
  }

  func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    guard !isDisconnected else { throw .disconnected(.linkLoss) }
    guard case .control(let frame)? = try? Frame(decoding: value),
      let message = try? PhoneMessage(frame)
    else { return }
    record.withLock {
      if $0.written.isEmpty { $0.subscribedBeforeFirstWrite = $0.subscribed }
      $0.written.append(message)
    }
    for reply in script(message) { notify(reply) }
  }

  func disconnect() async {
    let first = record.withLock { record -> Bool in
      defer { record.disconnected = true }
      return !record.disconnected
    }
    if first { drop(.localRequest) }
  }
}

/// Replies of a V0095 Note taken from PROTOCOL.md §11, for the set-up sequence.
enum V0095Replies {
  static func standard(_ message: PhoneMessage) -> [[UInt8]] {
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

  static func hex(_ text: String) -> [UInt8] { [UInt8](hex: text) ?? [] }
}
