/// What checked each byte range of a recording, kept apart from how many bytes are durable
/// (DESIGN.md invariant 8: trust only what was checked).
///
/// A range is checked by the device's tail CRC over it (``CheckLevel/deviceCRC``), by two
/// reads that returned identical bytes while the CRC disagreed with every coverage we know
/// (``CheckLevel/agreement``), or only by the framing checks every frame passes: BLE's
/// link-layer CRC-24 per packet, arrival in order, and the device's Opus framing
/// (``CheckLevel/framing``). Bytes no range covers were never checked.
public struct CheckedRanges: Sendable, Equatable, CustomStringConvertible {
  /// How a range was checked, weakest first.
  public enum CheckLevel: String, Sendable, Comparable, CaseIterable {
    /// In order, Opus-framed, link-layer CRC: what the vendor app relies on.
    case framing
    /// Read twice, identical, but the device CRC matched no coverage we know.
    case agreement
    /// The device's tail CRC matched our CRC of these bytes.
    case deviceCRC = "crc"

    public static func < (lhs: CheckLevel, rhs: CheckLevel) -> Bool {
      allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
  }

  /// One checked range, `[start, end)`.
  public struct Range: Sendable, Equatable {
    public var start: Int64
    public var end: Int64
    public var level: CheckLevel

    public init(start: Int64, end: Int64, level: CheckLevel) {
      self.start = start
      self.end = end
      self.level = level
    }
  }

  /// Disjoint ranges in offset order; neighbours of the same level are merged.
  public private(set) var ranges: [Range] = []

  public init() {}

  /// Records that `[start, end)` was checked at `level`, replacing what was known of those
  /// bytes (a later check of the same bytes is the one that counts).
  public mutating func record(_ start: Int64, _ end: Int64, _ level: CheckLevel) {
    guard end > start else { return }
    var kept: [Range] = []
    for range in ranges {
      if range.end <= start || range.start >= end {
        kept.append(range)
        continue
      }
      if range.start < start {
        kept.append(Range(start: range.start, end: start, level: range.level))
      }
      if range.end > end { kept.append(Range(start: end, end: range.end, level: range.level)) }
    }
    kept.append(Range(start: start, end: end, level: level))
    ranges = Self.merged(kept)
  }

  /// Forgets every check at or after `offset` (the partial file was cut back there).
  public mutating func truncate(to offset: Int64) {
    ranges = ranges.compactMap { range in
      guard range.start < offset else { return nil }
      return Range(start: range.start, end: min(range.end, offset), level: range.level)
    }
  }

  /// Records `level` for every byte of `[0, end)` no range covers yet.
  public mutating func fillGaps(upTo end: Int64, with level: CheckLevel) {
    var next: Int64 = 0
    var gaps: [(Int64, Int64)] = []
    for range in ranges where range.start < end {
      if range.start > next { gaps.append((next, range.start)) }
      next = max(next, range.end)
    }
    if next < end { gaps.append((next, end)) }
    for (start, stop) in gaps { record(start, stop, level) }
  }

  /// The weakest check over `[0, size)`; nil when some byte was never checked.
  public func weakestLevel(upTo size: Int64) -> CheckLevel? {
    var next: Int64 = 0
    var weakest = CheckLevel.deviceCRC
    for range in ranges where range.start < size {
      guard range.start <= next else { return nil }
      weakest = min(weakest, range.level)
      next = max(next, range.end)
    }
    return next >= size ? weakest : nil
  }

  /// The ranges checked only at `level`, within `[0, size)`.
  public func ranges(at level: CheckLevel, upTo size: Int64) -> [Range] {
    ranges.filter { $0.level == level && $0.start < size }.map {
      Range(start: $0.start, end: min($0.end, size), level: $0.level)
    }
  }

  /// `start-end:level` joined by `,` (the journal's column).
  public var description: String {
    ranges.map { "\($0.start)-\($0.end):\($0.level.rawValue)" }.joined(separator: ",")
  }

  /// Parses ``description``; nil for text that is not in that form.
  public init?(_ text: String) {
    guard !text.isEmpty else { return }
    for part in text.split(separator: ",") {
      let fields = part.split(separator: ":")
      guard fields.count == 2, let level = CheckLevel(rawValue: String(fields[1])) else {
        return nil
      }
      let bounds = fields[0].split(separator: "-")
      guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]),
        start >= 0, end > start
      else { return nil }
      record(start, end, level)
    }
  }

  private static func merged(_ ranges: [Range]) -> [Range] {
    var result: [Range] = []
    for range in ranges.sorted(by: { $0.start < $1.start }) {
      if var last = result.last, last.end == range.start, last.level == range.level {
        last.end = range.end
        result[result.count - 1] = last
      } else {
        result.append(range)
      }
    }
    return result
  }
}
