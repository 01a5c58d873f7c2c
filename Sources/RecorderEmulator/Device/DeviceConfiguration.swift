import RecorderAudio
import RecorderBluetooth
import RecorderProtocol

/// Who the emulated device is and how it starts: identity, firmware, flash, battery, timing.
///
/// Defaults describe the device the published evidence describes (PROTOCOL.md): a Plaud Note
/// (project code 888) on firmware V0095, portVersion 10, one audio channel, Wi-Fi capable,
/// named `PLAUD_NOTE`, with the 58.24 GiB flash of §11 vector 6.
public struct DeviceConfiguration: Sendable {
  /// The product; its raw value is the advertised project code.
  public var model: RecorderModel
  public var firmware: FirmwareVersion
  /// The protocol generation the HANDSHAKE reply reports; 20 and up speaks Mode B security
  /// (``modeB``, PROTOCOL.md §9) before the HANDSHAKE.
  public var portVersion: UInt16
  /// The serial number: digits (packed as nibbles in the advertisement when fewer than 20
  /// and even in count) or ASCII.
  public var serial: String
  /// The GATT / GET_NAME name and the advertised local name.
  public var name: String
  /// The token HANDSHAKE must carry (compared in its wire form for ``portVersion``).
  public var token: DeviceToken
  /// 1 on V0095 [device]; 2 makes every 20 ms frame 160 bytes, laid out as ``stereoLayout``.
  public var audioChannels: UInt8
  /// How a 2-channel frame's 160 bytes are laid out (PROTOCOL.md §5 allows both readings of
  /// "80 bytes per frame per channel"): two mono packets `B8 …` `B8 …` (the default) or one
  /// stereo packet `BC …`. Ignored for one channel.
  public var stereoLayout: DeviceAudioFormat.StereoLayout = .twoMonoPackets
  /// Non-zero: the device raises a hotspot on WIFI_OPEN (PROTOCOL.md §6); 0 refuses it.
  public var supportWifi: UInt8
  /// Recordings are Ogg-wrapped Opus and the HANDSHAKE reply says `oggAudio = 1`
  /// (PROTOCOL.md §5): header pages, then pages of 50 packets (1 s), the last with
  /// end-of-stream; a recording in progress grows a whole page at a time. The real
  /// device's page geometry is not known [project].
  public var oggAudio = false
  /// What the HANDSHAKE reply's `oggAudio` byte says; nil: the truth (``oggAudio``). A
  /// device whose flag and content disagree shows the phone judges the content, as the
  /// vendor SDK does (PROTOCOL.md §5, §12 [sdk-code]); which container a Note Pro records
  /// is unknown (§5), so both are options.
  public var oggAudioFlag: Bool?
  /// Newer firmware's two-stage HANDSHAKE (PROTOCOL.md §3.1 [sdk]): the first HANDSHAKE
  /// (token checked) is answered with GET_SERIAL, and only a second one with `appVerify` 1
  /// gets the HANDSHAKE reply. Off: the V0095's single stage.
  public var twoStageHandshake = false
  /// What DEPAIR's clear byte does (PROTOCOL.md §3.1 names it `clearFiles` [sdk]; the
  /// vendor's reference calls `depair(clear: true)` "clear all connections"): erase every
  /// recording (the default, the worst reading) or forget every connection (pairings only).
  public var depairClearErasesRecordings = true
  /// DEPAIR gives the device a new address once the link that sent it ends (PROTOCOL.md §4
  /// [sdk-code]: the vendor's recovery rescans by serial after it); off, it keeps its address.
  public var depairChangesAddress = true
  /// With ``twoStageHandshake``: the second stage's `devToken` must be these 8 bytes (what the
  /// real device checks there is unknown); nil takes any.
  public var secondStageDeviceToken: [UInt8]?
  /// Time zone reported until TIME_SYNC sets another (V0095 capture: +3:00).
  public var tzHours: Int8
  public var tzMinutes: UInt8
  /// Seeds everything random: addresses, generated recordings, their lengths.
  public var seed: UInt64
  /// The device's clock (unix seconds) at virtual time 0, until TIME_SYNC sets it.
  public var unixTimeOrigin: UInt32
  /// Flash size reported by STORAGE (§11 vector 6).
  public var flashCapacity: UInt64
  /// Flash the firmware itself uses (V0095: 128 KiB used with no recordings) [device].
  public var flashSystemBytes: UInt64
  public var batteryLevel: UInt8
  public var charging: Bool
  /// BATTERY replies `charging level` [sdk]; false sends V0095's one-byte `level` [device].
  public var batteryReplyIncludesCharging: Bool
  /// Company id in the manufacturer data (0x0059 on the Note).
  public var companyID: UInt16
  /// What the advertisement carries besides the name: the §1 payload as the V0095 sends it
  /// (default), any bytes, or nothing (a recorder known only by its `PLAUD*` name).
  public var advertising: AdvertisingData
  /// Whether ``manufacturerPayload`` starts with the `02 <projectCode>` field (the Note's
  /// layout, default) or at the version field, as a NotePin S's may (PROTOCOL.md §1).
  public var advertisesProjectCode = true
  /// How DELETE is answered: `001F` [sdk] (default) or `001E` + session + status, the form
  /// the one capture suggests [device] (PROTOCOL.md §3.3).
  public var deleteReply: DeleteReplyStyle
  /// How TIME_SYNC's `tzHours` / `tzMinutes` are read into ``EmulatedDevice/utcOffsetSeconds``
  /// (docs/time-sync.md; RecorderKit writes `TimeZoneEncoding/projectDefault`).
  public var timeZoneEncoding: TimeZoneEncoding
  /// Signal strength reported with each advertisement, dBm.
  public var rssi: Int
  /// A central that has not sent a HANDSHAKE this long after connecting is dropped
  /// (V0095: within ~1 s) [device].
  public var authenticationTimeout: Duration
  /// A recording stops by itself at this length (5 hours) [project].
  public var maximumRecordingDuration: Duration
  /// The radio: MTU, connection interval, packets per event, PHY, queues.
  public var link: LinkParameters
  /// Wi-Fi Fast Transfer (used when ``supportWifi`` is non-zero): timers, clock, sizes.
  public var wifi: WiFiParameters
  /// The firmware-update receiver: range size, verify / install / restart times.
  public var ota = OTAParameters()
  /// Which bytes the sync tail's CRC covers (PROTOCOL.md §10: unknown on real firmware):
  /// `TailCRCCoverage/requestBytes` by default, our guess; the others let tests check the
  /// SDK copes with every plausible answer.
  public var tailCRCCoverage: TailCRCCoverage = .requestBytes
  /// Mode B's open choices, for a portVersion ≥ 20 device (PROTOCOL.md §9).
  public var modeB = ModeBParameters()
  /// How a SYNC_START of the recording in progress with `end` 0 is served (PROTOCOL.md §3.3
  /// [project]): followed frame by frame until the recording stops (the default), or only
  /// the bytes recorded so far.
  public var liveSync: LiveSyncBehaviour = .follows
  /// GET_STATE's `state` while recording: 4099 (default, `DeviceState.vendorRecordingState`:
  /// the vendor SDK's code takes recording iff 4099 [sdk-code]) or this project's earlier 2
  /// [project]. Idle is 1 and paused 3 either way [project]: no source names other values.
  public var recordingStateCode: UInt32 = DeviceState.vendorRecordingState
  /// The iBeacon the device broadcasts while its iBeacon wake-up (setting 49) is 1, nil for a
  /// device without one (the default). No source says which identity a real recorder uses
  /// (PROTOCOL.md [project]): tests pick one and configure the phone's side to match.
  public var beacon: IBeacon?
  /// Whether the beacon goes on while a phone is connected (the default) or pauses until
  /// the link ends (PROTOCOL.md [project]: unknown).
  public var beaconWhileConnected = true

