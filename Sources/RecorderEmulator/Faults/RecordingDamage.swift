import RecorderProtocol

/// Damage written into one recording on the flash: unlike the link faults of ``FaultPlan``,
/// it is there on every read, as a worn flash cell or a firmware bug would leave it. Applying
/// the same damage again changes nothing.
public enum RecordingDamage: String, Sendable, CaseIterable {
  /// The frame in the middle of a raw recording starts with `00` instead of its TOC byte:
  /// no device writes that frame.
  case badFrame = "bad-frame"
  /// The recording becomes 4 GiB − 1 bytes of zeros (a sparse file: no disk is used).
  case zeros = "zeros-4g"
  /// A byte of the middle Ogg page's payload is inverted: the page's CRC no longer matches.
  case oggPageCRC = "ogg-page-crc"
  /// The middle Ogg page claims 255 lacing values of 255: a page of about 64 KiB.
  case oggLacing = "ogg-lacing-64k"
  /// The recording ends halfway through its last Ogg page.
  case oggPageCut = "ogg-page-cut"
  /// An end-to-end encrypted recording's `keyCipher` (its file key, RSA-wrapped to the
  /// user, PROTOCOL.md §9) is replaced by other bytes: the user's key no longer unwraps it,
  /// as if the file were another user's. The audio is untouched.
  case e2eeKeyCipher = "e2ee-key-cipher"
}

extension EmulatedDevice {
  /// Writes `damage` into the recording `sessionId` on the flash.
  /// - Throws: ``EmulatorError/flashIO(path:operation:errno:)``, or
  ///   ``EmulatorError/damage(_:)`` for a recording without the damaged part
  ///   (an Ogg damage on a raw recording, a recording too short or too long to scan).
  public func damage(_ sessionId: SessionID, _ damage: RecordingDamage) throws(EmulatorError) {
    guard let size = flash.entries[sessionId]?.size else {
      throw .damage("no recording \(sessionId) to damage")
    }
    switch damage {
    case .badFrame:
      let frames = size / configuration.bytesPerFrame
      guard frames > 2 else { throw .damage("recording \(sessionId) is too short") }
      try flash.overwrite([0], in: sessionId, at: frames / 2 * configuration.bytesPerFrame)
    case .zeros:
      try flash.resize(sessionId, to: 0)
      try flash.resize(sessionId, to: Int(UInt32.max))
    case .e2eeKeyCipher:
      guard size >= E2EEFileHeader.length,
        E2EEFileHeader.looksEncrypted(try flash.read(sessionId, offset: 0, count: 8))
      else { throw .damage("recording \(sessionId) is not end-to-end encrypted") }
      let keyCipher = E2EEFileHeader.length - E2EEFileHeader.keyCipherLength
      // A wrapped key of all 0x01 is not PKCS#1 v1.5 under any key: it never unwraps.
      try flash.overwrite(
        [UInt8](repeating: 1, count: E2EEFileHeader.keyCipherLength), in: sessionId,
        at: keyCipher)
    case .oggPageCRC, .oggLacing, .oggPageCut:
      // Ogg pages are found by reading the recording whole: damage is for short test
      // recordings.
      guard size <= 64 << 20 else {
        throw .damage("recording \(sessionId) is too long to damage")
      }
      let bytes = try flash.read(sessionId, offset: 0, count: size)
      let pages = Self.oggPageStarts(bytes)
      guard pages.count > 3 else {
        throw .damage("recording \(sessionId) has no Ogg audio pages")
      }
      let middle = pages[max(2, pages.count / 2)]
      switch damage {
      case .oggPageCRC:
        let payload = middle + 27 + Int(bytes[middle + 26])
        try flash.overwrite([~bytes[payload]], in: sessionId, at: payload)
      case .oggLacing:
        try flash.overwrite([UInt8](repeating: 255, count: 256), in: sessionId, at: middle + 26)
      default:
        let last = pages[pages.count - 1]
        try flash.resize(sessionId, to: last + (size - last) / 2)
      }
    }
  }

  /// Offsets of the `OggS` capture patterns in `bytes`.
  private static func oggPageStarts(_ bytes: [UInt8]) -> [Int] {
    let pattern: [UInt8] = Array("OggS".utf8)
    var starts: [Int] = []
    var index = 0
    while index + 27 <= bytes.count {
      if bytes[index] == pattern[0], Array(bytes[index..<(index + 4)]) == pattern {
        starts.append(index)
        index += 27
      } else {
        index += 1
      }
    }
    return starts
  }
}
