import RecorderBluetooth
import RecorderProtocol

/// One message of the TCP link between ``TCPCentral`` (the client, in the SDK's process) and
/// ``TCPCentralServer`` (the server, next to the emulated device). docs/tcp-link.md gives the
/// byte layout of every case; this type is its only implementation, shared by both ends.
///
/// On the wire every message is `length u32 LE` (the bytes that follow, 1 ... ``maximumLength``)
/// · `type u8` · fields. Integers are little-endian; UUIDs are their 16 bytes as written
/// (big-endian); strings are `u16 LE` length + UTF-8; byte values are `u32 LE` length + bytes.
///
/// Requests carry a `request` id chosen by the client; the server's reply echoes it. Link ids
/// are chosen by the server in ``connected(request:link:)``; scan ids by the client.
public enum TCPLinkMessage: Sendable, Equatable {
  // MARK: Both directions

  /// First message of each side: magic `RKTL` then the protocol version (``version``).
  case hello(version: UInt16)
  /// The sender is closing the connection because of `reason` (a malformed message, an
  /// unsupported version, shutdown). Informational: the connection closing is what counts.
  case goodbye(reason: String)

  // MARK: Client → server

  /// `Central.state`. Reply: ``stateReply(request:state:)``.
  case getState(request: UInt32)
  /// `Central.scan(services:)`: the server relays advertisements as
  /// ``advertisement(scan:_:)`` until ``stopScan(scan:)``, then sends ``scanEnded(scan:)``.
  case startScan(scan: UInt32, services: [BluetoothUUID]?)
  /// Ends a scan started with ``startScan(scan:services:)``.
  case stopScan(scan: UInt32)
  /// `Central.connect(_:services:timeout:)`; the timeout in nanoseconds is applied by the
  /// served central. Reply: ``connected(request:link:)`` or ``errorReply(request:error:)``.
  /// On the wire `services` follows the peripheral; a message that ends before it (an older
  /// client) asks for `RecorderGATT/services`.
  case connect(
    request: UInt32, peripheral: PeripheralID, timeoutNanoseconds: UInt64,
    services: [BluetoothUUID])
  /// `Central.restoredPeripherals()`. Reply: ``peripheralsReply(request:peripherals:)``.
  case getRestoredPeripherals(request: UInt32)
  /// `PeripheralLink.requestMTU(_:)`. Reply: ``integerReply(request:value:)``.
  case requestMTU(request: UInt32, link: UInt32, mtu: UInt32)
  /// `PeripheralLink.maximumWriteLength(for:)`. Reply: ``integerReply(request:value:)``.
  case getMaximumWriteLength(request: UInt32, link: UInt32, type: WriteType)
  /// `PeripheralLink.read(_:)`. Reply: ``valueReply(request:value:)``.
  case read(request: UInt32, link: UInt32, characteristic: BluetoothUUID)
  /// `PeripheralLink.write(_:to:type:)`. Reply: ``doneReply(request:)`` once the served link's
  /// write returned (for `.withoutResponse`: once it was queued, after any back pressure).
  case write(
    request: UInt32, link: UInt32, characteristic: BluetoothUUID, type: WriteType, value: [UInt8])
  /// `PeripheralLink.setNotifications(_:for:)`. Reply: ``doneReply(request:)``.
  case setNotifications(
    request: UInt32, link: UInt32, characteristic: BluetoothUUID, enabled: Bool)
  /// `PeripheralLink.bondState`. Reply: ``bondStateReply(request:state:)``.
  case getBondState(request: UInt32, link: UInt32)
  /// `PeripheralLink.disconnect()`. Reply: ``doneReply(request:)``; the link's
  /// `.disconnected` event follows as ``event(link:_:)``.
  case disconnect(request: UInt32, link: UInt32)

  // MARK: Server → client: replies

  case stateReply(request: UInt32, state: CentralState)
  /// The connection succeeded; `link` names it in later requests and events.
  case connected(request: UInt32, link: UInt32)
  case peripheralsReply(request: UInt32, peripherals: [PeripheralID])
  /// An MTU or a maximum write length.
  case integerReply(request: UInt32, value: UInt32)
  /// A characteristic's value.
  case valueReply(request: UInt32, value: [UInt8])
  /// The request succeeded and has nothing to return.
  case doneReply(request: UInt32)
  case bondStateReply(request: UInt32, state: BondState)
  /// The request failed with `error` (as the served central threw it).
  case errorReply(request: UInt32, error: LinkError)

