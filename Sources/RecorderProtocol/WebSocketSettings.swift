/// The device's WebSocket settings (PROTOCOL.md §3.4, `0010` / `0011`) [sdk-code]: which
/// value a request names. 0 is invalid.
public enum WebSocketSettingType: UInt8, Sendable, CaseIterable, CustomStringConvertible {
  case url = 1
  case serverToken = 2
  case deviceToken = 3

  /// The value's field width on the wire: 64 bytes for the URL, 16 for a token [sdk-code].
  public var width: Int { self == .url ? 64 : 16 }

  /// Whether the value is a secret (kept out of descriptions and the decoder's output).
  public var isSecret: Bool { self != .url }

  public var description: String {
    switch self {
    case .url: "url"
    case .serverToken: "server-token"
    case .deviceToken: "device-token"
    }
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    let raw = try reader.u8("type")
    guard let type = WebSocketSettingType(rawValue: raw) else {
      throw .invalidField(field: "type", reason: "\(raw) is not 1 (URL), 2 or 3 (tokens)")
    }
    self = type
  }
}

/// `0010` P→D [sdk-code]: `op u8` (1 get, 2 set) · `type u8` · set only: the value
/// NUL-padded to the type's width (a longer value is cut).
public enum WebSocketSettingsRequest: Sendable, Equatable, FieldDescribable {
  case get(WebSocketSettingType)
  case set(WebSocketSettingType, value: [UInt8])

  static let getOp: UInt8 = 1
  static let setOp: UInt8 = 2

  public var type: WebSocketSettingType {
    switch self {
    case .get(let type), .set(let type, _): type
    }
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    let op = try reader.u8("op")
    let type = try WebSocketSettingType(from: &reader)
    switch op {
    case Self.getOp: self = .get(type)
    case Self.setOp:
      self = .set(type, value: WebSocketSettingValue.trimmed(try reader.bytes(type.width, "value")))
    default: throw .invalidField(field: "op", reason: "\(op) is not 1 (get) or 2 (set)")
    }
  }

  func write(to writer: inout ByteWriter) {
    switch self {
    case .get(let type):
      writer.u8(Self.getOp)
      writer.u8(type.rawValue)
    case .set(let type, let value):
      writer.u8(Self.setOp)
      writer.u8(type.rawValue)
      writer.fixed(value, width: type.width)
    }
  }

  public var fields: [Field] {
    switch self {
    case .get(let type): [Field("op", Self.getOp), Field("type", type.rawValue)]
    case .set(let type, let value):
      [
        Field("op", Self.setOp), Field("type", type.rawValue),
        type.isSecret
          ? Field("value", .text("<redacted>"))
          : Field("value", .text(String(decoding: value, as: UTF8.self))),
      ]
    }
  }
}

/// `0011` D→P [sdk-code]: `type u8` · the value in a 64-byte (URL) or 16-byte (token)
/// field, NUL-terminated. Fewer bytes than the width are taken as they come [project].
public struct WebSocketSettingValue: Sendable, Equatable, FieldDescribable {
  public var type: WebSocketSettingType
  /// The value up to its first NUL.
  public var value: [UInt8]

  public init(type: WebSocketSettingType, value: [UInt8]) {
    self.type = type
    self.value = Array(value.prefix(type.width))
  }

  /// The value as text (UTF-8, invalid bytes replaced).
  public var text: String { String(decoding: value, as: UTF8.self) }

  static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    Array(bytes.prefix { $0 != 0 })
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    type = try WebSocketSettingType(from: &reader)
    value = Self.trimmed(Array(reader.rest().prefix(type.width)))
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(type.rawValue)
    writer.fixed(value, width: type.width)
  }

  public var fields: [Field] {
    [
      Field("type", type.rawValue),
      type.isSecret ? Field("value", .text("<redacted>")) : Field("value", .text(text)),
    ]
  }
}
