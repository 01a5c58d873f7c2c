import RecorderProtocol

// The vendor's API types a session id as `Int` (`bleData(sessionId:start:data:)`,
// `deleteFile(sessionId:)`, `BleFile.sessionId`, …; shared/seeds), and code written against
// it must keep compiling. Inside, the facade uses RecorderKit's `SessionID`; these are the
// only conversions between the two.

extension SessionID {
  /// The recording a vendor `Int` names; nil for a value no recording can have (negative, or
  /// past the device's `u32`).
  init?(exactly value: Int) {
    guard let raw = UInt32(exactly: value) else { return nil }
    self.init(raw)
  }

  /// A vendor `Int` used as a LIST bound ("after this one"), held to the `u32` range.
  init(clamping value: Int) { self.init(UInt32(clamping: value)) }
}

extension Int {
  /// The session id as the vendor's API passes it.
  init(_ session: SessionID) { self.init(session.rawValue) }
}
