/// A time stamp in the GATT Specification Supplement's Date Time format (the Date Time
/// characteristic 0x2A08, 7 bytes): year u16 little-endian, then month, day, hours, minutes,
/// seconds, one byte each.
///
/// The supplement defines year 1582…9999, month 1…12, day 1…31, hours 0…23, minutes and
/// seconds 0…59, and 0 in year, month or day for "not known"; those read as nil here. The
/// device's local time, with no zone. Values outside the ranges are kept as sent (a parser
/// is not the place to repair a sensor's clock) and flagged by ``isWithinSpecifiedRanges``.
public struct MeasurementDateTime: Sendable, Hashable, CustomStringConvertible {
  /// The year, nil when the device sent 0 ("year is not known").
  public var year: Int?
  /// The month 1…12, nil when the device sent 0 ("month is not known").
  public var month: Int?
  /// The day of the month 1…31, nil when the device sent 0 ("day is not known").
  public var day: Int?
  public var hours: Int
  public var minutes: Int
  public var seconds: Int

  public init(year: Int?, month: Int?, day: Int?, hours: Int, minutes: Int, seconds: Int) {
    self.year = year
    self.month = month
    self.day = day
    self.hours = hours
    self.minutes = minutes
    self.seconds = seconds
  }

  /// Decodes the 7 wire bytes; `bytes` must hold at least 7 from `start`.
  init(_ bytes: [UInt8], at start: Int) {
    let year = Int(bytes[start]) | Int(bytes[start + 1]) << 8
    self.init(
      year: year == 0 ? nil : year,
      month: bytes[start + 2] == 0 ? nil : Int(bytes[start + 2]),
      day: bytes[start + 3] == 0 ? nil : Int(bytes[start + 3]),
      hours: Int(bytes[start + 4]), minutes: Int(bytes[start + 5]),
      seconds: Int(bytes[start + 6]))
  }

  /// Whether every known part lies in the range the supplement defines.
  public var isWithinSpecifiedRanges: Bool {
    (year.map { (1582...9999).contains($0) } ?? true)
      && (month.map { (1...12).contains($0) } ?? true)
      && (day.map { (1...31).contains($0) } ?? true)
      && (0...23).contains(hours) && (0...59).contains(minutes) && (0...59).contains(seconds)
  }

  /// `2024-03-05T14:07:09`, with `????` / `??` for an unknown year, month or day, and
  /// " (out of range)" appended when a part is outside the supplement's range.
  public var description: String {
    let date = [
      year.map { padded($0, 4) } ?? "????", month.map { padded($0, 2) } ?? "??",
      day.map { padded($0, 2) } ?? "??",
    ].joined(separator: "-")
    let time = [hours, minutes, seconds].map { padded($0, 2) }.joined(separator: ":")
    return date + "T" + time + (isWithinSpecifiedRanges ? "" : " (out of range)")
  }

  private func padded(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }
}
