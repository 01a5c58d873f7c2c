// The value types of the capability table's columns (``ModelCapabilities``).

/// How a model advertises (PROTOCOL.md §1). Select recorders by payload and name, never by
/// company id alone [project].
public struct AdvertisingTraits: Sendable, Equatable {
  /// The advertised and GATT name; nil: unknown.
  public let name: String?
  /// The company id its manufacturer data carries.
  public let companyID: UInt16
  /// Whether its payload starts with the `02 <projectCode>` field; nil: unknown.
  public let carriesProjectCodeField: Bool?

  public init(name: String?, companyID: UInt16, carriesProjectCodeField: Bool?) {
    self.name = name
    self.companyID = companyID
    self.carriesProjectCodeField = carriesProjectCodeField
  }
}

/// The SSID a model's hotspot raises when the WIFI_OPEN reply names none (PROTOCOL.md §6)
/// [sdk]: a prefix that may depend on portVersion, then the serial's last four characters.
public enum HotspotSSIDRule: Sendable, Equatable {
  /// Always this prefix.
  case prefix(String)
  /// `before` below portVersion `from`, `then` from it on.
  case prefixByPortVersion(before: String, from: UInt16, then: String)

  /// Characters of the serial's end that follow the prefix [sdk].
  public static let serialSuffixLength = 4

  /// The prefix on a device reporting `portVersion`.
  public func prefix(portVersion: UInt16) -> String {
    switch self {
    case .prefix(let prefix): prefix
    case .prefixByPortVersion(let before, let from, let then): portVersion >= from ? then : before
    }
  }

  /// The SSID of the device with `serial` reporting `portVersion`.
  public func ssid(serial: String, portVersion: UInt16) -> String {
    prefix(portVersion: portVersion) + serial.suffix(Self.serialSuffixLength)
  }
}

/// The ATT MTU a model is asked for and the least a sync needs (PROTOCOL.md §1): frames are
/// never split, so a smaller MTU loses whole frames.
public struct MTUNeeds: Sendable, Equatable {
  /// The MTU to ask for.
  public let requested: Int
  /// The least MTU that carries a whole bulk frame.
  public let minimumForSync: Int

  public init(requested: Int, minimumForSync: Int) {
    self.requested = requested
    self.minimumForSync = minimumForSync
  }

  /// What the vendor SDK asks of every model, 255 [sdk]; a sync needs 93 [project].
  public static let vendor = MTUNeeds(requested: 255, minimumForSync: 93)
}

/// How a model's recordings are protected at rest (PROTOCOL.md §5, §9).
public enum RecordingEncryption: Sendable, Equatable {
  /// Plain audio bytes.
  case plain
  /// A 512-byte `PLAUD.AI` header, then the audio encrypted segment by segment to the owner's
  /// key (§9).
  case e2eePerSegment
}

/// The audio inside a recording once any E2EE header is removed (PROTOCOL.md §5).
public enum AudioContainer: Sendable, Equatable {
  /// 80-byte CELT-only Opus frames per channel, no container.
  case rawOpus
  /// Ogg-wrapped Opus (`OggS` pages).
  case oggOpus
}

/// The mass-storage volume a model offers over USB ("Access via USB", PROTOCOL.md §5).
public struct USBVolume: Sendable, Equatable {
  /// The FAT volume label.
  public let label: String

  public init(label: String) { self.label = label }
}

/// How a model takes firmware `03` frames (PROTOCOL.md §7).
public struct OTAFramePacing: Sendable, Equatable {
  /// Data bytes per frame.
  public let dataLength: Int
  /// Data bytes per frame when the link is too small for ``dataLength`` (slow mode).
  public let slowDataLength: Int
  /// The spacing of frames; nil: as fast as the link takes them.
  public let interval: Duration?

  public init(dataLength: Int, slowDataLength: Int, interval: Duration?) {
    self.dataLength = dataLength
    self.slowDataLength = slowDataLength
    self.interval = interval
  }

  /// 80 data bytes every 18 ms: the vendor's frames for every model but the Note Pro
  /// [sdk-code].
  public static let paced = OTAFramePacing(
    dataLength: 80, slowDataLength: 80, interval: .milliseconds(18))
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
