/// What the device sends over Wi-Fi (PROTOCOL.md §6, device → phone column), typed.
///
/// ``pdu(version:)`` writes the keys in the order §6 lists them; ``init(_:)`` reads them in
/// any order and ignores keys it does not know. Tokens are ``DeviceToken``s and never appear
/// in descriptions.
public enum WiFiDeviceMessage: Sendable, Equatable, CustomStringConvertible {
  /// 0: ERR. `{cmd:16,status:0}` is the keep-alive's acknowledgement, not an error [sdk].
  case error(cmd: Int64, status: Int64)
  /// 1: the handshake's result, 0 = accepted.
  case handshakeResult(status: Int64)
  /// 2: HELLO: token = upper-case hex MD5 of the serial; `pVer` the device's pduVersion.
  case hello(token: DeviceToken, protocolVersion: Int64)
  /// 3: PING; the phone answers every one with PONG.
  case ping(volume: Int64, voltage: Int64, charging: Int64)
  /// 4: CLOSE.
  case close(status: Int64)
  /// 5: TIPS (a notice for the user; its value's shape is not documented, so kept as JSON).
  case tips(JSONValue)
  /// 11: one LIST page.
  case list(WiFiListPage)
  /// 12: SYNC status.
  case syncStatus(session: SessionID, status: Int64)
  /// 13: content.
  case content(WiFiContent)
  /// 14: DELETE result.
  case deleteResult(session: SessionID, status: Int64)
  /// 15: STOP result.
  case stopResult(status: Int64)
  /// 16: EXTEND_EXIT_TIME.
  case extendExitTime(status: Int64)
  /// 21: OTA data request.
  case otaRequest(start: Int64, end: Int64, payloadSize: Int64, uid: Int64, sendRatePPS: Int64)
  /// 22: OTA result.
  case otaResult(status: Int64, uid: Int64)

  /// True for the ERR that acknowledges a keep-alive (`cmd` 16, `status` 0).
  public var isKeepAliveAcknowledgement: Bool {
    if case .error(cmd: Int64(WiFiPDUType.keepAlive), status: 0) = self { return true }
    return false
  }

  /// The PDU, keys in §6 order.
  public func pdu(version: UInt8 = WiFiPDU.defaultVersion) -> WiFiPDU {
    let (type, pairs, payload) = parts
    return WiFiPDU(version: version, type: type, json: .object(pairs), payload: payload)
  }

  /// The PDU's bytes. - Throws: ``WiFiPDUError/tooLarge(field:size:)`` only.
  public func encoded(version: UInt8 = WiFiPDU.defaultVersion) throws(WiFiPDUError) -> [UInt8] {
    try pdu(version: version).encoded()
  }

  /// Decodes a device PDU by its type. - Throws: ``WiFiPDUError``.
  public init(_ pdu: WiFiPDU) throws(WiFiPDUError) {
    let f = WiFiFields(pdu)
    switch pdu.type {
    case WiFiPDUType.error: self = .error(cmd: try f.int("cmd"), status: try f.int("status"))
    case WiFiPDUType.handshake: self = .handshakeResult(status: try f.int("status"))
    case WiFiPDUType.hello:
      self = .hello(token: try f.token("token"), protocolVersion: try f.int("pVer"))
    case WiFiPDUType.ping:
      self = .ping(
        volume: try f.int("volume"), voltage: try f.int("voltage"), charging: try f.int("charging"))
    case WiFiPDUType.close: self = .close(status: try f.int("status"))
    case WiFiPDUType.tips: self = .tips(try f.value("tips"))
    case WiFiPDUType.list:
      guard pdu.payload.count % WiFiListEntry.size == 0 else {
        throw .listPayloadNotEntries(size: pdu.payload.count)
      }
      var reader = ByteReader(pdu.payload)
      var entries: [WiFiListEntry] = []
      entries.reserveCapacity(pdu.payload.count / WiFiListEntry.size)
      while !reader.isAtEnd {
        // Cannot fail: the length is a whole number of entries.
        guard let sessionId = try? reader.u32("sessionId"), let size = try? reader.u32("size"),
          let scene = try? reader.u16("scene")
        else { throw .listPayloadNotEntries(size: pdu.payload.count) }
        entries.append(WiFiListEntry(sessionId: SessionID(sessionId), size: size, scene: scene))
      }
      self = .list(
        WiFiListPage(
          uid: try f.int("uid"), status: try f.int("status"), count: try f.int("count"),
          offset: try f.int("offset"), entries: entries))
    case WiFiPDUType.sync:
      self = .syncStatus(session: try f.session("session"), status: try f.int("status"))
    case WiFiPDUType.content:
      let length = try f.int("length")
      guard length == Int64(pdu.payload.count) else {
        throw .contentLengthMismatch(declared: length, actual: pdu.payload.count)
      }
      let offset = try f.u32("offset")
      guard UInt64(offset) + UInt64(length) <= UInt64(UInt32.max) else {
        throw .valueOutOfRange(type: pdu.type, key: "offset")
      }
      self = .content(
        WiFiContent(
          session: try f.session("session"), offset: offset, last: try f.flag("last"),
          data: pdu.payload))
    case WiFiPDUType.delete:
      self = .deleteResult(session: try f.session("session"), status: try f.int("status"))
    case WiFiPDUType.stop: self = .stopResult(status: try f.int("status"))
    case WiFiPDUType.keepAlive: self = .extendExitTime(status: try f.int("status"))
    case WiFiPDUType.otaData:
      self = .otaRequest(
        start: try f.int("start"), end: try f.int("end"), payloadSize: try f.int("payload_size"),
        uid: try f.int("uid"), sendRatePPS: try f.int("send_rate_pps"))
    case WiFiPDUType.otaResult:
      self = .otaResult(status: try f.int("status"), uid: try f.int("uid"))
    default: throw .unknownType(pdu.type)
    }
  }

