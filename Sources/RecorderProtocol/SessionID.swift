/// The device's id for one recording: its start time in unix seconds (PROTOCOL.md §5; the USB
/// file of session 1775393534 is `1775393534.ASR`) [device][sdk].
///
/// On the wire it is a `u32` wherever a frame carries a session (LIST entries, SYNC_START, the
/// bulk frame header, the sync tail, DELETE, the recording opcodes, GET_STATE, the Wi-Fi PDUs);
/// byte-level code reads and writes ``rawValue``. 0 is not a recording: it means "none" or
/// "all" where the protocol says so (LIST `afterSession` 0 = all; REC_PAUSE below portVersion 7
/// sends 0).
///
/// It prints, and encodes to JSON, as the plain decimal number, so file names, logs, CLI
/// output and stored manifests read exactly as they did when it was a bare integer.
public struct SessionID: RawRepresentable, Hashable, Comparable, Sendable,
  ExpressibleByIntegerLiteral, CustomStringConvertible, Codable
{
  /// The `u32` the device sends: unix seconds at the recording's start.
  public var rawValue: UInt32

  public init(_ rawValue: UInt32) { self.rawValue = rawValue }

  public init(rawValue: UInt32) { self.rawValue = rawValue }

  public init(integerLiteral value: UInt32) { self.rawValue = value }

  public static func < (lhs: SessionID, rhs: SessionID) -> Bool { lhs.rawValue < rhs.rawValue }

  /// The decimal number, e.g. `1775393534`.
  public var description: String { String(rawValue) }

  /// Decodes a bare number (`1775393534`), not an object.
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(UInt32.self)
  }

  /// Encodes a bare number (`1775393534`), not an object.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}
