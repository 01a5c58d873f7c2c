import RecorderProtocol

// The firmware: what the device does with each phone frame (PROTOCOL.md §3, §4).
extension EmulatedDevice {
  /// Handles one write that reached the device at `instant`. Never traps on any bytes:
  /// undecodable writes are counted and ignored.
  func handleWrite(_ sealedValue: [UInt8], at instant: Duration) {
    counterValues.writesReceived += 1
    // The phone spoke: a paused sync goes on once this write is handled (a SYNC_STOP has
    // ended it by then).
    let wasPaused = connection?.dataPaused == true
    defer { if wasPaused { endDataPause() } }
    guard let link = connection else { return }
    var value = sealedValue
    if speaksModeB {
      guard link.channel != nil else {
        trace(.written(sealedValue))
        handlePreHandshakeWrite(sealedValue, at: instant)
        return
      }
      guard let opened = openSealedWrite(sealedValue) else { return }
      value = opened
    }
    trace(.written(value))
    let control: ControlFrame
    do {
      switch try Frame(decoding: value, portVersion: portVersion) {
      case .control(let frame): control = frame
      case .ota(let frame) where link.authenticated:
        receiveFirmwareData(frame, at: instant)
        return
      default:
        counterValues.ignoredRequests += 1
        return
      }
    } catch {
      counterValues.malformedWrites += 1
      return
    }
    let message: PhoneMessage
    do {
      message = try PhoneMessage(control, portVersion: portVersion)
    } catch {
      counterValues.malformedWrites += 1
      return
    }
    let readyAt = instant + faults.processingDelay
    guard link.authenticated else {
      if case .handshake(let request) = message, !link.rejected {
        // A Mode B device is slow to answer HANDSHAKE too (``ModeBParameters/replyDelay``).
        handshake(
          request, readyAt: readyAt + (speaksModeB ? configuration.modeB.replyDelay : .zero))
      } else {
        counterValues.ignoredRequests += 1
      }
      return
    }
    respond(to: message, readyAt: readyAt)
  }

  /// Lets one more data frame out of a sync paused by ``FaultPlan/pauseDataAfterBytes``; the
  /// stream pauses again behind it (still waiting for the phone's next write, the manual
  /// clock still held). For a phone that acts only when data arrives (a download that
  /// refuses its next frame once told to stop, then sends SYNC_STOP): a test asks for the
  /// stop, then steps. A step asked for before the stream reaches its pause is taken there;
  /// ``setFaults(_:)`` and a new connection forget steps not taken.
  public func stepData() {
    guard connection != nil else { return }
    connection?.dataPauseSteps += 1
    markBusy()
  }

  /// Ends a pause of ``FaultPlan/pauseDataAfterBytes`` (if any): the sync stream may go on.
  func endDataPause() {
    guard connection?.dataPaused == true else { return }
    connection?.dataPaused = false
    connection?.dataPauseHold?.end()
    connection?.dataPauseHold = nil
    markBusy()
  }

  func reply(_ message: DeviceMessage, readyAt: Duration) {
    notify(message.encoded(portVersion: portVersion), readyAt: readyAt)
  }

  private func handshake(_ request: HandshakeRequest, readyAt: Duration) {
    var accepted =
      request.token.normalized(portVersion: portVersion)
      == (ownerToken ?? configuration.token).normalized(portVersion: portVersion)
    if !accepted, awaitingNewOwner {
      // Unbound by a DEPAIR: whoever hand-shakes next owns it.
      ownerToken = request.token
      awaitingNewOwner = false
      accepted = true
    }
    connection?.authenticationTimer?.cancel()
    connection?.authenticationTimer = nil
    if accepted, configuration.twoStageHandshake {
      let secondStage = connection?.awaitingSecondStage == true && request.appVerify == 1
      guard secondStage else {
        // The first stage (or a repeat of it): the serial, and the wait for the second.
        connection?.awaitingSecondStage = true
        reply(
          .serial(SerialResponse(serial: configuration.serial, firmware: firmware)),
          readyAt: readyAt)
        return
      }
      let sent = request.secondStage?.deviceToken ?? Array(repeating: 0, count: 8)
      if let required = configuration.secondStageDeviceToken, required != sent {
        connection?.rejected = true
        sendHandshakeReply(status: HandshakeStatus.serialCheckFailed, readyAt: readyAt)
        return
      }
    }
    if accepted {
      connection?.authenticated = true
    } else if speaksModeB, configuration.modeB.boundToAnotherAccount, let link = connection {
      // Locked to another account: no status, the link goes.
      disconnect(link.id, reason: .remoteTerminated)
      return
    } else {
      connection?.rejected = true
    }
    sendHandshakeReply(
      status: accepted ? HandshakeStatus.ok : HandshakeStatus.tokenMismatch, readyAt: readyAt)
  }