  // MARK: Server → client: events

  /// One advertisement heard by scan `scan`.
  case advertisement(scan: UInt32, Advertisement)
  /// Scan `scan` is over: no more advertisements for it.
  case scanEnded(scan: UInt32)
  /// An event of link `link`, in the order the served link produced it.
  case event(link: UInt32, LinkEvent)

  /// The protocol version this code speaks.
  public static let version: UInt16 = 1
  /// `R K T L`, first bytes of every ``hello(version:)``.
  public static let magic: [UInt8] = [0x52, 0x4B, 0x54, 0x4C]
  /// Longest message body (type byte and fields) either side accepts: 1 MiB.
  public static let maximumLength = 1 << 20
  /// Longest characteristic value a message can carry (what a write may hold).
  public static let maximumValueLength = maximumLength - 64
}

/// Why bytes from the other side are not a ``TCPLinkMessage``. The receiver answers with a
/// ``TCPLinkMessage/goodbye(reason:)`` and closes the connection.
public enum TCPLinkMessageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A length prefix of 0: no type byte.
  case emptyMessage
  /// A length prefix above ``TCPLinkMessage/maximumLength`` (checked before buffering).
  case oversized(length: UInt32, maximum: Int)
  case unknownType(UInt8)
  /// A field runs past the end of its message.
  case truncated(field: String, needed: Int, available: Int)
  /// A field holds a value outside its range (an enum code, a boolean other than 0 or 1).
  case invalidValue(field: String, value: UInt32)
  case invalidUTF8(field: String)
  /// The message has bytes after its last field.
  case trailingBytes(type: UInt8, count: Int)
  /// A hello without the `RKTL` magic: the peer does not speak this protocol.
  case badMagic([UInt8])

  public var description: String {
    switch self {
    case .emptyMessage: "empty message (length 0)"
    case .oversized(let length, let maximum): "message of \(length) bytes exceeds \(maximum)"
    case .unknownType(let type): "unknown message type 0x\(String(type, radix: 16))"
    case .truncated(let field, let needed, let available):
      "truncated \(field): needs \(needed) bytes, \(available) left"
    case .invalidValue(let field, let value): "invalid \(field) \(value)"
    case .invalidUTF8(let field): "\(field) is not UTF-8"
    case .trailingBytes(let type, let count):
      "\(count) unexpected bytes after message 0x\(String(type, radix: 16))"
    case .badMagic(let bytes): "bad magic \(bytes) (not a RecorderKit TCP link peer)"
    }
  }
}

// MARK: - Type codes

extension TCPLinkMessage {
  enum TypeCode: UInt8 {
    case hello = 0x01
    case goodbye = 0x02
    case getState = 0x10
    case startScan = 0x11
    case stopScan = 0x12
    case connect = 0x13
    case getRestoredPeripherals = 0x14
    case requestMTU = 0x20
    case getMaximumWriteLength = 0x21
    case read = 0x22
    case write = 0x23
    case setNotifications = 0x24
    case getBondState = 0x25
    case disconnect = 0x26
    case stateReply = 0x81
    case connected = 0x82
    case peripheralsReply = 0x83
    case integerReply = 0x84
    case valueReply = 0x85
    case doneReply = 0x86
    case bondStateReply = 0x87
    case errorReply = 0x8F
    case advertisement = 0xA0
    case scanEnded = 0xA1
    case notification = 0xA2
    case readyToSend = 0xA3
    case bondStateChanged = 0xA4
    case disconnected = 0xA5
  }

  /// The request id of a reply, nil for other messages.
  public var replyRequestID: UInt32? {
    switch self {
    case .stateReply(let request, _), .connected(let request, _),
      .peripheralsReply(let request, _), .integerReply(let request, _),
      .valueReply(let request, _), .doneReply(let request), .bondStateReply(let request, _),
      .errorReply(let request, _):
      request
    default: nil
    }
  }
}

// MARK: - Encoding

