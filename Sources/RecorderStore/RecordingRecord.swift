/// Where a recording is in its life (``RecordingRecord/stage``). Stages only move forward,
/// except that a transfer restarted from scratch goes back to ``transferring``.
public enum RecordingStage: String, Sendable, CaseIterable, Comparable {
  /// Listed on the device; nothing local yet.
  case seen
  /// Bytes are arriving into the partial file; ``RecordingRecord/durableBytes`` are safe.
  case transferring
  /// Every byte is on disk, fsync'd, verified or not, and renamed to its final raw name.
  case stored
  /// The export the user asked for is on disk under its final name.
  case exported
  /// The device copy was deleted (after ``stored`` or ``exported``, never before).
  case deletedFromDevice

  var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }
  public static func < (lhs: RecordingStage, rhs: RecordingStage) -> Bool {
    lhs.order < rhs.order
  }
}

/// What the journal knows about one recording of one device: the only source of truth for
/// "this recording is safe" (DESIGN.md invariant 1).
public struct RecordingRecord: Sendable, Equatable {
  /// How well the whole local copy was checked: the weakest check over its bytes
  /// (``RecordingRecord/checked``).
  public enum Verification: String, Sendable {
    case pending
    /// The device's tail CRC matched our CRC of every byte.
    case verified
    /// Some bytes passed only the framing checks (BLE's link-layer CRC, arrival in order, the
    /// device's Opus framing): what the vendor app relies on. Deleted from the device unless
    /// the sync asks for strict verification.
    case framing
    /// Some bytes were read twice identically but the device CRC matched no coverage we know:
    /// exported, deleted from the device only when the sync trusts agreement.
    case agreement
    /// Journals before per-range checks: the CRC disagreed; kept, never deleted.
    case unverified

    /// The file-level verification for the weakest check over its bytes.
    public init(_ level: CheckedRanges.CheckLevel?) {
      switch level {
      case nil: self = .pending
      case .framing: self = .framing
      case .agreement: self = .agreement
      case .deviceCRC: self = .verified
      }
    }
  }

  public var serial: String
  public var sessionId: UInt32
  /// Size the device reported in LIST.
  public var size: Int64
  public var channels: Int
  public var scene: Int?
  public var stage: RecordingStage
  /// Bytes of the partial file that were fsync'd: a resume starts here.
  public var durableBytes: Int64
  public var verification: Verification
  /// The device's tail CRC for the whole file, when known.
  public var deviceCRC: UInt16?
  /// SHA-256 (hex) of the stored raw bytes.
  public var sha256: String?
  /// Final raw file, relative to the sync root (`<serial>/<id>.opus-raw`).
  public var rawPath: String?
  /// The latest export, relative to the sync root (absolute when outside it); every format's
  /// export is in the journal's exports (``JournalTransaction/exports(serial:sessionId:)``).
  public var exportPath: String?
  /// The latest export's format ("mp3", "wav", …).
  public var exportFormat: String?
  /// The transport that carried the last bytes ("ble", "wifi").
  public var transport: String?
  /// What checked each byte range of the local copy, apart from how many bytes are durable.
  public var checked = CheckedRanges()
  /// Which recording under this session id: 0 for the first the journal saw, one more for
  /// each later recording the device listed under the same id with other bytes (the earlier
  /// ones are kept as ``EarlierGeneration``s). Later generations have names of their own.
  public var generation = 0
  /// Runs that gave this recording up because its device bytes could not be taken.
  public var giveUps = 0
  /// Why the last run that gave it up did.
  public var giveUpReason: String?

  public init(serial: String, sessionId: UInt32, size: Int64, channels: Int, scene: Int? = nil) {
    self.serial = serial
    self.sessionId = sessionId
    self.size = size
    self.channels = channels
    self.scene = scene
    stage = .seen
    durableBytes = 0
    verification = .pending
  }

  /// True when the local copy is complete and durable: the device copy may go once this
  /// is committed and the copy is verified.
  public var isSafeLocally: Bool { stage >= .stored }
}

/// A recording the journal held under a session id that the device later used for another
/// recording (``JournalTransaction/retire(_:reason:)``): its local copy and exports stay.
public struct EarlierGeneration: Sendable, Equatable {
  public var serial: String
  public var sessionId: UInt32
  public var generation: Int
  public var size: Int64
  public var channels: Int
  /// Its stage when it was retired (``RecordingStage/deletedFromDevice`` when the device had
  /// deleted it).
  public var stage: RecordingStage
  public var sha256: String?
  /// Its raw copy, relative to the sync root.
  public var rawPath: String?
  /// Why it was retired.
  public var reason: String
  /// Its exports: format → path (relative to the sync root, absolute outside it).
  public var exports: [String: String]
}