  private func sendHandshakeReply(status: HandshakeStatus, readyAt: Duration) {
    reply(
      .handshake(
        HandshakeResponse(
          status: status.rawValue, portVersion: portVersion, tzHours: tzHours,
          tzMinutes: tzMinutes, audioChannels: configuration.audioChannels,
          supportWifi: configuration.supportWifi, noNsAgc: 0,
          oggAudio: (configuration.oggAudioFlag ?? configuration.oggAudio) ? 1 : 0,
          firmware: firmware)),
      readyAt: readyAt)
    if status == .ok { pushCapability(readyAt: readyAt) }
  }

  // swift-format-ignore: CyclomaticComplexity
  private func respond(to message: PhoneMessage, readyAt: Duration) {
    switch message {
    case .handshake(let request): handshake(request, readyAt: readyAt)
    case .getSerial:
      reply(
        .serial(SerialResponse(serial: configuration.serial, firmware: firmware)),
        readyAt: readyAt)
    case .getState: reply(.state(deviceState()), readyAt: readyAt)
    case .timeSync(let request):
      clockCorrection +=
        Int64(request.unixSeconds) - Int64(unixTime(at: time.now))
      tzHours = request.tzHours
      tzMinutes = request.tzMinutes
      reply(
        .timeSync(TimeSyncResponse(unixSeconds: unixTime(at: time.now), tzHours: tzHours)),
        readyAt: readyAt)
    case .depair(let clearFiles):
      counterValues.depairs += 1
      if clearFiles != 0 {
        counterValues.depairsClearing += 1
        // Either reading: every connection is forgotten; under the worst one, recordings too.
        if configuration.depairClearErasesRecordings { clearAllRecordings() }
      }
      // A Mode B device forgets its owner (PROTOCOL.md §4's recovery ends with this DEPAIR).
      if speaksModeB { awaitingNewOwner = true }
      if configuration.depairChangesAddress { addressChangeOwed = true }
      reply(.depair(status: 0), readyAt: readyAt)
    case .storage: reply(.storage(storageInfo()), readyAt: readyAt)
    case .settings(let request):
      if case .write(let setting, let value) = request { settings[setting] = value }
      let value = settings[request.setting] ?? 0
      reply(.setting(SettingValue(setting: request.setting, value: value)), readyAt: readyAt)
    case .battery:
      let status =
        configuration.batteryReplyIncludesCharging
        ? BatteryStatus(level: batteryLevel, charging: charging ? 1 : 0)
        : BatteryStatus(level: batteryLevel)
      reply(.battery(status), readyAt: readyAt)
    case .wifiOpen(let request): reply(.wifiOpen(openWiFi(request)), readyAt: readyAt)
    case .wifiClose:
      closeWiFi()
      // The SDK awaits the WIFI_CLOSE reply as opcode 000A [sdk].
      reply(.wifiOpen(WiFiOpenResponse(status: 0)), readyAt: readyAt)
    case .setPrivacy(let on):
      privacy = on
      reply(.privacy(on: on), readyAt: readyAt)
    case .clearAll:
      clearAllRecordings()
      reply(.clearAll(status: 0), readyAt: readyAt)
    case .disconnectMe:
      if let link = connection { disconnect(link.id, reason: .remoteTerminated) }
    case .setName(let newName):
      name = String(decoding: newName.name.utf8.prefix(DeviceName.setNameWidth), as: UTF8.self)
      reply(.name(nameField()), readyAt: readyAt)
    case .getName: reply(.name(nameField()), readyAt: readyAt)
    case .setActive(let value):
      active = value
      reply(.active(value), readyAt: readyAt)
    case .ping: reply(.pong([]), readyAt: readyAt)
    case .recordStart(let command): appStartsRecording(command, readyAt: readyAt)
    case .recordPause: appPausesRecording(readyAt: readyAt)
    case .recordResume: appResumesRecording(readyAt: readyAt)
    case .recordStop: appStopsRecording(readyAt: readyAt)
    case .list(let request): list(request, readyAt: readyAt)
    case .syncStart(let request): startSync(request, readyAt: readyAt)
    case .syncStop:
      connection?.sync = nil
      reply(.syncStopped, readyAt: readyAt)
    case .delete(let sessionId): delete(sessionId, readyAt: readyAt)
    case .ledGet: reply(.ledGet(on: led), readyAt: readyAt)
    case .ledSet(let on):
      led = on
      reply(.ledSet(on: on), readyAt: readyAt)
    case .tags(let request): sendTags(request, readyAt: readyAt)
    case .firmwarePush(let push): startFirmwareUpdate(push, readyAt: readyAt)
    case .firmwareDone(let done): phoneSentFirmware(done, readyAt: readyAt)
    case .capability(let bitmap): hostAnsweredCapability(bitmap)
    case .webSocketSettings(let request):
      if case .set(let type, let value) = request { webSocketSettings[type] = value }
      let type = request.type
      reply(
        .webSocketSetting(WebSocketSettingValue(type: type, value: webSocketSettings[type] ?? [])),
        readyAt: readyAt)
    case .coprocessorVersion, .otaResumeInfo, .uploadBegin, .uploadChunk, .uploadCheck, .unknown:
      // The coprocessor query, OTA resume and the upload opcodes are outside this emulator's
      // device model, and unknown opcodes are unknown: each is counted and ignored, as the
      // device ignores opcodes it does not know [project].
      counterValues.ignoredRequests += 1
    }
  }

