/// One Wi-Fi Fast Transfer PDU (PROTOCOL.md §6): the payload of one binary WebSocket message.
///
/// Layout [sdk]: `total u24` · `pduVersion u8` · `type u16` · `jsonLength u16` · UTF-8 JSON
/// object · binary payload, where `total` = 8 + JSON + binary. All three integers are
/// little-endian: the §6 example `2f 00 00 01 0b 00 27 00` + 39 bytes of JSON has total
/// 0x00002f = 47 = 8 + 39.
///
/// This is the untyped layer; ``WiFiDeviceMessage`` and ``WiFiPhoneMessage`` give each type
/// its fields. The description never shows the JSON, which may hold a token.
public struct WiFiPDU: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
  /// The fixed header: total (3), pduVersion (1), type (2), jsonLength (2).
  public static let headerLength = 8
  /// `total` is 24 bits.
  public static let maxTotal = 0xFF_FFFF
  /// RecorderKit's pduVersion before the device's HELLO names one, and the emulator's [project].
  public static let defaultVersion: UInt8 = 1

  /// `pduVersion`: the device's from its HELLO, else ``defaultVersion``.
  public var version: UInt8
  /// The §6 type number (``WiFiPDUType``); its meaning depends on the direction.
  public var type: UInt16
  /// The JSON object, keys in the order they are (or were) written.
  public var json: JSONValue
  /// The binary part after the JSON (LIST entries, content bytes, OTA data).
  public var payload: [UInt8]

  /// A PDU from its parts; ``encoded()`` checks the sizes.
  public init(
    version: UInt8 = WiFiPDU.defaultVersion, type: UInt16, json: JSONValue, payload: [UInt8] = []
  ) {
    self.version = version
    self.type = type
    self.json = json
    self.payload = payload
  }

  /// Decodes one PDU that fills `bytes` exactly.
  /// - Throws: ``WiFiPDUError``: short header, `total` ≠ length, JSON past the end, JSON that
  ///   is invalid (per `parser`'s limits) or not an object.
  public init<C: Collection>(decoding bytes: C, parser: JSONParser = JSONParser())
    throws(WiFiPDUError) where C.Element == UInt8
  {
    let bytes = Array(bytes)
    var reader = ByteReader(bytes)
    let total: UInt32
    let jsonLength: UInt16
    do throws(FrameError) {
      total = try reader.u24("total")
      version = try reader.u8("pduVersion")
      type = try reader.u16("type")
      jsonLength = try reader.u16("jsonLength")
    } catch {
      throw .truncated(field: "header", needed: Self.headerLength, available: bytes.count)
    }
    guard Int(total) == bytes.count else {
      throw .totalMismatch(declared: Int(total), actual: bytes.count)
    }
    guard reader.remaining >= Int(jsonLength) else {
      throw .truncated(field: "json", needed: Int(jsonLength), available: reader.remaining)
    }
    let jsonEnd = Self.headerLength + Int(jsonLength)
    do throws(JSONParseError) {
      json = try parser.parse(bytes[Self.headerLength..<jsonEnd])
    } catch {
      throw .json(error)
    }
    guard case .object = json else { throw .jsonNotAnObject }
    payload = Array(bytes[jsonEnd...])
  }

  /// The PDU's bytes: compact JSON in the object's key order, then the payload.
  /// - Throws: ``WiFiPDUError/tooLarge(field:size:)`` when the JSON passes 65 535 bytes or the
  ///   whole passes 16 MiB − 1.
  public func encoded() throws(WiFiPDUError) -> [UInt8] {
    let jsonBytes = Array(json.serialized.utf8)
    guard jsonBytes.count <= Int(UInt16.max) else {
      throw .tooLarge(field: "json", size: jsonBytes.count)
    }
    let total = Self.headerLength + jsonBytes.count + payload.count
    guard total <= Self.maxTotal else { throw .tooLarge(field: "total", size: total) }
    var writer = ByteWriter(capacity: total)
    writer.u24(UInt32(total))
    writer.u8(version)
    writer.u16(type)
    writer.u16(UInt16(jsonBytes.count))
    writer.bytes(jsonBytes)
    writer.bytes(payload)
    return writer.bytes
  }

  public var description: String {
    "WiFiPDU(type \(type), v\(version), payload \(payload.count) bytes)"
  }
  public var debugDescription: String { description }
}

/// Typed access to a PDU's JSON object for the message decoders: any key order, unknown keys
/// ignored, missing or ill-typed keys a ``WiFiPDUError`` naming the key.
struct WiFiFields {
  let type: UInt16
  let object: JSONValue

  init(_ pdu: WiFiPDU) {
    type = pdu.type
    object = pdu.json
  }

  /// True when the object has `key`.
  func has(_ key: String) -> Bool { object[key] != nil }

  func value(_ key: String) throws(WiFiPDUError) -> JSONValue {
    guard let value = object[key] else { throw .missingKey(type: type, key: key) }
    return value
  }

  func int(_ key: String) throws(WiFiPDUError) -> Int64 {
    guard let number = try value(key).integerValue else { throw .wrongType(type: type, key: key) }
    return number
  }

  func u32(_ key: String) throws(WiFiPDUError) -> UInt32 {
    guard let number = UInt32(exactly: try int(key)) else {
      throw .valueOutOfRange(type: type, key: key)
    }
    return number
  }

  /// A session id: a u32 like ``u32(_:)``.
  func session(_ key: String) throws(WiFiPDUError) -> SessionID { SessionID(try u32(key)) }

  func u16(_ key: String) throws(WiFiPDUError) -> UInt16 {
    guard let number = UInt16(exactly: try int(key)) else {
      throw .valueOutOfRange(type: type, key: key)
    }
    return number
  }

  func flag(_ key: String) throws(WiFiPDUError) -> Bool {
    switch try int(key) {
    case 0: return false
    case 1: return true
    default: throw .valueOutOfRange(type: type, key: key)
    }
  }

  func string(_ key: String) throws(WiFiPDUError) -> String {
    guard let text = try value(key).stringValue else { throw .wrongType(type: type, key: key) }
    return text
  }

  func token(_ key: String) throws(WiFiPDUError) -> DeviceToken {
    guard let token = DeviceToken(try string(key)) else { throw .invalidToken(type: type) }
    return token
  }
}