  /// Decodes a device PDU from one binary WebSocket message.
  public init<C: Collection>(decoding bytes: C) throws(WiFiPDUError) where C.Element == UInt8 {
    try self.init(WiFiPDU(decoding: bytes))
  }

  private var parts: (UInt16, [(String, JSONValue)], [UInt8]) {
    switch self {
    case .error(let cmd, let status):
      (WiFiPDUType.error, [("cmd", .int(cmd)), ("status", .int(status))], [])
    case .handshakeResult(let status): (WiFiPDUType.handshake, [("status", .int(status))], [])
    case .hello(let token, let version):
      (WiFiPDUType.hello, [("token", .string(token.revealed)), ("pVer", .int(version))], [])
    case .ping(let volume, let voltage, let charging):
      (
        WiFiPDUType.ping,
        [("volume", .int(volume)), ("voltage", .int(voltage)), ("charging", .int(charging))], []
      )
    case .close(let status): (WiFiPDUType.close, [("status", .int(status))], [])
    case .tips(let tips): (WiFiPDUType.tips, [("tips", tips)], [])
    case .list(let page):
      (
        WiFiPDUType.list,
        [
          ("uid", .int(page.uid)), ("status", .int(page.status)), ("count", .int(page.count)),
          ("offset", .int(page.offset)),
        ],
        page.entries.reduce(into: ByteWriter(capacity: page.entries.count * WiFiListEntry.size)) {
          $0.u32($1.sessionId.rawValue)
          $0.u32($1.size)
          $0.u16($1.scene)
        }.bytes
      )
    case .syncStatus(let session, let status):
      (
        WiFiPDUType.sync, [("session", .uint(UInt64(session.rawValue))), ("status", .int(status))],
        []
      )
    case .content(let content):
      (
        WiFiPDUType.content,
        [
          ("session", .uint(UInt64(content.session.rawValue))),
          ("offset", .uint(UInt64(content.offset))),
          ("length", .int(Int64(content.data.count))), ("last", .int(content.last ? 1 : 0)),
        ],
        content.data
      )
    case .deleteResult(let session, let status):
      (
        WiFiPDUType.delete,
        [("session", .uint(UInt64(session.rawValue))), ("status", .int(status))], []
      )
    case .stopResult(let status): (WiFiPDUType.stop, [("status", .int(status))], [])
    case .extendExitTime(let status): (WiFiPDUType.keepAlive, [("status", .int(status))], [])
    case .otaRequest(let start, let end, let payloadSize, let uid, let rate):
      (
        WiFiPDUType.otaData,
        [
          ("start", .int(start)), ("end", .int(end)), ("payload_size", .int(payloadSize)),
          ("uid", .int(uid)), ("send_rate_pps", .int(rate)),
        ], []
      )
    case .otaResult(let status, let uid):
      (WiFiPDUType.otaResult, [("status", .int(status)), ("uid", .int(uid))], [])
    }
  }

  /// The message without secrets: a HELLO's token is redacted, content shows its size only.
  public var description: String {
    switch self {
    case .hello(_, let version): "hello(token: redacted, pVer: \(version))"
    case .content(let content):
      "content(session: \(content.session), offset: \(content.offset), \(content.data.count) bytes, last: \(content.last))"
    case .list(let page):
      "list(uid: \(page.uid), status: \(page.status), count: \(page.count), offset: \(page.offset), \(page.entries.count) entries)"
    default: pdu().json.serialized
    }
  }
}