  /// GET_NAME's reply: V0095 sent the name in a 14-byte field (§11 vector 14) [device].
  private func nameField() -> DeviceName { DeviceName(name, fieldWidth: 14) }

  /// GET_STATE: `state` 1 idle, ``DeviceConfiguration/recordingStateCode`` (4099 [sdk-code]
  /// or 2 [project]) recording, 3 paused [project]; keyState 1 (record) while recording
  /// [sdk-code], else 4 as captured idle [device].
  private func deviceState() -> DeviceState {
    let state: UInt32
    var key = KeyState.switchOff
    switch recording {
    case nil: state = 1
    case .some(let live):
      state = live.paused ? DeviceState.projectPausedState : configuration.recordingStateCode
      if !live.paused { key = .record }
    }
    return DeviceState(
      state: state, privacy: privacy, keyState: key.rawValue, usb: 0,
      scene: recording?.scene ?? 0,
      sessionId: recording?.sessionId ?? 0)
  }

  /// Free bytes the flash has for recordings (0 under the flash-full fault).
  var freeBytes: UInt64 {
    guard !faults.flashFull else { return 0 }
    let used = configuration.flashSystemBytes + flash.usedBytes
    return configuration.flashCapacity > used ? configuration.flashCapacity - used : 0
  }

  /// STORAGE: `remaining` = (free − 10 513 856) / 68 ms, rounded down to whole seconds: this
  /// reproduces §11 vector 6 exactly (a fit to one capture) [project].
  func storageInfo() -> StorageInfo {
    materializeRecording(at: time.now)
    let free = freeBytes
    let usable = free > 10_513_856 ? free - 10_513_856 : 0
    return StorageInfo(
      freeBytes: free, totalBytes: configuration.flashCapacity,
      remaining: usable / 68 / 1000 * 1000)
  }

  // MARK: Files

  private func list(_ request: ListRequest, readyAt: Duration) {
    materializeRecording(at: time.now)
    var ids = flash.sessionIds.filter { $0 > request.afterSession }
    if request.onlyOne == 1 { ids = Array(ids.prefix(1)) }
    let entries = ids.compactMap { id -> ListEntry? in
      guard let entry = flash.entries[id] else { return nil }
      return ListEntry(
        sessionId: id, size: UInt32(clamping: entry.size), scene: entry.scene,
        attribute: recording?.sessionId == id ? 1 : 0)
    }
    let mtu = connection?.mtu ?? LinkParameters.minimumMTU
    let perFrame = ListPage.entriesPerFrame(mtu: mtu, portVersion: portVersion)
    let total = UInt16(clamping: entries.count)
    var index = 0
    repeat {
      let page = Array(entries[index..<min(entries.count, index + perFrame)])
      reply(
        .listPage(
          ListPage(
            requestTag: request.requestTag, total: total, index: UInt16(clamping: index),
            entries: page)),
        readyAt: readyAt)
      index += perFrame
    } while index < entries.count
  }

