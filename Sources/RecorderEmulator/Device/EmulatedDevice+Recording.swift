import RecorderAudio
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol

/// A recording in progress. Its file grows with virtual time: frames are appended lazily
/// whenever anyone looks (LIST, SYNC, STORAGE, ``EmulatedDevice/recordings(includingDigests:)``)
/// up to the frames completed by then, which is indistinguishable from appending every 20 ms.
struct LiveRecording {
  let sessionId: SessionID
  let scene: UInt8
  /// Where in the content cycle this recording's audio starts.
  let phase: Int
  var framesWritten = 0
  var paused = false
  /// Virtual time of the last start or resume, and the frames written before it.
  var activeSince: Duration
  var framesAtActiveStart = 0
  /// The page builder of a device that records Ogg (``DeviceConfiguration/oggAudio``): whole
  /// pages are written as their frames complete, the rest (end-of-stream) at the stop.
  var ogg: DeviceOggWriter?

  static let frameDuration = Duration.milliseconds(20)

  /// Frames complete at `instant` (ignoring limits).
  func framesCompleted(at instant: Duration) -> Int {
    guard !paused else { return framesWritten }
    let elapsed = max(0, nanoseconds(instant - activeSince))
    return framesAtActiveStart + Int(elapsed / nanoseconds(Self.frameDuration))
  }

  /// When frame number `count` (1-based) completes.
  func completionTime(ofFrame count: Int) -> Duration {
    activeSince + Self.frameDuration * (count - framesAtActiveStart)
  }
}

// Recording: the app's REC_* commands, the device's buttons, the flash helpers.
extension EmulatedDevice {
  /// A page builder for a new recording when the device records Ogg, else nil.
  func oggWriter(for sessionId: SessionID) -> DeviceOggWriter? {
    guard configuration.oggAudio,
      let format = try? DeviceAudioFormat(channels: Int(configuration.audioChannels))
    else { return nil }
    return DeviceOggWriter(
      format: format, serial: sessionId.rawValue, stereoLayout: configuration.stereoLayout)
  }

  /// The content cycle, encoded on first use.
  func content() throws(EmulatorError) -> RecordingContent {
    if let cachedContent { return cachedContent }
    let made = try RecordingContent(
      channels: Int(configuration.audioChannels), seed: configuration.seed,
      layout: configuration.stereoLayout)
    cachedContent = made
    return made
  }

  var maximumRecordingFrames: Int {
    Int(nanoseconds(configuration.maximumRecordingDuration) / nanoseconds(.milliseconds(20)))
  }

  /// Appends the frames the live recording has completed by `instant`; stops it (with an
  /// unsolicited REC_STOP) when it hits the flash's end or the length limit.
  func materializeRecording(at instant: Duration) {
    guard var live = recording, !live.paused else { return }
    let bytesPerFrame = configuration.bytesPerFrame
    let room = live.framesWritten + Int(freeBytes / UInt64(bytesPerFrame))
    let limit = min(maximumRecordingFrames, room)
    var target = min(live.framesCompleted(at: instant), limit)
    if let ogg = live.ogg, target < limit {
      target =
        live.framesWritten + (target - live.framesWritten) / ogg.framesPerPage * ogg.framesPerPage
    }
    if target > live.framesWritten, let source = try? content() {
      var first = live.framesWritten
      while first < target {
        let count = min(5_000, target - first)
        var bytes = source.frames(phase: live.phase, first: first, count: count)
        if live.ogg != nil { bytes = live.ogg!.pages(frames: bytes, last: false) }
        guard (try? flash.append(bytes, to: live.sessionId)) != nil else { break }
        first += count
      }
      live.framesWritten = first
      recording = live
    }
    if live.framesWritten >= limit {
      let reason =
        live.framesWritten >= maximumRecordingFrames
        ? RecordingStopReason.lengthLimit : RecordingStopReason.flashFull
      stopRecording(reason: reason, notify: true)
    }
  }

  /// Starts a recording now; nil when the flash is full or one is already running.
  private func beginRecording(scene: UInt8) -> LiveRecording? {
    guard recording == nil, freeBytes >= UInt64(configuration.bytesPerFrame) else { return nil }
    var sessionId = SessionID(unixTimeNow)
    while flash.entries[sessionId] != nil { sessionId = SessionID(sessionId.rawValue &+ 1) }
    guard (try? flash.create(sessionId: sessionId, scene: scene)) != nil else { return nil }
    let cycle = (try? content().cycleFrames) ?? 1
    var live = LiveRecording(
      sessionId: sessionId, scene: scene, phase: Int(sessionId.rawValue) % max(1, cycle),
      activeSince: time.now)
    if var ogg = oggWriter(for: sessionId) {
      guard (try? flash.append(ogg.headerPages(), to: sessionId)) != nil else { return nil }
      live.ogg = ogg
    }
    recording = live
    armRecordingTimer()
    return live
  }