extension TCPLinkMessage {
  /// The whole message as sent: length prefix, type, fields.
  ///
  /// Values too wide for their field are clamped, never trapped on: strings to 65 535 bytes
  /// (at a character boundary), service lists to 255 entries. A byte value longer than
  /// ``maximumValueLength`` makes a message the receiver refuses; ``TCPCentral`` checks
  /// writes before encoding them.
  public func encoded() -> [UInt8] {
    var body = MessageWriter()
    encodeBody(into: &body)
    var out = MessageWriter()
    out.u32(UInt32(truncatingIfNeeded: body.bytes.count))
    out.raw(body.bytes)
    return out.bytes
  }

  private func encodeBody(into out: inout MessageWriter) {
    switch self {
    case .hello(let version):
      out.type(.hello)
      out.raw(Self.magic)
      out.u16(version)
    case .goodbye(let reason):
      out.type(.goodbye)
      out.string(reason)
    case .getState(let request):
      out.type(.getState)
      out.u32(request)
    case .startScan(let scan, let services):
      out.type(.startScan)
      out.u32(scan)
      if let services {
        out.u8(1)
        out.uuidList(services)
      } else {
        out.u8(0)
      }
    case .stopScan(let scan):
      out.type(.stopScan)
      out.u32(scan)
    case .connect(let request, let peripheral, let timeout, let services):
      out.type(.connect)
      out.u32(request)
      out.u64(timeout)
      out.string(peripheral.rawValue)
      out.uuidList(services)
    case .getRestoredPeripherals(let request):
      out.type(.getRestoredPeripherals)
      out.u32(request)
    case .requestMTU(let request, let link, let mtu):
      out.type(.requestMTU)
      out.u32(request)
      out.u32(link)
      out.u32(mtu)
    case .getMaximumWriteLength(let request, let link, let type):
      out.type(.getMaximumWriteLength)
      out.u32(request)
      out.u32(link)
      out.u8(type.code)
    case .read(let request, let link, let characteristic):
      out.type(.read)
      out.u32(request)
      out.u32(link)
      out.uuid(characteristic)
    case .write(let request, let link, let characteristic, let type, let value):
      out.type(.write)
      out.u32(request)
      out.u32(link)
      out.uuid(characteristic)
      out.u8(type.code)
      out.value(value)
    case .setNotifications(let request, let link, let characteristic, let enabled):
      out.type(.setNotifications)
      out.u32(request)
      out.u32(link)
      out.uuid(characteristic)
      out.u8(enabled ? 1 : 0)
    case .getBondState(let request, let link):
      out.type(.getBondState)
      out.u32(request)
      out.u32(link)
    case .disconnect(let request, let link):
      out.type(.disconnect)
      out.u32(request)
      out.u32(link)
    case .stateReply(let request, let state):
      out.type(.stateReply)
      out.u32(request)
      out.u8(state.code)
    case .connected(let request, let link):
      out.type(.connected)
      out.u32(request)
      out.u32(link)
    case .peripheralsReply(let request, let peripherals):
      out.type(.peripheralsReply)
      out.u32(request)
      let kept = peripherals.prefix(Int(UInt16.max))
      out.u16(UInt16(kept.count))
      for peripheral in kept { out.string(peripheral.rawValue) }
    case .integerReply(let request, let value):
      out.type(.integerReply)
      out.u32(request)
      out.u32(value)
    case .valueReply(let request, let value):
      out.type(.valueReply)
      out.u32(request)
      out.value(value)
    case .doneReply(let request):
      out.type(.doneReply)
      out.u32(request)
    case .bondStateReply(let request, let state):
      out.type(.bondStateReply)
      out.u32(request)
      out.u8(state.code)
    case .errorReply(let request, let error):
      out.type(.errorReply)
      out.u32(request)
      out.linkError(error)
    case .advertisement(let scan, let advertisement):
      out.type(.advertisement)
      out.u32(scan)
      out.advertisement(advertisement)
    case .scanEnded(let scan):
      out.type(.scanEnded)
      out.u32(scan)
    case .event(let link, let event):
      switch event {
      case .notification(let characteristic, let value):
        out.type(.notification)
        out.u32(link)
        out.uuid(characteristic)
        out.value(value)
      case .readyToSendWriteWithoutResponse:
        out.type(.readyToSend)
        out.u32(link)
      case .bondStateChanged(let state):
        out.type(.bondStateChanged)
        out.u32(link)
        out.u8(state.code)
      case .disconnected(let reason):
        out.type(.disconnected)
        out.u32(link)
        out.reason(reason)
      }
    }
  }
}

