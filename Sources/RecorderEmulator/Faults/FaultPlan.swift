import RecorderProtocol

/// Faults to inject, set with ``EmulatedDevice/setFaults(_:)`` before or during a session.
///
/// Frame and byte counts are counted from the moment the plan is set, and each one-shot
/// fault fires once. Actions that happen at a moment rather than on a count (reboot, going
/// out of range) are methods on ``EmulatedDevice``.
public struct FaultPlan: Sendable, Equatable {
  /// Drop the link (`RecorderLink/DisconnectReason/linkLoss`) instead of sending the
  /// notification that would take the bytes notified past this count: that many bytes
  /// arrive, not one more.
  public var dropLinkAfterNotifiedBytes: Int?
  /// Drop the link at this virtual time (time since the clock's origin).
  public var dropLinkAt: Duration?
  /// XOR one byte in the middle of the data of this data frame (0 = the first data frame
  /// sent after the plan is set): the frame stays well-formed, the sync tail CRC exposes it.
  public var corruptDataFrame: Int?
  /// Send this data frame twice.
  public var duplicateDataFrame: Int?
  /// Never send this data frame (the stream carries on past it).
  public var dropDataFrame: Int?
  /// The flash is full: STORAGE reports 0 free, a recording stops, REC_START is refused.
  public var flashFull: Bool
  /// Extra time the device takes before answering each request.
  public var processingDelay: Duration
  /// Drop the Wi-Fi TCP connection abruptly (no close frame, as a device that loses power
  /// does) once this many recording bytes went out in content PDUs: the content PDU that
  /// would pass the count is cut to end exactly there, then TCP is dropped. Once.
  public var dropWiFiAfterContentBytes: Int?
  /// Pause a Wi-Fi SYNC's content once this many recording bytes went out in content PDUs
  /// (counted as ``dropWiFiAfterContentBytes`` counts them): the content PDU that would pass
  /// the count is cut to end exactly there, then the device sends no more content until the
  /// phone's next message arrives. A STOP then ends the transfer as usual (answered
  /// `{status: 0}`, no more content); any other message (LIST, a keep-alive, even one the
  /// device cannot read) lets the stream go on from where it paused once the device has
  /// handled it. A message that arrived while the last PDU before the pause was being sent
  /// counts. Once; a range that ends at the count is not paused (there is nothing left to
  /// hold back), and at the same count as ``dropWiFiAfterContentBytes`` the drop comes first.
  ///
  /// It makes "the phone acts while the transfer is still going" deterministic: without it a
  /// loopback stream may end before the phone's reaction to its first content arrives. A
  /// phone that acts only when content arrives (RecorderKit's stop refuses the next frame,
  /// then sends STOP) needs one more PDU after it decided: ``EmulatedDevice/stepWiFiContent()``
  /// lets one out and the stream pauses again behind it.
  ///
  /// On a manual clock the device holds it (``ClockHold`` "emulator Wi-Fi content paused")
  /// from the cut until the pause ends: the pause is the phone's to end, and the phone's
  /// reaction (a callback on its queue, then a message over TCP) takes real time and no
  /// simulated time, so its own timers (a response timeout, say) must not be jumped to
  /// meanwhile, however slow the machine is. A phone that would only act on a timer of its
  /// own therefore never ends the pause: a stalled stream that the phone should time out on
  /// is ``stallAfterDataBytes`` (BLE) or ``dropWiFiAfterContentBytes``, not this.
  public var pauseWiFiContentAfterBytes: Int?
  /// WIFI_OPEN fails (status 1): the hotspot cannot be raised, so the phone stays on BLE.
  public var refuseWiFiOpen: Bool
  /// The hotspot is raised but every join is refused (the phone cannot get on the network).
  public var refuseHotspotJoins: Bool
  /// A lossy link: one data frame is lost each time this many more data bytes went out (the
  /// loss repeats, unlike ``dropDataFrame``). nil: no recurring loss.
  public var loseDataFrameEveryBytes: Int?
  /// Once this many data bytes went out, the device sends no data frame for
  /// ``stallDuration`` of its clock (it still answers commands, so SYNC_STOP is answered
  /// and a re-issued SYNC_START gets its head). Once.
  public var stallAfterDataBytes: Int?
  /// How long the stall of ``stallAfterDataBytes`` lasts.
  public var stallDuration: Duration
  /// Once this many data bytes went out (counted as ``stallAfterDataBytes`` counts them, so
  /// at the first data frame's end at or past the count), the device sends no data frame
  /// until the phone's next write reaches it. SYNC_STOP then ends the sync as usual (answered,
  /// no more data); any other write lets the stream go on once it is handled. Commands are
  /// answered meanwhile. Once; a connection that ends ends the pause with it.
  ///
  /// It makes "the phone acts while the transfer is still going" deterministic: without it
  /// a short sync may be over before the app's reaction to its first data reaches the
  /// device. A phone that acts only when data arrives needs one frame more after it decided:
  /// ``EmulatedDevice/stepData()`` lets one out and the stream pauses again behind it. On a
  /// manual clock the device holds it (``ClockHold`` "emulator data paused")
  /// while paused: the pause is the phone's to end, and its reaction takes real time and no
  /// simulated time, so its own timers (a sync's silence watchdog) must not be jumped to
  /// meanwhile. A phone that would act only on a timer of its own never ends it: a stalled
  /// sync the phone should time out on is ``stallAfterDataBytes``.
  public var pauseDataAfterBytes: Int?
  /// Drop the link when a firmware push first reaches each of these image offsets (each
  /// once): the `03` frame that would carry the image past the offset is lost with the link.
  public var dropLinkAtFirmwareOffsets: [Int]
  /// The Wi-Fi LIST names one recording more than BLE's (session id `0xFFFF_FFF0`, 8,000
  /// bytes): a peer that passed HELLO (the serial is public) offering its own files.
  public var wifiListsExtraRecording: Bool
  /// Mode B: flip a bit of the sealed notification with this sequence number (of the
  /// connection the plan is in force on) after sealing: it no longer authenticates. Once.
  public var tamperSealedSequence: UInt32?
  /// Mode B: send the sealed notification with this sequence number twice, byte for byte
  /// (a replay). Once.
  public var replaySealedSequence: UInt32?
  /// Mode B: flip a bit in the data of this `FE12` chunk (0 = the first) of the next session
  /// key the device sends (PROTOCOL.md §9 step 3), as a link that changed it on the way
  /// would: the chunk stays well-formed, the session key no longer unwraps. Once: one
  /// connection's key material; the next connection's arrives intact.
  public var tamperKeyMaterialChunk: Int?