  /// Wakes the device when the live recording will hit its limit, so it stops on time even
  /// if nobody looks.
  private func armRecordingTimer() {
    recordingTimer?.cancel()
    recordingGeneration += 1
    guard let live = recording, !live.paused else { return }
    let room = live.framesWritten + Int(freeBytes / UInt64(configuration.bytesPerFrame))
    let limit = min(maximumRecordingFrames, room)
    // The recording's end (its limit, or a full flash), or the next flash write before it:
    // a device that records writes its flash about every second, so an idle simulation
    // moves a recording on by that much, never at once to its end.
    let at = min(live.completionTime(ofFrame: limit), time.now + Self.flashWriteInterval)
    let generation = recordingGeneration
    let time = self.time
    recordingTimer = Task {
      do { try await time.sleep(until: at) } catch { return }
      self.recordingTimerFired(generation)
    }
  }

  private func recordingTimerFired(_ generation: Int) {
    guard generation == recordingGeneration else { return }
    materializeRecording(at: time.now)
    markBusy()  // a following sync may now end
    if recording != nil { armRecordingTimer() }
  }

  /// How often a recording device writes its flash (the emulator's recording timer).
  static let flashWriteInterval: Duration = .seconds(1)

  /// Ends the live recording (its file stays), telling an authenticated central when
  /// `notify`.
  func stopRecording(reason: UInt8, notify: Bool) {
    guard recording != nil else { return }
    materializeRecordingWithoutLimits()
    guard let live = recording else { return }
    recording = nil
    recordingTimer?.cancel()
    recordingGeneration += 1
    if notify { sendUnsolicited(.recordStopped(stopped(live, reason: reason))) }
    markBusy()
  }

  /// Like ``materializeRecording(at:)`` without the limit check (used while stopping).
  private func materializeRecordingWithoutLimits() {
    guard var live = recording, !live.paused else { return }
    let room = live.framesWritten + Int(freeBytes / UInt64(configuration.bytesPerFrame))
    let target = min(live.framesCompleted(at: time.now), maximumRecordingFrames, room)
    guard let source = try? content() else { return }
    var bytes = source.frames(
      phase: live.phase, first: live.framesWritten, count: max(0, target - live.framesWritten))
    // The stop ends an Ogg stream: its last page (end-of-stream) holds the frames left.
    if live.ogg != nil { bytes = live.ogg!.pages(frames: bytes, last: true) }
    if (try? flash.append(bytes, to: live.sessionId)) != nil {
      live.framesWritten = max(target, live.framesWritten)
    }
    recording = live
  }

  private func stopped(_ live: LiveRecording, reason: UInt8) -> RecordStopped {
    RecordStopped(
      sessionId: live.sessionId, reason: reason, fileExists: 1,
      fileSize: UInt32(
        clamping: flash.entries[live.sessionId]?.size
          ?? live.framesWritten * configuration.bytesPerFrame))
  }

  private func started(_ live: LiveRecording, status: UInt8) -> RecordStarted {
    RecordStarted(
      sessionId: live.sessionId,
      start: UInt32(clamping: live.framesWritten * configuration.bytesPerFrame),
      status: status, scene: live.scene, startTime: live.sessionId.rawValue)
  }

  private func sendUnsolicited(_ message: DeviceMessage) {
    guard connection?.authenticated == true else { return }
    notify(message.encoded(portVersion: portVersion))
  }

  private func pause() -> LiveRecording? {
    materializeRecordingWithoutLimits()
    guard var live = recording, !live.paused else { return nil }
    live.paused = true
    recording = live
    armRecordingTimer()
    return live
  }

  private func resume() -> LiveRecording? {
    guard var live = recording, live.paused else { return nil }
    live.paused = false
    live.activeSince = time.now
    live.framesAtActiveStart = live.framesWritten
    recording = live
    armRecordingTimer()
    markBusy()
    return live
  }

  // MARK: The app's commands

