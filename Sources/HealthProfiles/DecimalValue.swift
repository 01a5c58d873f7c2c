/// An exact decimal number, `mantissa × 10^exponent`, as medical devices send them.
///
/// Kept as integers so that 36.4 prints as "36.4", never as 36.399999999999999; the
/// ``doubleValue`` is for arithmetic, the ``description`` for display and JSON.
public struct DecimalValue: Sendable, Hashable, CustomStringConvertible {
  public var mantissa: Int
  public var exponent: Int

  public init(mantissa: Int, exponent: Int) {
    self.mantissa = mantissa
    self.exponent = exponent
  }

  /// The nearest `Double` (parsed from the decimal text, so correctly rounded).
  public var doubleValue: Double {
    Double("\(mantissa)e\(exponent)") ?? .nan
  }

  /// Plain decimal notation with exactly `-exponent` fraction digits: mantissa 364 and
  /// exponent -1 give "36.4", 14000 and -3 give "14.000" (the resolution shows), 5 and 2 give
  /// "500".
  public var description: String {
    let sign = mantissa < 0 ? "-" : ""
    let digits = String(mantissa.magnitude)
    if exponent >= 0 {
      if mantissa == 0 { return "0" }
      return sign + digits + String(repeating: "0", count: exponent)
    }
    let fractionCount = -exponent
    let padded = String(repeating: "0", count: max(0, fractionCount + 1 - digits.count)) + digits
    let integerPart = padded.dropLast(fractionCount)
    let fractionPart = padded.suffix(fractionCount)
    return sign + integerPart + "." + fractionPart
  }
}