  public init(
    dropLinkAfterNotifiedBytes: Int? = nil, dropLinkAt: Duration? = nil,
    corruptDataFrame: Int? = nil, duplicateDataFrame: Int? = nil, dropDataFrame: Int? = nil,
    flashFull: Bool = false, processingDelay: Duration = .zero,
    dropWiFiAfterContentBytes: Int? = nil, pauseWiFiContentAfterBytes: Int? = nil,
    refuseWiFiOpen: Bool = false,
    refuseHotspotJoins: Bool = false, loseDataFrameEveryBytes: Int? = nil,
    stallAfterDataBytes: Int? = nil, stallDuration: Duration = .zero,
    pauseDataAfterBytes: Int? = nil,
    dropLinkAtFirmwareOffsets: [Int] = [], tamperSealedSequence: UInt32? = nil,
    replaySealedSequence: UInt32? = nil, wifiListsExtraRecording: Bool = false,
    tamperKeyMaterialChunk: Int? = nil
  ) {
    self.tamperKeyMaterialChunk = tamperKeyMaterialChunk
    self.wifiListsExtraRecording = wifiListsExtraRecording
    self.tamperSealedSequence = tamperSealedSequence
    self.replaySealedSequence = replaySealedSequence
    self.loseDataFrameEveryBytes = loseDataFrameEveryBytes
    self.stallAfterDataBytes = stallAfterDataBytes
    self.stallDuration = stallDuration
    self.pauseDataAfterBytes = pauseDataAfterBytes
    self.dropLinkAtFirmwareOffsets = dropLinkAtFirmwareOffsets
    self.dropLinkAfterNotifiedBytes = dropLinkAfterNotifiedBytes
    self.dropLinkAt = dropLinkAt
    self.corruptDataFrame = corruptDataFrame
    self.duplicateDataFrame = duplicateDataFrame
    self.dropDataFrame = dropDataFrame
    self.flashFull = flashFull
    self.processingDelay = processingDelay
    self.dropWiFiAfterContentBytes = dropWiFiAfterContentBytes
    self.pauseWiFiContentAfterBytes = pauseWiFiContentAfterBytes
    self.refuseWiFiOpen = refuseWiFiOpen
    self.refuseHotspotJoins = refuseHotspotJoins
  }

  /// No faults.
  public static let none = FaultPlan()
}