  func appStartsRecording(_ command: RecordCommand, readyAt: Duration) {
    if let live = beginRecording(scene: command.scene) {
      notify(
        DeviceMessage.recordStarted(started(live, status: 0)).encoded(portVersion: portVersion),
        readyAt: readyAt)
    } else {
      let current = recording.map { started($0, status: 1) }
      notify(
        DeviceMessage.recordStarted(current ?? RecordStarted(sessionId: 0, start: 0, status: 1))
          .encoded(portVersion: portVersion), readyAt: readyAt)
    }
  }

  func appPausesRecording(readyAt: Duration) {
    let live = pause() ?? recording
    let message = RecordStopped(
      sessionId: live?.sessionId ?? 0, reason: live == nil ? 1 : 0, fileExists: live == nil ? 0 : 1,
      fileSize: UInt32(clamping: (live?.framesWritten ?? 0) * configuration.bytesPerFrame))
    notify(DeviceMessage.recordPaused(message).encoded(portVersion: portVersion), readyAt: readyAt)
  }

  func appResumesRecording(readyAt: Duration) {
    let live = resume()
    let message = live.map { started($0, status: 0) } ?? recording.map { started($0, status: 1) }
    notify(
      DeviceMessage.recordResumed(message ?? RecordStarted(sessionId: 0, start: 0, status: 1))
        .encoded(portVersion: portVersion), readyAt: readyAt)
  }

  func appStopsRecording(readyAt: Duration) {
    guard recording != nil else {
      notify(
        DeviceMessage.recordStopped(RecordStopped(sessionId: 0, reason: 1, fileExists: 0))
          .encoded(portVersion: portVersion), readyAt: readyAt)
      return
    }
    materializeRecordingWithoutLimits()
    guard let live = recording else { return }
    recording = nil
    recordingTimer?.cancel()
    recordingGeneration += 1
    notify(
      DeviceMessage.recordStopped(stopped(live, reason: RecordingStopReason.requested))
        .encoded(portVersion: portVersion), readyAt: readyAt)
    markBusy()
  }

  // MARK: The device's buttons

  /// The user starts a recording on the device; an authenticated central gets an
  /// unsolicited REC_START. Returns the session id, nil if refused (already recording, flash
  /// full).
  @discardableResult
  public func startRecordingOnDevice(scene: UInt8 = 1) -> SessionID? {
    guard let live = beginRecording(scene: scene) else { return nil }
    sendUnsolicited(.recordStarted(started(live, status: 0)))
    return live.sessionId
  }

  /// The user pauses the recording (unsolicited REC_PAUSE).
  public func pauseRecordingOnDevice() {
    guard let live = pause() else { return }
    sendUnsolicited(.recordPaused(stopped(live, reason: RecordingStopReason.requested)))
  }

  /// The user resumes the recording (unsolicited REC_RESUME).
  public func resumeRecordingOnDevice() {
    guard let live = resume() else { return }
    sendUnsolicited(.recordResumed(started(live, status: 0)))
  }

  /// The user stops the recording (unsolicited REC_STOP).
  public func stopRecordingOnDevice() {
    stopRecording(reason: RecordingStopReason.requested, notify: true)
  }

  /// The live recording's session id, nil when not recording.
  public var recordingSessionId: SessionID? { recording?.sessionId }

  // MARK: Populating the flash

  /// The user key new recordings are encrypted to: the configured one, else the owner's
  /// when the model encrypts to it (``ModeBParameters/encryptsToOwnerKey``); nil: plain.
  var recordingKey: RSAPublicKey? {
    configuration.modeB.e2eeUserKey ?? (configuration.modeB.encryptsToOwnerKey ? userKey : nil)
  }