/// Appends the link's fields to a message being encoded, through the codec's `ByteWriter`
/// (little-endian, like every device frame).
private struct MessageWriter {
  private var writer = ByteWriter()
  var bytes: [UInt8] { writer.bytes }

  mutating func type(_ code: TCPLinkMessage.TypeCode) { writer.u8(code.rawValue) }
  mutating func u8(_ value: UInt8) { writer.u8(value) }
  mutating func u16(_ value: UInt16) { writer.u16(value) }
  mutating func u32(_ value: UInt32) { writer.u32(value) }
  mutating func u64(_ value: UInt64) { writer.u64(value) }
  mutating func raw(_ value: [UInt8]) { writer.bytes(value) }
  mutating func uuid(_ uuid: BluetoothUUID) { raw(uuid.bytes) }
  /// u8 count + that many UUIDs (at most 255 are sent).
  mutating func uuidList(_ uuids: [BluetoothUUID]) {
    let kept = uuids.prefix(255)
    u8(UInt8(kept.count))
    for uuid in kept { self.uuid(uuid) }
  }
  mutating func value(_ value: [UInt8]) {
    u32(UInt32(truncatingIfNeeded: value.count))
    raw(value)
  }
  /// u16 length + UTF-8, clamped to 65 535 bytes at a character boundary.
  mutating func string(_ text: String) {
    var utf8 = Array(text.utf8)
    if utf8.count > Int(UInt16.max) {
      var end = Int(UInt16.max)
      while end > 0, utf8[end] & 0xC0 == 0x80 { end -= 1 }
      utf8 = Array(utf8[0..<end])
    }
    u16(UInt16(utf8.count))
    raw(utf8)
  }
  mutating func reason(_ reason: DisconnectReason) {
    switch reason {
    case .localRequest: u8(0)
    case .remoteTerminated: u8(1)
    case .linkLoss: u8(2)
    case .pairingFailed: u8(3)
    case .other(let text):
      u8(4)
      string(text)
    }
  }
  mutating func linkError(_ error: LinkError) {
    switch error {
    case .notPoweredOn(let state):
      u8(0)
      u8(state.code)
    case .unknownPeripheral(let peripheral):
      u8(1)
      string(peripheral.rawValue)
    case .connectTimeout: u8(2)
    case .disconnected(let reason):
      u8(3)
      self.reason(reason)
    case .characteristicNotFound(let uuid):
      u8(4)
      self.uuid(uuid)
    case .attError(let code):
      u8(5)
      u8(code)
    case .valueTooLong(let length, let maximum):
      u8(6)
      u32(UInt32(clamping: max(length, 0)))
      u32(UInt32(clamping: max(maximum, 0)))
    case .transport(let text):
      u8(7)
      string(text)
    case .cancelled: u8(8)
    case .serviceNotFound(let uuid):
      u8(9)
      self.uuid(uuid)
    }
  }
  mutating func advertisement(_ advertisement: Advertisement) {
    var flags: UInt8 = 0
    if advertisement.localName != nil { flags |= 0x01 }
    if advertisement.manufacturerData != nil { flags |= 0x02 }
    if advertisement.isConnectable { flags |= 0x04 }
    u8(flags)
    u16(UInt16(bitPattern: Int16(clamping: advertisement.rssi)))
    string(advertisement.peripheral.rawValue)
    if let name = advertisement.localName { string(name) }
    if let data = advertisement.manufacturerData { value(data) }
    let kept = advertisement.serviceUUIDs.prefix(255)
    u8(UInt8(kept.count))
    for uuid in kept { self.uuid(uuid) }
  }
}

// MARK: - Decoding

extension TCPLinkMessage {
  /// Decodes one message body: the bytes after the length prefix (type byte and fields).
  /// - Throws: ``TCPLinkMessageError``; never traps, never allocates more than `body` holds.
  public init(body: some Collection<UInt8>) throws(TCPLinkMessageError) {
    var reader = MessageReader(Array(body))
    let rawType = try reader.u8("type")
    guard let type = TypeCode(rawValue: rawType) else { throw .unknownType(rawType) }
    self = try Self.decodeFields(type, &reader)
    guard reader.isAtEnd else { throw .trailingBytes(type: rawType, count: reader.remaining) }
  }