  /// The token of §11 vector 1, handy for tests.
  public static let exampleToken = DeviceToken(validatedText: "0123456789abcdef0123456789abcdef")

  /// A configuration; every parameter has the V0095 Note default.
  /// - Precondition: `portVersion` ≥ 1 and `audioChannels` 1 or 2 (programmer errors); from
  ///   20 on the device speaks Mode B (``modeB``).
  public init(
    model: RecorderModel = .note,
    firmware: FirmwareVersion = ModelPreset.note.firmware,
    portVersion: UInt16 = ProtocolDefaults.portVersion,
    serial: String = ModelPreset.note.serial,
    name: String = ModelPreset.note.name,
    token: DeviceToken = DeviceConfiguration.exampleToken,
    audioChannels: UInt8 = 1,
    supportWifi: UInt8 = 1,
    tzHours: Int8 = 3,
    tzMinutes: UInt8 = 0,
    seed: UInt64 = 1,
    unixTimeOrigin: UInt32 = 1_775_395_281,
    flashCapacity: UInt64 = 62_537_596_928,
    flashSystemBytes: UInt64 = 131_072,
    batteryLevel: UInt8 = 100,
    charging: Bool = false,
    batteryReplyIncludesCharging: Bool = true,
    companyID: UInt16 = ManufacturerPayload.noteCompanyID,
    advertising: AdvertisingData = .manufacturerPayload,
    deleteReply: DeleteReplyStyle = .deleteResult,
    timeZoneEncoding: TimeZoneEncoding = .projectDefault,
    rssi: Int = -55,
    authenticationTimeout: Duration = .seconds(1),
    maximumRecordingDuration: Duration = .seconds(5 * 3600),
    link: LinkParameters = LinkParameters(),
    wifi: WiFiParameters = WiFiParameters()
  ) {
    precondition(portVersion >= 1, "portVersion starts at 1")
    precondition(audioChannels == 1 || audioChannels == 2, "the device records 1 or 2 channels")
    self.model = model
    self.firmware = firmware
    self.portVersion = portVersion
    self.serial = serial
    self.name = name
    self.token = token
    self.audioChannels = audioChannels
    self.supportWifi = supportWifi
    self.tzHours = tzHours
    self.tzMinutes = tzMinutes
    self.seed = seed
    self.unixTimeOrigin = unixTimeOrigin
    self.flashCapacity = flashCapacity
    self.flashSystemBytes = flashSystemBytes
    self.batteryLevel = batteryLevel
    self.charging = charging
    self.batteryReplyIncludesCharging = batteryReplyIncludesCharging
    self.companyID = companyID
    self.advertising = advertising
    self.deleteReply = deleteReply
    self.timeZoneEncoding = timeZoneEncoding
    self.rssi = rssi
    self.authenticationTimeout = authenticationTimeout
    self.maximumRecordingDuration = maximumRecordingDuration
    self.link = link
    self.wifi = wifi
  }