  private func startSync(_ request: SyncStartRequest, readyAt: Duration) {
    materializeRecording(at: time.now)
    connection?.sync = nil
    let id = request.sessionId
    let live = recording?.sessionId == id
    let start = Int(request.start)
    let end: Int? = request.end == 0 ? nil : Int(request.end)
    guard let entry = flash.entries[id], start < entry.size || (live && start == entry.size),
      end.map({ $0 > start }) ?? true
    else {
      reply(.syncHead(SessionStatus(sessionId: id, status: 1)), readyAt: readyAt)
      return
    }
    reply(.syncHead(SessionStatus(sessionId: id, status: 0)), readyAt: readyAt)
    // The recording in progress, to its end: followed, or only what exists now (the tail
    // then comes at once when nothing new was recorded).
    let snapshot = live && end == nil && configuration.liveSync == .sendsRecordedSoFar
    connection?.sync = SyncStream(
      sessionId: id, nextOffset: start, end: snapshot ? entry.size : end, readyAt: readyAt)
  }

  /// When the sync stream has something to send: now (data or the end), the moment a live
  /// recording completes its next frame, or nil (paused: nothing until it resumes).
  func streamReadyTime(_ stream: SyncStream, now: Duration) -> Duration? {
    materializeRecording(at: now)
    // Stalled: nothing to send; the stall's timer wakes the pump when it ends. The link stays
    // idle meanwhile (a simulation's other timers, the central's silence watchdog among them,
    // fire in their order), and writes are still served.
    if let until = stallUntil, now < until { return nil }
    // Paused for the phone: handleWrite (or a step) wakes the pump.
    if connection?.dataPaused == true, connection?.dataPauseSteps == 0 { return nil }
    let size = flash.entries[stream.sessionId]?.size ?? 0
    let ready = max(stream.readyAt, now)
    if let end = stream.end, stream.nextOffset >= end { return ready }
    if stream.nextOffset < min(size, stream.end ?? Int.max) { return ready }
    guard let live = recording, live.sessionId == stream.sessionId else { return ready }
    guard !live.paused else { return nil }
    let neededFrames = stream.nextOffset / configuration.bytesPerFrame + 1
    return max(ready, live.completionTime(ofFrame: neededFrames))
  }

  /// The next data frame of the sync stream, or nil. At the end of the range it queues the
  /// terminal frame and the `001D` tail and ends the stream.
  func nextSyncFrame(at instant: Duration) -> [UInt8]? {
    guard var stream = connection?.sync, stream.readyAt <= instant else { return nil }
    if let limit = faults.stallAfterDataBytes,
      counterValues.dataBytesSent - faultBaseDataBytes >= limit
    {
      faults.stallAfterDataBytes = nil
      let until = instant + faults.stallDuration
      stallUntil = until
      let time = self.time
      Task {
        try? await time.sleep(until: until)
        self.markBusy()
      }
    }
    if let until = stallUntil {
      guard instant >= until else { return nil }
      stallUntil = nil
    }
    if let limit = faults.pauseDataAfterBytes,
      counterValues.dataBytesSent - faultBaseDataBytes >= limit
    {
      faults.pauseDataAfterBytes = nil
      connection?.dataPaused = true
      connection?.dataPauseHold = time.beginWork(.emulatorDataPaused)
    }
    if connection?.dataPaused == true {
      guard let steps = connection?.dataPauseSteps, steps > 0 else { return nil }
      connection?.dataPauseSteps = steps - 1
    }
    materializeRecording(at: instant)
    let size = flash.entries[stream.sessionId]?.size ?? 0
    let live = recording?.sessionId == stream.sessionId
    let limit = min(size, stream.end ?? Int.max)
    let finished =
      stream.end.map { stream.nextOffset >= $0 } ?? false
      || (stream.nextOffset >= limit && !live) || flash.entries[stream.sessionId] == nil
    if finished {
      connection?.sync = nil
      notify(Frame.bulk(.terminal(sessionId: stream.sessionId)).encoded(portVersion: portVersion))
      reply(
        .syncTail(SyncTail(sessionId: stream.sessionId, crc: tailCRC(of: stream))),
        readyAt: instant)
      return nil
    }
    guard stream.nextOffset < limit else { return nil }
    let length = min(configuration.bytesPerFrame, limit - stream.nextOffset)
    let bufferEnd = stream.bufferOffset + stream.buffer.count
    if stream.nextOffset < stream.bufferOffset || stream.nextOffset + length > bufferEnd {
      stream.buffer =
        (try? flash.read(stream.sessionId, offset: stream.nextOffset, count: SyncStream.chunkBytes))
        ?? []
      stream.bufferOffset = stream.nextOffset
      guard stream.buffer.count >= length else {
        connection?.sync = nil  // the file vanished under us: end without a tail
        return nil
      }
    }
    let from = stream.nextOffset - stream.bufferOffset
    let data = Array(stream.buffer[from..<from + length])
    stream.crc.update(data)
    stream.framesCRC.update(
      TailCRCCoverage.frameHeader(
        sessionId: stream.sessionId, offset: UInt32(stream.nextOffset), length: data.count))
    stream.framesCRC.update(data)
    let frame = Frame.bulk(
      BulkFrame(sessionId: stream.sessionId, offset: UInt32(stream.nextOffset), data: data))
    stream.nextOffset += length
    connection?.sync = stream
    return frame.encoded(portVersion: portVersion)
  }

