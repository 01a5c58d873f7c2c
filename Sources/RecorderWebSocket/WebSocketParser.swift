/// A complete WebSocket data message.
public enum WebSocketMessage: Sendable, Equatable {
  case text(String)
  case binary([UInt8])
}

/// What ``WebSocketParser`` hands out: data messages whole, control frames as they come.
public enum WebSocketEvent: Sendable, Equatable {
  case message(WebSocketMessage)
  case ping([UInt8])
  case pong([UInt8])
  /// The peer's close frame; ``WebSocketCloseCode/noStatusReceived`` when it had no payload.
  case close(code: WebSocketCloseCode, reason: String)
}

/// Which end of the connection a parser or connection plays: it decides who masks (§5.1).
public enum WebSocketRole: Sendable {
  /// Receives masked frames, sends unmasked ones.
  case server
  /// Receives unmasked frames, sends masked ones.
  case client
}

/// Turns a byte stream into WebSocket events: frame decoding (FIN, RSV, opcode, 7/16/64-bit
/// lengths, masking), control-frame rules, fragmentation reassembly, UTF-8 validation of
/// text and close reasons, and the message size limit.
///
/// Bytes from outside are hostile (DESIGN.md invariant 6): every rule broken is a typed
/// ``WebSocketError``, and the size limit is checked against the declared length in the
/// header, before any payload buffer is allocated or grown. After an error the parser is
/// poisoned: the connection must be closed with ``WebSocketError/closeCode``.
///
/// A value type with no I/O, so the fuzz target and the tests drive it directly.
public struct WebSocketParser: Sendable {
  /// The role of the side that *receives* these bytes.
  public let role: WebSocketRole
  /// The largest message (sum of its fragments) accepted.
  public let maxMessageSize: Int

  private var buffer: [UInt8] = []
  private var readIndex = 0
  /// The opcode and bytes of a fragmented message in progress.
  private var fragmented: (opcode: WebSocketOpcode, bytes: [UInt8])?
  private var failed: WebSocketError?

  /// A parser for the bytes that reach `role`, refusing messages over `maxMessageSize`.
  public init(role: WebSocketRole, maxMessageSize: Int = 16 << 20) {
    precondition(maxMessageSize >= WebSocketFrame.maxControlPayload, "limit below 125 bytes")
    self.role = role
    self.maxMessageSize = maxMessageSize
  }

  /// Adds bytes read from the socket.
  public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
    if readIndex > 0 && readIndex >= buffer.count / 2 {
      buffer.removeSubrange(0..<readIndex)
      readIndex = 0
    }
    buffer.append(contentsOf: bytes)
  }

  /// True while a frame has started but not finished, or a fragmented message is open: the
  /// peer owes us bytes, and a stall now is a fault rather than an idle connection.
  public var isMidMessage: Bool { readIndex < buffer.count || fragmented != nil }

  /// The next event, or nil when more bytes are needed.
  public mutating func next() throws(WebSocketError) -> WebSocketEvent? {
    if let failed { throw failed }
    do {
      while true {
        guard let frame = try nextFrame() else { return nil }
        if let event = try absorb(frame) { return event }
      }
    } catch {
      failed = error
      throw error
    }
  }

  /// Decodes one frame if all of it is buffered.
  private mutating func nextFrame() throws(WebSocketError) -> WebSocketFrame? {
    let available = buffer.count - readIndex
    guard available >= 2 else { return nil }
    let first = buffer[readIndex]
    let second = buffer[readIndex + 1]
    let fin = first & 0x80 != 0
    let reserved = first & 0x70
    guard reserved == 0 else { throw .reservedBitsSet(reserved >> 4) }
    guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
      throw .unknownOpcode(first & 0x0F)
    }
    let masked = second & 0x80 != 0
    switch role {
    case .server: guard masked else { throw .unmaskedClientFrame }
    case .client: guard !masked else { throw .maskedServerFrame }
    }
    if opcode.isControl && !fin { throw .fragmentedControlFrame }

    var headerLength = 2
    var length = UInt64(second & 0x7F)
    if length == 126 {
      guard available >= 4 else { return nil }
      length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
      guard length >= 126 else { throw .nonMinimalLength(length) }
      headerLength = 4
    } else if length == 127 {
      guard available >= 10 else { return nil }
      length = 0
      for i in 0..<8 { length = length << 8 | UInt64(buffer[readIndex + 2 + i]) }
      guard length >> 63 == 0 else { throw .lengthTooLarge(length) }
      guard length > 0xFFFF else { throw .nonMinimalLength(length) }
      headerLength = 10
    }
    if opcode.isControl && length > UInt64(WebSocketFrame.maxControlPayload) {
      throw .controlFrameTooLong(Int(clamping: length))
    }
    // The size limit, from the header alone: nothing is allocated for a frame that would
    // take the message past it.
    let alreadyHeld = (opcode == .continuation ? fragmented?.bytes.count : nil) ?? 0
    if !opcode.isControl && length > UInt64(maxMessageSize - alreadyHeld) {
      throw .messageTooBig(declared: length + UInt64(alreadyHeld), limit: maxMessageSize)
    }
    if opcode == .continuation && fragmented == nil { throw .unexpectedContinuation }
    if (opcode == .text || opcode == .binary) && fragmented != nil { throw .interleavedDataFrame }

    let maskLength = masked ? 4 : 0
    let payloadLength = Int(length)  // ≤ maxMessageSize or ≤ 125 here, so it fits.
    guard available >= headerLength + maskLength + payloadLength else { return nil }
    let payloadStart = readIndex + headerLength + maskLength
    var payload = Array(buffer[payloadStart..<payloadStart + payloadLength])
    if masked {
      let key = Array(buffer[readIndex + headerLength..<payloadStart])
      WebSocketFrame.applyMask(key, to: &payload, from: 0)
    }
    readIndex = payloadStart + payloadLength
    if readIndex == buffer.count {
      buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
      readIndex = 0
    }
    return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
  }

  /// Applies the message rules to one frame; returns an event when one is complete.
  private mutating func absorb(_ frame: WebSocketFrame) throws(WebSocketError) -> WebSocketEvent? {
    switch frame.opcode {
    case .ping: return .ping(frame.payload)
    case .pong: return .pong(frame.payload)
    case .close:
      let (code, reason) = try WebSocketFrame.parseClosePayload(frame.payload)
      return .close(code: code, reason: reason)
    case .text, .binary:
      if frame.fin { return .message(try Self.message(frame.opcode, frame.payload)) }
      fragmented = (frame.opcode, frame.payload)
      return nil
    case .continuation:
      guard var open = fragmented else { throw .unexpectedContinuation }
      fragmented = nil  // Avoids a copy while appending.
      open.bytes.append(contentsOf: frame.payload)
      guard frame.fin else {
        fragmented = open
        return nil
      }
      return .message(try Self.message(open.opcode, open.bytes))
    }
  }

  private static func message(_ opcode: WebSocketOpcode, _ bytes: [UInt8]) throws(WebSocketError)
    -> WebSocketMessage
  {
    guard opcode == .text else { return .binary(bytes) }
    guard isValidUTF8(bytes) else { throw .invalidUTF8Text }
    return .text(String(decoding: bytes, as: UTF8.self))
  }
}