  /// Bytes of one 20 ms frame on flash and on the wire: 80 × channels.
  public var bytesPerFrame: Int { 80 * Int(audioChannels) }

  /// The §1 payload for this device, in the captured V0095 layout (the unknown 4-byte field
  /// and bindInfo as captured).
  public var manufacturerPayload: ManufacturerPayload {
    ManufacturerPayload(
      projectCode: model.rawValue, firmware: firmware, serial: serial, portVersion: portVersion,
      reserved: [0xDA, 0x6D, 0xA7, 0xCE], bindInfo: 1,
      hasProjectCodeField: advertisesProjectCode)
  }

  /// The manufacturer data advertised (company id first), nil for ``AdvertisingData/nameOnly``.
  public var manufacturerData: [UInt8]? {
    switch advertising {
    case .manufacturerPayload: manufacturerPayload.manufacturerData(companyID: companyID)
    case .custom(let payload): [UInt8(companyID & 0xFF), UInt8(companyID >> 8)] + payload
    case .nameOnly: nil
    }
  }
}

/// What an emulated recorder advertises besides its name (PROTOCOL.md §1).
public enum AdvertisingData: Sendable, Equatable {
  /// ``DeviceConfiguration/manufacturerPayload`` in the captured V0095 layout.
  case manufacturerPayload
  /// These bytes after the company id, whatever they are (`recorder emulate --advertising
  /// HEX`): a captured payload, a future layout, garbage.
  case custom([UInt8])
  /// No manufacturer data: only the `PLAUD*` name identifies the recorder.
  case nameOnly
}

/// How the emulated device answers DELETE (PROTOCOL.md §3.3).
public enum DeleteReplyStyle: String, Sendable, CaseIterable {
  /// `001F` `sessionId u32` `status u8` [sdk].
  case deleteResult = "001f"
  /// `001E` `sessionId u32` `status u8`: the 8-byte reply of the one capture [device].
  case syncStopOpcode = "001e"
}

extension DeviceToken {
  /// A token from a literal known to be printable ASCII.
  /// - Precondition: `text` is printable ASCII (a programmer error otherwise).
  init(validatedText text: String) {
    guard let token = DeviceToken(text) else { preconditionFailure("token literal not ASCII") }
    self = token
  }
}
