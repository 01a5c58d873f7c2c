import RecorderSockets

/// Why a WebSocket connection failed or ended, one case per kind of malformed input, so a
/// test can name exactly which rule a peer broke and a user can read what happened.
///
/// Errors never carry payload bytes: a device PDU may hold a token.
public enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
  // MARK: Framing (RFC 6455 §5)
  /// RSV1–3 set although no extension was negotiated.
  case reservedBitsSet(UInt8)
  /// An opcode RFC 6455 does not define (3–7, 0xB–0xF).
  case unknownOpcode(UInt8)
  /// A client frame without a mask (§5.1: the server must close).
  case unmaskedClientFrame
  /// A server frame with a mask (§5.1: the client must close).
  case maskedServerFrame
  /// A length encoded with more bytes than needed (§5.2: the minimal encoding MUST be used).
  case nonMinimalLength(UInt64)
  /// A 64-bit length with the most significant bit set.
  case lengthTooLarge(UInt64)
  /// A control frame (close, ping, pong) with more than 125 payload bytes.
  case controlFrameTooLong(Int)
  /// A control frame with FIN clear: control frames are never fragmented.
  case fragmentedControlFrame
  /// A continuation frame with no message in progress.
  case unexpectedContinuation
  /// A new text or binary frame while a fragmented message is still open.
  case interleavedDataFrame
  /// A message (or a frame of it) larger than the configured limit; checked from the header,
  /// before any buffer is allocated.
  case messageTooBig(declared: UInt64, limit: Int)
  /// A text message that is not valid UTF-8.
  case invalidUTF8Text
  /// A close frame with a one-byte payload.
  case truncatedClosePayload
  /// A close code not allowed on the wire (0–999, 1004–1006, 1015, 1016–2999, ≥ 5000).
  case invalidCloseCode(UInt16)
  /// A close reason that is not valid UTF-8.
  case invalidUTF8CloseReason

  // MARK: Connection
  /// The peer stopped sending in the middle of a frame or a fragmented message for longer
  /// than the configured frame timeout.
  case stalledMidFrame
  /// No message arrived within the idle timeout.
  case idleTimeout
  /// The peer closed the WebSocket with a close frame.
  case closedByPeer(code: WebSocketCloseCode, reason: String)
  /// This side closed the connection (``WebSocketConnection/close(code:reason:)``) or a
  /// protocol error did; `code` is the one sent.
  case closedLocally(code: WebSocketCloseCode)
  /// The TCP stream ended without a close frame (1006).
  case connectionLost
  /// Another task is already inside ``WebSocketConnection/receive()``.
  case concurrentReceive
  /// The socket layer failed.
  case socket(SocketError)

  // MARK: Opening handshake (RFC 6455 §4)
  /// The HTTP request or response was not what the handshake requires.
  case handshake(HTTPUpgradeError)
  /// The opening handshake did not finish in time.
  case handshakeTimeout
  /// A client's Sec-WebSocket-Accept did not match its key.
  case acceptMismatch

  /// The close code this error is answered with, or nil when no close frame is sent (the
  /// connection is already gone, or the peer closed first).
  public var closeCode: WebSocketCloseCode? {
    switch self {
    case .reservedBitsSet, .unknownOpcode, .unmaskedClientFrame, .maskedServerFrame,
      .nonMinimalLength, .lengthTooLarge, .controlFrameTooLong, .fragmentedControlFrame,
      .unexpectedContinuation, .interleavedDataFrame, .truncatedClosePayload, .invalidCloseCode:
      .protocolError
    case .messageTooBig: .messageTooBig
    case .invalidUTF8Text, .invalidUTF8CloseReason: .invalidPayload
    case .stalledMidFrame, .idleTimeout: .policyViolation
    case .closedByPeer, .closedLocally, .connectionLost, .concurrentReceive, .socket, .handshake,
      .handshakeTimeout, .acceptMismatch:
      nil
    }
  }

  public var description: String {
    switch self {
    case .reservedBitsSet(let bits): "reserved bits set (0x\(String(bits, radix: 16)))"
    case .unknownOpcode(let opcode): "unknown opcode 0x\(String(opcode, radix: 16))"
    case .unmaskedClientFrame: "client frame not masked"
    case .maskedServerFrame: "server frame masked"
    case .nonMinimalLength(let length): "length \(length) not minimally encoded"
    case .lengthTooLarge(let length): "64-bit length \(length) has its top bit set"
    case .controlFrameTooLong(let count): "control frame of \(count) bytes (limit 125)"
    case .fragmentedControlFrame: "fragmented control frame"
    case .unexpectedContinuation: "continuation frame without a message in progress"
    case .interleavedDataFrame: "new data frame inside a fragmented message"
    case .messageTooBig(let declared, let limit):
      "message of at least \(declared) bytes exceeds the limit of \(limit)"
    case .invalidUTF8Text: "text message is not valid UTF-8"
    case .truncatedClosePayload: "close frame with a 1-byte payload"
    case .invalidCloseCode(let code): "close code \(code) not allowed on the wire"
    case .invalidUTF8CloseReason: "close reason is not valid UTF-8"
    case .stalledMidFrame: "peer stalled in the middle of a frame"
    case .idleTimeout: "no message within the idle timeout"
    case .closedByPeer(let code, let reason):
      reason.isEmpty ? "closed by peer (\(code))" : "closed by peer (\(code): \(reason))"
    case .closedLocally(let code): "closed locally (\(code))"
    case .connectionLost: "connection lost without a close frame"
    case .concurrentReceive: "receive() called while another receive() is running"
    case .socket(let error): "socket: \(error)"
    case .handshake(let error): "opening handshake: \(error)"
    case .handshakeTimeout: "opening handshake timed out"
    case .acceptMismatch: "Sec-WebSocket-Accept does not match the key"
    }
  }
}