  /// The tail CRC of a finished stream, under the configured coverage (§10).
  private func tailCRC(of stream: SyncStream) -> UInt16 {
    switch configuration.tailCRCCoverage {
    case .requestBytes: return stream.crc.value
    case .requestFrames: return stream.framesCRC.value
    case .fileFromStart:
      var crc = CRC16()
      var offset = 0
      while offset < stream.nextOffset {
        let count = min(SyncStream.chunkBytes, stream.nextOffset - offset)
        guard let chunk = try? flash.read(stream.sessionId, offset: offset, count: count),
          !chunk.isEmpty
        else { break }
        crc.update(chunk)
        offset += chunk.count
      }
      return crc.value
    }
  }

  private func delete(_ sessionId: SessionID, readyAt: Duration) {
    let result = SessionStatus(sessionId: sessionId, status: deleteRecording(sessionId))
    switch configuration.deleteReply {
    case .deleteResult: reply(.deleted(result), readyAt: readyAt)
    case .syncStopOpcode: reply(.deletedAs001E(result), readyAt: readyAt)
    }
  }

  /// Deletes a recording from flash and logs it, for BLE DELETE and Wi-Fi DELETE alike.
  /// Returns the DELETE status: 0 deleted, 1 no such recording, 2 still recording [project].
  func deleteRecording(_ sessionId: SessionID) -> UInt8 {
    if recording?.sessionId == sessionId { return 2 }
    guard flash.delete(sessionId) else { return 1 }
    deletes.append(
      DeleteRecord(sessionId: sessionId, virtualTime: time.now, unixTime: unixTimeNow))
    if connection?.sync?.sessionId == sessionId { connection?.sync = nil }
    return 0
  }

  func clearAllRecordings() {
    if recording != nil { stopRecording(reason: RecordingStopReason.requested, notify: true) }
    connection?.sync = nil
    for id in flash.sessionIds {
      flash.delete(id)
      deletes.append(DeleteRecord(sessionId: id, virtualTime: time.now, unixTime: unixTimeNow))
    }
  }

  private func sendTags(_ request: TagsRequest, readyAt: Duration) {
    let matching = tags.filter {
      $0.time >= request.from && (request.to == 0 || $0.time <= request.to)
    }
    let mtu = connection?.mtu ?? LinkParameters.minimumMTU
    let perFrame = max(1, min(TagsPage.maximumTagsPerFrame, (mtu - 3 - 11) / Tag.width))
    var index = 0
    repeat {
      let page = Array(matching[index..<min(matching.count, index + perFrame)])
      reply(
        .tagsPage(
          TagsPage(
            requestTag: request.requestTag, total: UInt16(clamping: matching.count),
            index: UInt16(clamping: index), tags: page)),
        readyAt: readyAt)
      index += perFrame
    } while index < matching.count
  }
}
