/// A WebSocket frame opcode (RFC 6455 §5.2).
public enum WebSocketOpcode: UInt8, Sendable, CaseIterable {
  case continuation = 0x0
  case text = 0x1
  case binary = 0x2
  case close = 0x8
  case ping = 0x9
  case pong = 0xA

  /// Close, ping and pong: at most 125 bytes, never fragmented, may arrive between the
  /// fragments of a message.
  public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One WebSocket frame: the unit on the wire. Messages are made of one or more frames
/// (``WebSocketParser`` reassembles them).
public struct WebSocketFrame: Sendable, Equatable {
  /// Largest payload of a control frame (§5.5).
  public static let maxControlPayload = 125

  /// Set on the last (or only) frame of a message; always set on control frames.
  public var fin: Bool
  /// What the frame carries.
  public var opcode: WebSocketOpcode
  /// The unmasked payload.
  public var payload: [UInt8]

  /// A frame; nothing is checked here (the encoder writes what it is given).
  public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
    self.fin = fin
    self.opcode = opcode
    self.payload = payload
  }

  /// The frame on the wire. A client passes a fresh 4-byte `maskingKey` for every frame
  /// (§5.3); a server passes nil. RSV bits are always clear: we negotiate no extensions.
  public func encoded(maskingKey: [UInt8]? = nil) -> [UInt8] {
    precondition(maskingKey == nil || maskingKey?.count == 4, "a masking key is 4 bytes")
    var out: [UInt8] = []
    out.reserveCapacity(payload.count + 14)
    out.append((fin ? 0x80 : 0) | opcode.rawValue)
    let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
    let count = payload.count
    if count <= 125 {
      out.append(maskBit | UInt8(count))
    } else if count <= 0xFFFF {
      out.append(maskBit | 126)
      out.append(UInt8(count >> 8))
      out.append(UInt8(count & 0xFF))
    } else {
      out.append(maskBit | 127)
      for shift in stride(from: 56, through: 0, by: -8) {
        out.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift)))
      }
    }
    guard let maskingKey else {
      out.append(contentsOf: payload)
      return out
    }
    out.append(contentsOf: maskingKey)
    let start = out.count
    out.append(contentsOf: payload)
    WebSocketFrame.applyMask(maskingKey, to: &out, from: start)
    return out
  }

  /// XORs `bytes[start...]` with the repeating 4-byte key (§5.3); masking and unmasking are
  /// the same operation. Eight bytes at a time: every byte a device sends passes through here.
  public static func applyMask(_ key: [UInt8], to bytes: inout [UInt8], from start: Int) {
    precondition(key.count == 4, "a masking key is 4 bytes")
    guard start < bytes.count else { return }
    var wide: UInt64 = 0
    withUnsafeMutableBytes(of: &wide) { word in
      for index in 0..<8 { word[index] = key[index & 3] }
    }
    bytes.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress.map({ $0 + start }) else { return }
      let count = buffer.count - start
      var index = 0
      while index + 8 <= count {
        let value = base.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wide
        base.storeBytes(of: value, toByteOffset: index, as: UInt64.self)
        index += 8
      }
      while index < count {
        let value = base.load(fromByteOffset: index, as: UInt8.self) ^ key[index & 3]
        base.storeBytes(of: value, toByteOffset: index, as: UInt8.self)
        index += 1
      }
    }
  }

  /// The payload of a close frame: the code big-endian, then the UTF-8 reason, cut so the
  /// whole stays within 125 bytes (at a character boundary).
  public static func closePayload(code: WebSocketCloseCode, reason: String) -> [UInt8] {
    var out: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
    var room = maxControlPayload - 2
    for scalar in reason.unicodeScalars {
      let bytes = Array(String(scalar).utf8)
      guard bytes.count <= room else { break }
      out.append(contentsOf: bytes)
      room -= bytes.count
    }
    return out
  }

  /// Decodes a close frame's payload (§5.5.1, §7.4): empty means "no status" (1005); one
  /// byte, a code not allowed on the wire, or a reason that is not UTF-8 are errors.
  public static func parseClosePayload(_ payload: [UInt8]) throws(WebSocketError) -> (
    code: WebSocketCloseCode, reason: String
  ) {
    if payload.isEmpty { return (.noStatusReceived, "") }
    guard payload.count >= 2 else { throw .truncatedClosePayload }
    let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
    guard code.isValidOnWire else { throw .invalidCloseCode(code.rawValue) }
    let reasonBytes = payload[2...]
    guard isValidUTF8(reasonBytes) else { throw .invalidUTF8CloseReason }
    return (code, String(decoding: reasonBytes, as: UTF8.self))
  }
}

/// Strict UTF-8 validation (no overlong forms, no surrogates, nothing above U+10FFFF), as
/// §8.1 requires of text messages and close reasons.
public func isValidUTF8<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
  var iterator = bytes.makeIterator()
  var codec = UTF8()
  while true {
    switch codec.decode(&iterator) {
    case .scalarValue: continue
    case .emptyInput: return true
    case .error: return false
    }
  }
}
