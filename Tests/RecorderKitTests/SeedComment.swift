import Testing

/// Says which seed a failing test ran with (Swift Testing prints comments with failures).
func seedComment(_ seed: UInt64, _ extra: String = "") -> Comment {
  Comment(rawValue: "seed \(seed)" + (extra.isEmpty ? "" : "; " + extra))
}