  private static func decodeFields(_ type: TypeCode, _ r: inout MessageReader)
    throws(TCPLinkMessageError) -> TCPLinkMessage
  {
    switch type {
    case .hello:
      let magic = try r.bytes(4, "magic")
      guard magic == Self.magic else { throw .badMagic(magic) }
      return .hello(version: try r.u16("version"))
    case .goodbye:
      return .goodbye(reason: try r.string("reason"))
    case .getState:
      return .getState(request: try r.u32("request"))
    case .startScan:
      let scan = try r.u32("scan")
      let filtered = try r.bool("filtered")
      guard filtered else { return .startScan(scan: scan, services: nil) }
      return .startScan(scan: scan, services: try r.uuidList("service"))
    case .stopScan:
      return .stopScan(scan: try r.u32("scan"))
    case .connect:
      let request = try r.u32("request")
      let timeout = try r.u64("timeout")
      let peripheral = PeripheralID(try r.string("peripheral"))
      let services = r.isAtEnd ? RecorderGATT.services : try r.uuidList("service")
      return .connect(
        request: request, peripheral: peripheral, timeoutNanoseconds: timeout, services: services)
    case .getRestoredPeripherals:
      return .getRestoredPeripherals(request: try r.u32("request"))
    case .requestMTU:
      return .requestMTU(
        request: try r.u32("request"), link: try r.u32("link"), mtu: try r.u32("mtu"))
    case .getMaximumWriteLength:
      return .getMaximumWriteLength(
        request: try r.u32("request"), link: try r.u32("link"), type: try r.writeType())
    case .read:
      return .read(
        request: try r.u32("request"), link: try r.u32("link"),
        characteristic: try r.uuid("characteristic"))
    case .write:
      return .write(
        request: try r.u32("request"), link: try r.u32("link"),
        characteristic: try r.uuid("characteristic"), type: try r.writeType(),
        value: try r.value("value"))
    case .setNotifications:
      return .setNotifications(
        request: try r.u32("request"), link: try r.u32("link"),
        characteristic: try r.uuid("characteristic"), enabled: try r.bool("enabled"))
    case .getBondState:
      return .getBondState(request: try r.u32("request"), link: try r.u32("link"))
    case .disconnect:
      return .disconnect(request: try r.u32("request"), link: try r.u32("link"))
    case .stateReply:
      return .stateReply(request: try r.u32("request"), state: try r.centralState())
    case .connected:
      return .connected(request: try r.u32("request"), link: try r.u32("link"))
    case .peripheralsReply:
      let request = try r.u32("request")
      let count = Int(try r.u16("peripheral count"))
      var peripherals: [PeripheralID] = []
      for _ in 0..<count { peripherals.append(PeripheralID(try r.string("peripheral"))) }
      return .peripheralsReply(request: request, peripherals: peripherals)
    case .integerReply:
      return .integerReply(request: try r.u32("request"), value: try r.u32("value"))
    case .valueReply:
      return .valueReply(request: try r.u32("request"), value: try r.value("value"))
    case .doneReply:
      return .doneReply(request: try r.u32("request"))
    case .bondStateReply:
      return .bondStateReply(request: try r.u32("request"), state: try r.bondState())
    case .errorReply:
      return .errorReply(request: try r.u32("request"), error: try r.linkError())
    case .advertisement:
      return .advertisement(scan: try r.u32("scan"), try r.advertisement())
    case .scanEnded:
      return .scanEnded(scan: try r.u32("scan"))
    case .notification:
      let link = try r.u32("link")
      let characteristic = try r.uuid("characteristic")
      return .event(
        link: link, .notification(characteristic: characteristic, value: try r.value("value")))
    case .readyToSend:
      return .event(link: try r.u32("link"), .readyToSendWriteWithoutResponse)
    case .bondStateChanged:
      return .event(link: try r.u32("link"), .bondStateChanged(try r.bondState()))
    case .disconnected:
      return .event(link: try r.u32("link"), .disconnected(try r.reason()))
    }
  }
}

/// Reads the link's fields from one message body from outside, through the codec's
/// bounds-checked `ByteReader`: a short body is ``TCPLinkMessageError/truncated(field:needed:available:)``,
/// never a trap, and nothing is allocated for a length not yet checked against the bytes present.
private struct MessageReader {
  private var reader: ByteReader

  init(_ bytes: [UInt8]) { reader = ByteReader(bytes) }

  var remaining: Int { reader.remaining }
  var isAtEnd: Bool { reader.isAtEnd }

