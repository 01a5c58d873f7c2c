/// What a model can do, by model and security generation: the one capability table
/// (DESIGN.md), shared by the SDK, the facade and the emulator. It starts with what issue 43
/// needed: which models ship Mode B security and how long their handshakes may take; the
/// other rows of DESIGN.md's list join it as they are moved here.
public enum ModelCapabilities {
  /// Models that speak Mode B (portVersion 20 and up) as sold: the Note Pro (serials 881…)
  /// and the NotePin S (882… and 883…) [client].
  public static let modeBModels: Set<RecorderModel> = [.notePro, .notePinS]

  /// Whether a recorder heard this way may speak Mode B, so that the HANDSHAKE token must
  /// never go to it in clear [project]:
  /// - a portVersion it advertised decides: 20 and up is Mode B (the payload parsed field by
  ///   field in one of §1's two layouts, so the value is the device's);
  /// - with no portVersion known, a Note Pro or NotePin S (by serial prefix or project code)
  ///   is Mode B, and so is any other recorder except one named like the V0095 Note
  ///   (`PLAUD_NOTE` [device]): a recorder heard by name only is not sent the token in clear
  ///   on a guess.
  public static func mayUseModeB(model: RecorderModel?, portVersion: UInt16?, name: String?)
    -> Bool
  {
    if let portVersion { return SecurityGeneration(portVersion: portVersion) == .modeB }
    if let model, modeBModels.contains(model) { return true }
    return name?.uppercased() != modeANoteName
  }

  /// The name a V0095 Note advertises [device]: a recorder heard by this name only is taken
  /// for a Mode A device.
  public static let modeANoteName = "PLAUD_NOTE"

  /// How long a handshake's replies may take on `model` (nil: not known yet) under
  /// `security` (PROTOCOL.md §4).
  public static func handshakeTimeouts(for model: RecorderModel?, security: SecurityGeneration)
    -> HandshakeTimeouts
  {
    switch security {
    case .modeA: .modeA
    case .modeB: .modeB
    }
  }
}

/// Mode A (the token in clear) or Mode B (an encrypted channel first, PROTOCOL.md §9).
public enum SecurityGeneration: Sendable, Equatable {
  case modeA
  case modeB

  /// portVersion 20 and up is Mode B [sdk].
  public init(portVersion: UInt16) {
    self = portVersion >= ProtocolDefaults.modeBPortVersion ? .modeB : .modeA
  }
}

/// The bounds of a handshake's waits (PROTOCOL.md §4).
public struct HandshakeTimeouts: Sendable, Equatable {
  /// Each Mode B pre-handshake reply (`FE11`, the device's `FE12`).
  public var preHandshakeReply: Duration
  /// The HANDSHAKE reply (`0001`, or `0002` asking for the second stage), per stage.
  public var handshakeReply: Duration

  public init(preHandshakeReply: Duration, handshakeReply: Duration) {
    self.preHandshakeReply = preHandshakeReply
    self.handshakeReply = handshakeReply
  }

  /// Mode A: replies took 2–5.5 s on V0095 [device]; 10 s [project]. No pre-handshake.
  public static let modeA = HandshakeTimeouts(
    preHandshakeReply: .seconds(10), handshakeReply: .seconds(10))
  /// Mode B: a working client waits 20 s for each `FE11`/`FE12` reply and 15 s for `0001`;
  /// the vendor's 10 s cut off NotePin S handshakes that were succeeding [client].
  public static let modeB = HandshakeTimeouts(
    preHandshakeReply: .seconds(20), handshakeReply: .seconds(15))
}
