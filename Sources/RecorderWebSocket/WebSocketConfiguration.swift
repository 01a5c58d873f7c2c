/// Limits and timeouts of a WebSocket endpoint. Every limit exists because the peer is a
/// device on an open hotspot: its bytes are hostile until proven otherwise.
public struct WebSocketConfiguration: Sendable {
  /// The largest message accepted (sum of its fragments); larger ones are refused with 1009
  /// from the frame header, before anything is allocated.
  public var maxMessageSize: Int
  /// How long a peer may pause in the middle of a frame or a fragmented message before it is
  /// closed with 1008.
  public var frameTimeout: Duration
  /// How long a connection may sit without any message; nil waits for ever (the session layer
  /// owns the device's keep-alive rules).
  public var idleTimeout: Duration?
  /// How long the opening handshake may take, from TCP accept (or connect) to the 101.
  public var handshakeTimeout: Duration
  /// How long to wait for the peer's answering close frame before dropping TCP.
  public var closeTimeout: Duration
  /// Limits on the HTTP head of the opening handshake.
  public var headLimits: HTTPUpgradeHead.Limits
  /// Bytes asked of the socket per read.
  public var readChunkSize: Int
  /// Outgoing data messages larger than this go out as several frames; nil sends one frame.
  public var outgoingFragmentSize: Int?

  /// The defaults suit a device on a hotspot: 16 MiB messages, 10 s to finish a frame or the
  /// handshake, 5 s for the close handshake, no idle limit.
  public init(
    maxMessageSize: Int = 16 << 20,
    frameTimeout: Duration = .seconds(10),
    idleTimeout: Duration? = nil,
    handshakeTimeout: Duration = .seconds(10),
    closeTimeout: Duration = .seconds(5),
    headLimits: HTTPUpgradeHead.Limits = HTTPUpgradeHead.Limits(),
    readChunkSize: Int = 256 << 10,
    outgoingFragmentSize: Int? = nil
  ) {
    precondition(outgoingFragmentSize.map { $0 > 0 } ?? true, "fragments need at least a byte")
    self.maxMessageSize = maxMessageSize
    self.frameTimeout = frameTimeout
    self.idleTimeout = idleTimeout
    self.handshakeTimeout = handshakeTimeout
    self.closeTimeout = closeTimeout
    self.headLimits = headLimits
    self.readChunkSize = readChunkSize
    self.outgoingFragmentSize = outgoingFragmentSize
  }
}