/// What the device has done, for tests, benchmarks and the CLI's manifest.
public struct DeviceCounters: Sendable, Equatable {
  /// Notifications sent (all characteristics), and their bytes.
  public var framesNotified = 0
  public var bytesNotified = 0
  /// Bulk data frames sent (terminal frames excluded), and their file bytes.
  public var dataFramesSent = 0
  public var dataBytesSent = 0
  /// Writes that reached the device.
  public var writesReceived = 0
  /// Mode B: sealed writes refused (did not authenticate, or their sequence did not follow
  /// by ``ModeBParameters/sequencePolicy``).
  public var refusedSealedWrites = 0
  /// Mode B: `FE10`/`FE20` messages whose serial signature was not the required one
  /// (``ModeBParameters/requiredSerialSignature``), left unanswered.
  public var refusedSerialSignatures = 0
  /// Mode B: plain HANDSHAKE writes that reached the device before its channel was open: a
  /// token sent in clear to a Mode B device (ignored, as every plain write then is).
  public var clearHandshakes = 0
  /// Writes that did not decode as a phone frame or message.
  public var malformedWrites = 0
  /// Requests ignored: before HANDSHAKE, or after a rejected token.
  public var ignoredRequests = 0
  /// DEPAIRs received, and those with the clear byte set.
  public var depairs = 0
  public var depairsClearing = 0
  /// Frames the device refused to send because they exceed MTU − 3.
  public var oversizeFramesRefused = 0
  /// Notifications dropped because the central had not subscribed.
  public var notificationsUnsubscribed = 0
  public var connectionEvents = 0
  public var connections = 0
  public var reboots = 0
  /// Wi-Fi: hotspots raised, joins accepted (each starts a session), joins refused.
  public var hotspotsRaised = 0
  public var wifiSessions = 0
  public var wifiJoinsRefused = 0
  /// Wi-Fi: joins accepted while a session was still active (the phone is on the network
  /// already): the device connects to the newest one's server once that session ends.
  public var wifiJoinsWhileActive = 0
  /// Wi-Fi: recording bytes sent in content PDUs.
  public var wifiContentBytesSent = 0
  /// OTA `03` frames lost for arriving sooner than ``OTAParameters/minimumFrameInterval``.
  public var firmwareFramesLost = 0
  /// Device time from the first to the last `03` frame of the latest push.
  public var firmwareFrameSpan: Duration = .zero
  /// Wi-Fi: phone messages received, and those that were not a §6 PDU the device knows.
  public var wifiMessagesReceived = 0
  public var wifiMalformedMessages = 0
  /// Wi-Fi: PONGs received (answers to the device's PINGs).
  public var wifiPongsReceived = 0
  /// Wi-Fi: hotspots that quit after the idle timeout.
  public var wifiIdleCloses = 0
  /// WIFI_OPEN requests, and those that carried a password.
  public var wifiOpens = 0
  public var wifiOpensWithPassword = 0
  /// Wi-Fi STOPs refused for lacking `{session, scene}`.
  public var wifiStopsRejected = 0
  /// Firmware image bytes received in `03` frames (resends included).
  public var firmwareBytesReceived = 0
  /// The most data bytes one `03` frame carried (80 or 160, PROTOCOL.md §7).
  public var largestFirmwareFrame = 0
  /// CAPABILITY bitmaps pushed, and the host's answers: those that were `FF` and the others
  /// (PROTOCOL.md §3.1).
  public var capabilityPushes = 0
  public var capabilityAnswers = 0
  public var capabilityWrongAnswers = 0

  public init() {}
}

/// One DELETE the device served (the CLI's manifest writes these).
public struct DeleteRecord: Sendable, Equatable {
  public var sessionId: SessionID
  /// Virtual time since the clock's origin.
  public var virtualTime: Duration
  /// The device's clock (unix seconds) at the time.
  public var unixTime: UInt32
}

/// A recording on the emulated flash.
public struct RecordingInfo: Sendable, Equatable {
  /// Start time, unix seconds.
  public var sessionId: SessionID
  /// Bytes of raw device audio (what LIST reports).
  public var size: Int
  public var scene: UInt8
  /// True while the device is still recording it.
  public var isRecording: Bool
  /// Duration as LIST implies: size / (80 × channels) × 20 ms.
  public var durationMs: Int
  /// Lower-case hex SHA-256 of the file; nil unless asked for.
  public var sha256: String?
  /// The file on the host.
  public var path: String
}