  /// Runs one primitive read, mapping the codec's error onto the link's.
  private mutating func read<T>(_ body: (inout ByteReader) throws(FrameError) -> T)
    throws(TCPLinkMessageError) -> T
  {
    do {
      return try body(&reader)
    } catch .truncated(let field, let needed, let available) {
      throw .truncated(field: field, needed: needed, available: available)
    } catch {
      // ByteReader's primitive reads throw nothing but `truncated`.
      preconditionFailure("unexpected codec error \(error)")
    }
  }

  mutating func u8(_ field: String) throws(TCPLinkMessageError) -> UInt8 {
    try read { (r) throws(FrameError) in try r.u8(field) }
  }
  mutating func u16(_ field: String) throws(TCPLinkMessageError) -> UInt16 {
    try read { (r) throws(FrameError) in try r.u16(field) }
  }
  mutating func u32(_ field: String) throws(TCPLinkMessageError) -> UInt32 {
    try read { (r) throws(FrameError) in try r.u32(field) }
  }
  mutating func u64(_ field: String) throws(TCPLinkMessageError) -> UInt64 {
    try read { (r) throws(FrameError) in try r.u64(field) }
  }
  mutating func bytes(_ count: Int, _ field: String) throws(TCPLinkMessageError) -> [UInt8] {
    try read { (r) throws(FrameError) in try r.bytes(count, field) }
  }

  mutating func bool(_ field: String) throws(TCPLinkMessageError) -> Bool {
    let raw = try u8(field)
    guard raw <= 1 else { throw .invalidValue(field: field, value: UInt32(raw)) }
    return raw == 1
  }

  mutating func uuid(_ field: String) throws(TCPLinkMessageError) -> BluetoothUUID {
    let raw = try bytes(16, field)
    guard let uuid = BluetoothUUID(bytes: raw) else {
      throw .truncated(field: field, needed: 16, available: raw.count)
    }
    return uuid
  }

  /// u8 count + that many UUIDs.
  mutating func uuidList(_ field: String) throws(TCPLinkMessageError) -> [BluetoothUUID] {
    let count = Int(try u8("\(field) count"))
    var uuids: [BluetoothUUID] = []
    for _ in 0..<count { uuids.append(try uuid(field)) }
    return uuids
  }

  /// u32 length (checked against what is present before any allocation) + bytes.
  mutating func value(_ field: String) throws(TCPLinkMessageError) -> [UInt8] {
    let length = try u32("\(field) length")
    guard Int(length) <= remaining else {
      throw .truncated(field: field, needed: Int(length), available: remaining)
    }
    return try bytes(Int(length), field)
  }

  mutating func string(_ field: String) throws(TCPLinkMessageError) -> String {
    let length = Int(try u16("\(field) length"))
    let raw = try bytes(length, field)
    // Decoding repairs bad sequences with U+FFFD; a round trip that changes the bytes means
    // they were not valid UTF-8.
    let text = String(decoding: raw, as: UTF8.self)
    guard text.utf8.elementsEqual(raw) else { throw .invalidUTF8(field: field) }
    return text
  }

  mutating func writeType() throws(TCPLinkMessageError) -> WriteType {
    let raw = try u8("write type")
    guard let type = WriteType(code: raw) else {
      throw .invalidValue(field: "write type", value: UInt32(raw))
    }
    return type
  }

  mutating func centralState() throws(TCPLinkMessageError) -> CentralState {
    let raw = try u8("central state")
    guard let state = CentralState(code: raw) else {
      throw .invalidValue(field: "central state", value: UInt32(raw))
    }
    return state
  }

  mutating func bondState() throws(TCPLinkMessageError) -> BondState {
    let raw = try u8("bond state")
    guard let state = BondState(code: raw) else {
      throw .invalidValue(field: "bond state", value: UInt32(raw))
    }
    return state
  }

  mutating func reason() throws(TCPLinkMessageError) -> DisconnectReason {
    let raw = try u8("disconnect reason")
    switch raw {
    case 0: return .localRequest
    case 1: return .remoteTerminated
    case 2: return .linkLoss
    case 3: return .pairingFailed
    case 4: return .other(try string("disconnect reason text"))
    default: throw .invalidValue(field: "disconnect reason", value: UInt32(raw))
    }
  }

