/// What the phone sends over Wi-Fi (PROTOCOL.md §6, phone → device column), typed.
///
/// ``pdu(version:)`` writes the keys in the order §6 lists them (the vendor's order, which the
/// device may depend on); ``init(_:)`` reads them in any order. The handshake token never
/// appears in descriptions.
public enum WiFiPhoneMessage: Sendable, Equatable, CustomStringConvertible {
  /// The handshake width: the BLE token right-padded with '0' to 32 characters [sdk].
  public static let handshakeTokenLength = 32

  /// 1: handshake: the BLE token (padded to 32 with '0' when encoded) and unix seconds.
  case handshake(token: DeviceToken, stamp: Int64)
  /// 3: PONG `{}`, the answer to every PING.
  case pong
  /// 11: LIST request `{uid,start,single}`.
  case list(uid: Int64, start: Int64, single: Int64)
  /// 12: SYNC `{session,scene,start,end}`: bytes `[start, end)`; `scene` must be the file's.
  case sync(session: SessionID, scene: UInt16, start: UInt32, end: UInt32)
  /// 14: DELETE `{session,scene}`.
  case delete(session: SessionID, scene: UInt16)
  /// 15: STOP `{session,scene}` [sdk]: the transfer's recording and its LIST scene. Decoded
  /// without them (nil) from the bare `{}` some clients send; encoded without the nil ones.
  case stop(session: SessionID?, scene: UInt16?)
  /// 16: keep-alive `{}` (the device answers ERR `{cmd:16,status:0}`).
  case keepAlive
  /// 20: OTA start `{filesize,ver,crc,uid}`.
  case otaStart(fileSize: Int64, version: String, crc: Int64, uid: Int64)
  /// 21: OTA data `{start,len,last,uid}` + data.
  case otaData(start: Int64, last: Bool, uid: Int64, data: [UInt8])

  /// The PDU, keys in §6 order.
  public func pdu(version: UInt8 = WiFiPDU.defaultVersion) -> WiFiPDU {
    let (type, pairs, payload) = parts
    return WiFiPDU(version: version, type: type, json: .object(pairs), payload: payload)
  }

  /// The PDU's bytes. - Throws: ``WiFiPDUError/tooLarge(field:size:)`` only.
  public func encoded(version: UInt8 = WiFiPDU.defaultVersion) throws(WiFiPDUError) -> [UInt8] {
    try pdu(version: version).encoded()
  }

  /// Decodes a phone PDU by its type (the emulator's side). - Throws: ``WiFiPDUError``.
  public init(_ pdu: WiFiPDU) throws(WiFiPDUError) {
    let f = WiFiFields(pdu)
    switch pdu.type {
    case WiFiPDUType.handshake:
      self = .handshake(token: try f.token("token"), stamp: try f.int("stamp"))
    case WiFiPDUType.ping: self = .pong
    case WiFiPDUType.list:
      self = .list(uid: try f.int("uid"), start: try f.int("start"), single: try f.int("single"))
    case WiFiPDUType.sync:
      let start = try f.u32("start")
      let end = try f.u32("end")
      self = .sync(
        session: try f.session("session"), scene: try f.u16("scene"), start: start, end: end)
    case WiFiPDUType.delete:
      self = .delete(session: try f.session("session"), scene: try f.u16("scene"))
    case WiFiPDUType.stop:
      self = .stop(
        session: f.has("session") ? try f.session("session") : nil,
        scene: f.has("scene") ? try f.u16("scene") : nil)
    case WiFiPDUType.keepAlive: self = .keepAlive
    case WiFiPDUType.otaStart:
      self = .otaStart(
        fileSize: try f.int("filesize"), version: try f.string("ver"), crc: try f.int("crc"),
        uid: try f.int("uid"))
    case WiFiPDUType.otaData:
      let length = try f.int("len")
      guard length == Int64(pdu.payload.count) else {
        throw .contentLengthMismatch(declared: length, actual: pdu.payload.count)
      }
      self = .otaData(
        start: try f.int("start"), last: try f.flag("last"), uid: try f.int("uid"),
        data: pdu.payload)
    default: throw .unknownType(pdu.type)
    }
  }

  /// Decodes a phone PDU from one binary WebSocket message.
  public init<C: Collection>(decoding bytes: C) throws(WiFiPDUError) where C.Element == UInt8 {
    try self.init(WiFiPDU(decoding: bytes))
  }

  private var parts: (UInt16, [(String, JSONValue)], [UInt8]) {
    switch self {
    case .handshake(let token, let stamp):
      let padded =
        token.revealed.utf8.count >= Self.handshakeTokenLength
        ? token.revealed
        : token.revealed
          + String(repeating: "0", count: Self.handshakeTokenLength - token.revealed.utf8.count)
      return (WiFiPDUType.handshake, [("token", .string(padded)), ("stamp", .int(stamp))], [])
    case .pong: return (WiFiPDUType.ping, [], [])
    case .list(let uid, let start, let single):
      return (
        WiFiPDUType.list, [("uid", .int(uid)), ("start", .int(start)), ("single", .int(single))], []
      )
    case .sync(let session, let scene, let start, let end):
      return (
        WiFiPDUType.sync,
        [
          ("session", .uint(UInt64(session.rawValue))), ("scene", .uint(UInt64(scene))),
          ("start", .uint(UInt64(start))), ("end", .uint(UInt64(end))),
        ], []
      )
    case .delete(let session, let scene):
      return (
        WiFiPDUType.delete,
        [("session", .uint(UInt64(session.rawValue))), ("scene", .uint(UInt64(scene)))],
        []
      )
    case .stop(let session, let scene):
      let pairs: [(String, JSONValue)] =
        (session.map { [("session", .uint(UInt64($0.rawValue)))] } ?? [])
        + (scene.map { [("scene", .uint(UInt64($0)))] } ?? [])
      return (WiFiPDUType.stop, pairs, [])
    case .keepAlive: return (WiFiPDUType.keepAlive, [], [])
    case .otaStart(let fileSize, let version, let crc, let uid):
      return (
        WiFiPDUType.otaStart,
        [
          ("filesize", .int(fileSize)), ("ver", .string(version)), ("crc", .int(crc)),
          ("uid", .int(uid)),
        ],
        []
      )
    case .otaData(let start, let last, let uid, let data):
      return (
        WiFiPDUType.otaData,
        [
          ("start", .int(start)), ("len", .int(Int64(data.count))), ("last", .int(last ? 1 : 0)),
          ("uid", .int(uid)),
        ],
        data
      )
    }
  }

  /// The message without secrets: the handshake token is redacted, OTA data shows its size.
  public var description: String {
    switch self {
    case .handshake(_, let stamp): "handshake(token: redacted, stamp: \(stamp))"
    case .otaData(let start, let last, let uid, let data):
      "otaData(start: \(start), \(data.count) bytes, last: \(last), uid: \(uid))"
    default: pdu().json.serialized
    }
  }
}
