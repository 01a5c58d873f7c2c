/// The physical layer of the emulated link.
public enum PHY: Sendable, Equatable, CaseIterable {
  /// LE 1M: 1 µs per bit.
  case le1M
  /// LE 2M: 0.5 µs per bit (iPhone default with a modern peripheral).
  case le2M
  /// LE Coded, S=2 (500 kbit/s).
  case leCodedS2
  /// LE Coded, S=8 (125 kbit/s).
  case leCodedS8

  /// Microseconds on air for an LL packet of `pduBytes` (header + payload), preamble,
  /// access address and CRC included (Core spec Vol 6 Part B 2.1, 2.2).
  func airtimeMicroseconds(pduBytes: Int) -> Int {
    switch self {
    case .le1M: (1 + 4 + pduBytes + 3) * 8
    case .le2M: (2 + 4 + pduBytes + 3) * 4
    // Coded: 80 µs preamble, 256 µs access address + CI + TERM1 (S=8 always), then the
    // PDU, CRC and TERM2 at 2 or 8 µs per bit.
    case .leCodedS2: 80 + 256 + (pduBytes + 3) * 8 * 2 + 6
    case .leCodedS8: 80 + 256 + (pduBytes + 3) * 8 * 8 + 24
    }
  }
}

/// The BLE link model: what limits how fast frames move. Throughput emerges from these
/// numbers; nothing else in the emulator paces traffic.
///
/// Each connection event (every ``connectionInterval``) carries up to
/// ``packetsPerConnectionEvent`` packets each way, fewer when the PHY cannot fit them in the
/// interval. At the defaults (2M, 15 ms, 5 packets) a sync moves 5 data frames of 80 bytes per
/// 15 ms: 333 frames/s, 26.7 kB/s of file data.
public struct LinkParameters: Sendable, Equatable {
  /// The largest ATT MTU the device accepts; the link uses min(central's request, this).
  public var deviceMaximumMTU: Int
  public var connectionInterval: Duration
  /// Packets per connection event and direction the central allows (iPhone: ~5) [project].
  public var packetsPerConnectionEvent: Int
  public var phy: PHY
  /// Writes without response the link holds toward the device; a write waits for room.
  public var writeQueueCapacity: Int
  /// Time from `connect` to a usable link (a couple of connection events).
  public var connectionSetupTime: Duration
  /// Events the central's consumer may have unread before the radio waits for it. With a
  /// manual clock this keeps virtual time from running ahead of a slow consumer; with a real
  /// clock it bounds memory.
  public var consumerBufferLimit: Int

  public init(
    deviceMaximumMTU: Int = 247,
    connectionInterval: Duration = .milliseconds(15),
    packetsPerConnectionEvent: Int = 5,
    phy: PHY = .le2M,
    writeQueueCapacity: Int = 4,
    connectionSetupTime: Duration = .milliseconds(30),
    consumerBufferLimit: Int = 32
  ) {
    precondition(deviceMaximumMTU >= Self.minimumMTU, "ATT MTU is at least 23")
    precondition(packetsPerConnectionEvent >= 1 && writeQueueCapacity >= 1, "need room")
    precondition(connectionInterval > .zero, "connection interval must be positive")
    self.deviceMaximumMTU = deviceMaximumMTU
    self.connectionInterval = connectionInterval
    self.packetsPerConnectionEvent = packetsPerConnectionEvent
    self.phy = phy
    self.writeQueueCapacity = writeQueueCapacity
    self.connectionSetupTime = connectionSetupTime
    self.consumerBufferLimit = max(1, consumerBufferLimit)
  }

  /// The ATT MTU before any exchange (Core spec).
  public static let minimumMTU = 23
  /// L2CAP (4) + ATT opcode and handle (3) around a notified or written value.
  static let attOverhead = 7
  /// Largest LL payload with data length extension.
  static let maximumLLPayload = 251
  /// LL header bytes, and the inter-frame space in µs.
  static let llHeader = 2
  static let interFrameSpaceMicroseconds = 150

  /// How many notifications of `valueLength` bytes one connection event carries: the
  /// configured count, or fewer when the PHY cannot fit them (each exchange is the data
  /// packet(s), an empty acknowledgement and two inter-frame spaces).
  public func packetsPerEvent(valueLength: Int) -> Int {
    let pdu = valueLength + Self.attOverhead
    let fragments = max(1, (pdu + Self.maximumLLPayload - 1) / Self.maximumLLPayload)
    var exchange = 0
    var left = pdu
    for _ in 0..<fragments {
      let chunk = min(left, Self.maximumLLPayload)
      left -= chunk
      exchange += phy.airtimeMicroseconds(pduBytes: Self.llHeader + chunk)
      exchange += phy.airtimeMicroseconds(pduBytes: Self.llHeader)
      exchange += 2 * Self.interFrameSpaceMicroseconds
    }
    let interval = Int(nanoseconds(connectionInterval) / 1000)
    let fit = max(1, interval / max(1, exchange))
    return min(packetsPerConnectionEvent, fit)
  }

  /// File bytes per second a sync moves with `bytesPerFrame` of data per frame (80 × channels).
  public func syncThroughput(bytesPerFrame: Int) -> Double {
    let frames = packetsPerEvent(valueLength: bytesPerFrame + 10)
    return Double(frames * bytesPerFrame) / connectionInterval.seconds
  }
}
