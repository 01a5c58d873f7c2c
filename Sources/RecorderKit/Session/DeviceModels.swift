import RecorderBluetooth
import RecorderProtocol

/// A recorder heard while scanning (PROTOCOL.md §1). Identified by its serial when the
/// advertisement carries the manufacturer payload; a recorder heard only by a name containing
/// `plaud` has no serial, firmware or portVersion until a session reads them after connecting
/// (``Recorders/connect(serial:heard:session:)`` confirms it by serial).
public struct DiscoveredDevice: Sendable, Equatable {
  /// The link-level identifier to connect with now; not stable across reboots.
  public var peripheral: PeripheralID
  public var name: String?
  /// The advertised serial; nil when only the name identified the recorder.
  public var serial: String?
  public var model: RecorderModel?
  public var projectCode: UInt16?
  public var firmware: FirmwareVersion?
  public var portVersion: UInt16?
  public var rssi: Int

  package init(
    peripheral: PeripheralID, name: String?, serial: String?, model: RecorderModel?,
    projectCode: UInt16?, firmware: FirmwareVersion?, portVersion: UInt16?, rssi: Int
  ) {
    self.peripheral = peripheral
    self.name = name
    self.serial = serial
    self.model = model
    self.projectCode = projectCode
    self.firmware = firmware
    self.portVersion = portVersion
    self.rssi = rssi
  }

  /// True when only its name (containing `plaud`, any case) identified it (no parsable
  /// manufacturer payload).
  public var isNameOnly: Bool { serial == nil }

  /// What its model can do: the row of ``model``, else of the model its serial's prefix names,
  /// else of the model whose advertised name it carries; nil when none of them names a model.
  public var capabilities: ModelCapabilities? {
    ModelCapabilities.of(model: model, serial: serial ?? "")
      ?? name.flatMap(ModelCapabilities.named)
  }

  /// What tells two recorders apart in one scan: the serial, or for a recorder heard by
  /// name only, its radio address.
  public var identity: String { serial ?? "address:" + peripheral.rawValue }
}

/// How a device stores its recordings (PROTOCOL.md §5).
public enum RecordingContainer: Sendable, Equatable, Hashable {
  /// Raw device Opus packets, 80 bytes per channel per 20 ms, no container.
  case raw
  /// Ogg-wrapped Opus: the HANDSHAKE reply said `oggAudio = 1`.
  case ogg
}

/// One recording on the device.
public struct Recording: Sendable, Equatable, Hashable {
  /// The session id: the recording's start time in unix seconds [device].
  public var sessionId: SessionID
  /// Bytes of raw device audio.
  public var size: UInt32
  public var scene: UInt8?
  public var attribute: UInt8?
  /// Audio channels (1 on the Note V0095); sets the frame size (80 bytes per channel).
  public var channels: Int
  /// Raw packets or Ogg pages: what the HANDSHAKE's `oggAudio` flag says, a guess for the
  /// estimate of ``durationMs`` only. A sync judges the bytes themselves (PROTOCOL.md §5:
  /// `PLAUD.AI`, then `OggS`, else raw).
  public var container: RecordingContainer
  /// The device stores its recordings end-to-end encrypted, so ``size`` counts the 512-byte
  /// `PLAUD.AI` header before the audio (PROTOCOL.md §5, §9): a Mode B device's files
  /// (portVersion 20 and up), as a NotePin S's were [client]. A guess for the estimate of
  /// ``durationMs`` only; a sync judges the bytes.
  public var startsWithE2EEHeader: Bool

  package init(
    sessionId: SessionID, size: UInt32, scene: UInt8?, attribute: UInt8?, channels: Int,
    container: RecordingContainer = .raw, startsWithE2EEHeader: Bool = false
  ) {
    self.sessionId = sessionId
    self.size = size
    self.scene = scene
    self.attribute = attribute
    self.channels = channels
    self.container = container
    self.startsWithE2EEHeader = startsWithE2EEHeader
  }

  /// Bytes per 20 ms frame (PROTOCOL.md §5).
  public var bytesPerFrame: Int { 80 * max(1, channels) }

  /// Duration in milliseconds: `audio / (80 × channels) × 20` [sdk], `audio` being the
  /// size less the 512-byte E2EE header when ``startsWithE2EEHeader`` (PROTOCOL.md §5
  /// [client]). For an Ogg recording an estimate from its size (each 20 ms packet with its
  /// lacing byte, page headers ignored: within 1 %); the synced file's duration comes from
  /// its content (``SyncReport/File/durationMs``).
  public var durationMs: Int {
    let header = startsWithE2EEHeader ? E2EEFileHeader.length : 0
    let audio = max(0, Int(size) - header)
    switch container {
    case .raw: return audio / bytesPerFrame * 20
    case .ogg: return audio / (bytesPerFrame + max(1, channels)) * 20
    }
  }
}

/// What the device said about itself during the session set-up (PROTOCOL.md §4).
public struct DeviceInfo: Sendable, Equatable {
  public var serial: String
  public var model: RecorderModel?
  public var name: String
  public var firmware: FirmwareVersion?
  public var portVersion: UInt16
  public var audioChannels: Int
  public var supportsWiFi: Bool
  public var oggAudio: Bool
  public var battery: BatteryStatus
  public var storage: StorageInfo
  public var state: DeviceState
  /// The HANDSHAKE reply as the device sent it: its optional fields (`tzMinutes`,
  /// `audioChannels`, `supportWifi`, `noNsAgc`, `oggAudio`, firmware) are nil when absent.
  /// ``audioChannels``, ``supportsWiFi`` and ``oggAudio`` are what RecorderKit assumes for
  /// absent ones (1, no, no); report these to users as unknown.
  public var handshake: HandshakeResponse?

  /// What its model can do: the row of ``model``, else of the model its serial's prefix names;
  /// nil when neither names a model.
  public var capabilities: ModelCapabilities? { ModelCapabilities.of(model: model, serial: serial) }

  package init(
    serial: String, model: RecorderModel?, name: String, firmware: FirmwareVersion?,
    portVersion: UInt16, audioChannels: Int, supportsWiFi: Bool, oggAudio: Bool,
    battery: BatteryStatus, storage: StorageInfo, state: DeviceState,
    handshake: HandshakeResponse? = nil
  ) {
    self.serial = serial
    self.model = model
    self.name = name
    self.firmware = firmware
    self.portVersion = portVersion
    self.audioChannels = audioChannels
    self.supportsWiFi = supportsWiFi
    self.oggAudio = oggAudio
    self.battery = battery
    self.storage = storage
    self.state = state
    self.handshake = handshake
  }
}

/// Something the device did on its own: a recording started or stopped on the device, the
/// battery changed, the link went down.
public enum DeviceEvent: Sendable, Equatable {
  case recordingStarted(RecordStarted)
  case recordingPaused(RecordStopped)
  case recordingResumed(RecordStarted)
  case recordingStopped(RecordStopped)
  case battery(BatteryStatus)
  /// A frame nobody asked for and RecorderKit does not model (kept for diagnostics).
  case unsolicited(opcode: UInt16)
  case disconnected(DisconnectReason)
}