  mutating func linkError() throws(TCPLinkMessageError) -> LinkError {
    let raw = try u8("error code")
    switch raw {
    case 0: return .notPoweredOn(try centralState())
    case 1: return .unknownPeripheral(PeripheralID(try string("peripheral")))
    case 2: return .connectTimeout
    case 3: return .disconnected(try reason())
    case 4: return .characteristicNotFound(try uuid("characteristic"))
    case 5: return .attError(try u8("ATT error"))
    case 6: return .valueTooLong(length: Int(try u32("length")), maximum: Int(try u32("maximum")))
    case 7: return .transport(try string("transport error"))
    case 8: return .cancelled
    case 9: return .serviceNotFound(try uuid("service"))
    default: throw .invalidValue(field: "error code", value: UInt32(raw))
    }
  }

  mutating func advertisement() throws(TCPLinkMessageError) -> Advertisement {
    let flags = try u8("advertisement flags")
    guard flags & ~0x07 == 0 else {
      throw .invalidValue(field: "advertisement flags", value: UInt32(flags))
    }
    let rssi = Int(Int16(bitPattern: try u16("rssi")))
    let peripheral = PeripheralID(try string("peripheral"))
    let name = flags & 0x01 != 0 ? try string("local name") : nil
    let data = flags & 0x02 != 0 ? try value("manufacturer data") : nil
    let count = Int(try u8("service count"))
    var services: [BluetoothUUID] = []
    for _ in 0..<count { services.append(try uuid("service")) }
    return Advertisement(
      peripheral: peripheral, localName: name, manufacturerData: data, serviceUUIDs: services,
      rssi: rssi, isConnectable: flags & 0x04 != 0)
  }
}

// MARK: - Enum codes

extension WriteType {
  var code: UInt8 { self == .withResponse ? 0 : 1 }
  init?(code: UInt8) {
    switch code {
    case 0: self = .withResponse
    case 1: self = .withoutResponse
    default: return nil
    }
  }
}

extension CentralState {
  private static let ordered: [CentralState] = [
    .unknown, .resetting, .unsupported, .unauthorized, .poweredOff, .poweredOn,
  ]
  var code: UInt8 { UInt8(Self.ordered.firstIndex(of: self) ?? 0) }
  init?(code: UInt8) {
    guard Int(code) < Self.ordered.count else { return nil }
    self = Self.ordered[Int(code)]
  }
}

extension BondState {
  var code: UInt8 {
    switch self {
    case .none: 0
    case .bonding: 1
    case .bonded: 2
    }
  }
  init?(code: UInt8) {
    switch code {
    case 0: self = .none
    case 1: self = .bonding
    case 2: self = .bonded
    default: return nil
    }
  }
}

// MARK: - Stream decoding

/// Cuts a TCP byte stream into ``TCPLinkMessage``s. Feed it what the socket read with
/// ``append(_:)``, then call ``next()`` until it returns nil.
///
/// Memory: a length prefix is checked against ``TCPLinkMessage/maximumLength`` as soon as its
/// four bytes are present, so the buffer never holds more than one maximal message plus one
/// read; nothing is allocated from an unchecked length.
public struct TCPLinkMessageDecoder: Sendable {
  private var buffer: [UInt8] = []
  private var head = 0

  public init() {}

  /// Bytes received and not yet consumed by a whole message.
  public var bufferedCount: Int { buffer.count - head }

  public mutating func append(_ bytes: some Sequence<UInt8>) {
    if head > 0, head * 2 >= buffer.count {
      buffer.removeFirst(head)
      head = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// The next whole message, or nil until more bytes arrive.
  /// - Throws: ``TCPLinkMessageError``; after an error the stream is out of step and the
  ///   connection must be closed.
  public mutating func next() throws(TCPLinkMessageError) -> TCPLinkMessage? {
    guard bufferedCount >= 4 else { return nil }
    var length: UInt32 = 0
    for index in 0..<4 { length |= UInt32(buffer[head + index]) << (8 * index) }
    guard length > 0 else { throw .emptyMessage }
    guard length <= TCPLinkMessage.maximumLength else {
      throw .oversized(length: length, maximum: TCPLinkMessage.maximumLength)
    }
    guard bufferedCount >= 4 + Int(length) else { return nil }
    let start = head + 4
    let end = start + Int(length)
    head = end
    return try TCPLinkMessage(body: buffer[start..<end])
  }
}