  /// Writes a finished recording of `duration` (rounded down to 20 ms frames) of real
  /// speech-like Opus audio to the flash, streaming (memory does not depend on length).
  /// - Parameters:
  ///   - duration: its length.
  ///   - scene: its scene (1 normal, 7 call).
  ///   - sessionId: its start time; default: ending a minute before the device's clock
  ///     now, moved earlier if taken.
  ///   - contentPhase: where in the generated speech it starts, in frames; default: from
  ///     the session id. Another phase with the same id and length gives the same size with
  ///     other audio (a device reset and re-recorded).
  /// - Throws: ``EmulatorError/duplicateSession(_:)``, ``EmulatorError/flashFull(neededBytes:freeBytes:)``,
  ///   flash I/O or encoder errors.
  @discardableResult
  public func addRecording(
    duration: Duration, scene: UInt8 = 1, sessionId: SessionID? = nil, contentPhase: Int? = nil
  ) throws(EmulatorError) -> RecordingInfo {
    let frames = Int(nanoseconds(duration) / nanoseconds(.milliseconds(20)))
    let bytesPerFrame = configuration.bytesPerFrame
    let e2ee = try recordingKey.map { key throws(EmulatorError) in
      try E2EEEncryption(
        for: key, channels: UInt16(configuration.audioChannels),
        counterField: configuration.modeB.e2eeCounterField,
        startsAtCounterField: configuration.modeB.e2eeStartsAtCounterField,
        segment: configuration.modeB.e2eeSegment)
    }
    // Ogg: each packet gains its lacing byte (and a stereo one its length byte), each page
    // of 50 its 27-byte header; the two header pages stay under 1 KiB.
    let perFrame =
      configuration.oggAudio ? bytesPerFrame + Int(configuration.audioChannels) + 1 : bytesPerFrame
    let needed = UInt64(
      frames * perFrame + (configuration.oggAudio ? 1024 : 0)
        + (e2ee == nil ? 0 : E2EEFileHeader.length))
    guard needed <= freeBytes else { throw .flashFull(neededBytes: needed, freeBytes: freeBytes) }
    var id =
      sessionId ?? SessionID(unixTimeNow &- UInt32(clamping: duration.components.seconds + 60))
    if sessionId == nil {
      while flash.entries[id] != nil { id = SessionID(id.rawValue &- 1) }
    }
    let source = try content()
    try flash.create(sessionId: id, scene: scene)
    if let e2ee { try flash.append(e2ee.header.encoded, to: id) }
    var ogg = oggWriter(for: id)
    if var header = ogg?.headerPages() {
      try e2ee?.apply(&header)
      try flash.append(header, to: id)
    }
    let phase = (contentPhase ?? Int(id.rawValue)) % source.cycleFrames
    var first = 0
    repeat {
      let count = min(5_000, frames - first)
      var bytes = source.frames(phase: phase, first: first, count: count)
      if ogg != nil { bytes = ogg!.pages(frames: bytes, last: first + count >= frames) }
      try e2ee?.apply(&bytes)
      try flash.append(bytes, to: id)
      first += count
    } while first < frames
    let path = flash.path(of: id) ?? ""
    return RecordingInfo(
      sessionId: id, size: flash.entries[id]?.size ?? Int(needed), scene: scene, isRecording: false,
      durationMs: frames * 20, sha256: nil, path: path)
  }

  /// Frames `first ..< first + count` of the audio ``addRecording(duration:scene:sessionId:contentPhase:)``
  /// writes for `sessionId` with the same `contentPhase`, as raw device bytes before any
  /// container or encryption: what a test compares a decrypted export with.
  /// - Throws: encoder errors.
  public func plainFrames(
    of sessionId: SessionID, contentPhase: Int? = nil, first: Int, count: Int
  ) throws(EmulatorError) -> [UInt8] {
    let source = try content()
    let phase = (contentPhase ?? Int(sessionId.rawValue)) % source.cycleFrames
    return source.frames(phase: phase, first: first, count: count)
  }

  /// Removes a finished recording from the flash, as the device's own erase would (no
  /// DELETE is logged); false when there is none.
  @discardableResult
  public func eraseRecording(_ sessionId: SessionID) -> Bool {
    guard recording?.sessionId != sessionId else { return false }
    return flash.delete(sessionId)
  }

  /// Fills the flash with `count` recordings of seeded, varied lengths (half under 1.5 min,
  /// a third up to 15 min, the rest up to 40 min), one after another ending before the
  /// device's clock now. The same seed gives the same recordings.
  @discardableResult
  public func populate(count: Int, seed: UInt64? = nil) throws(EmulatorError) -> [RecordingInfo] {
    var random = SplitMix64(seed: seed ?? configuration.seed)
    var lengths: [Int] = []
    for _ in 0..<count {
      let kind = random.next(in: 0...5)
      switch kind {
      case 0...2: lengths.append(random.next(in: 5...90))
      case 3...4: lengths.append(random.next(in: 90...900))
      default: lengths.append(random.next(in: 900...2400))
      }
    }
    var start = Int64(unixTimeNow) - lengths.reduce(0) { $0 + Int64($1) + 600 }
    var made: [RecordingInfo] = []
    for seconds in lengths {
      var id = SessionID(UInt32(clamping: start))
      while flash.entries[id] != nil { id = SessionID(id.rawValue &+ 1) }
      let scene: UInt8 = random.next(in: 0...9) == 0 ? 7 : 1
      made.append(try addRecording(duration: .seconds(seconds), scene: scene, sessionId: id))
      start += Int64(seconds) + Int64(random.next(in: 120...1200))
    }
    return made
  }
}
