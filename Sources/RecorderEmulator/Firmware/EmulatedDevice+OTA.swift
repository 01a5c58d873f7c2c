import RecorderProtocol

// The firmware-update receiver (PROTOCOL.md §7): FOTA_PUSH → PACK_REQ ranges of `03` frames →
// FOTA_DONE → check → result (`0032`) → install → restart. An image that fails a check is
// dropped and the device keeps running its firmware (no brick); the result says why.
extension EmulatedDevice {
  /// Every firmware update's outcome, oldest first.
  public var firmwareUpdates: [FirmwareUpdateOutcome] { otaOutcomes }

  /// The firmware the device runs now.
  public var runningFirmware: FirmwareVersion { firmware }

  /// Image bytes received so far for the update in progress (nil: none).
  public var firmwareBytesReceived: Int? { otaReceiver?.image.count }

  /// FOTA_PUSH status codes (§7) [sdk].
  enum PushStatus {
    static let accepted: UInt8 = 0
    static let versionMismatch: UInt8 = 2
    static let tooLarge: UInt8 = 4
    static let recording: UInt8 = 7
    static let busy: UInt8 = 9
    static let batteryLow: UInt8 = 11
  }

  /// FOTA result codes (§7) [sdk].
  enum UpdateResult {
    static let ok: UInt8 = 0
    static let sizeMismatch: UInt8 = 3
    static let checkFailed: UInt8 = 4
    static let retriesExhausted: UInt8 = 5
  }

  func startFirmwareUpdate(_ push: FirmwarePush, readyAt: Duration) {
    let header = FirmwarePushHeader(
      uid: push.uid, to: push.to.description, toCode: push.to.code, toType: push.to.type,
      size: Int(push.size), crc: push.crc, silent: push.silent)
    let refusal: UInt8? =
      if restarting || otaReceiver?.verifying == true {
        PushStatus.busy
      } else if recording != nil {
        PushStatus.recording
      } else if batteryLevel < configuration.ota.minimumBattery && !charging {
        PushStatus.batteryLow
      } else if push.from != firmware {
        PushStatus.versionMismatch
      } else if header.size == 0 || header.size > configuration.ota.maximumImageBytes {
        PushStatus.tooLarge
      } else {
        nil
      }
    if let refusal {
      reply(.firmwareStatus(FirmwareStatus(uid: push.uid, status: refusal)), readyAt: readyAt)
      return
    }
    // The same image again (after a disconnect) resumes; anything else starts over.
    if otaReceiver?.push != header { otaReceiver = OTAReceiver(push: header) }
    otaReceiver?.resends = 0
    reply(
      .firmwareStatus(FirmwareStatus(uid: push.uid, status: PushStatus.accepted)), readyAt: readyAt)
    askNextRange(readyAt: readyAt)
  }

  /// PACK_REQ for the next range from the bytes held, or nothing when all are here.
  private func askNextRange(readyAt: Duration) {
    guard var receiver = otaReceiver, receiver.image.count < receiver.push.size else { return }
    let start = receiver.image.count
    receiver.rangeEnd = min(receiver.push.size, start + configuration.ota.rangeBytes)
    otaReceiver = receiver
    reply(
      .packRequest(
        PackRequest(
          uid: receiver.push.uid, start: UInt32(start), end: UInt32(receiver.rangeEnd),
          toVersion: UInt32(receiver.push.toType) << 24 | receiver.push.toCode,
          silent: receiver.push.silent)),
      readyAt: readyAt)
    awaitPushedBytes()
  }

  func receiveFirmwareData(_ frame: OTADataFrame, at instant: Duration) {
    guard var receiver = otaReceiver, !receiver.verifying else {
      counterValues.ignoredRequests += 1
      return
    }
    counterValues.largestFirmwareFrame = max(
      counterValues.largestFirmwareFrame, frame.data.count)
    defer {
      otaReceiver?.lastFrameAt = instant
      let first = receiver.firstFrameAt ?? instant
      otaReceiver?.firstFrameAt = first
      counterValues.firmwareFrameSpan = instant - first
    }
    if let last = receiver.lastFrameAt, instant - last < configuration.ota.minimumFrameInterval {
      // Too soon after the previous frame: lost (the range is re-asked from the bytes held).
      counterValues.firmwareFramesLost += 1
      return
    }
    let offset = Int(frame.offset)
    // Only the next contiguous bytes count; a repeat or a gap is ignored (the range is
    // re-asked from the bytes held).
    guard offset == receiver.image.count, !frame.data.isEmpty else { return }
    let end = min(receiver.push.size, offset + frame.data.count)
    if let index = faults.dropLinkAtFirmwareOffsets.firstIndex(where: { $0 >= offset && $0 < end })
    {
      faults.dropLinkAtFirmwareOffsets.remove(at: index)
      if let link = connection { disconnect(link.id, reason: .linkLoss) }
      return
    }
    receiver.image += frame.data.prefix(end - offset)
    counterValues.firmwareBytesReceived += end - offset
    otaReceiver = receiver
    if receiver.image.count >= receiver.rangeEnd, receiver.image.count < receiver.push.size {
      askNextRange(readyAt: instant)
    } else if receiver.image.count < receiver.rangeEnd {
      awaitPushedBytes()
    }
  }

  /// The rest of the range asked for is the central's to send: time holds until its next
  /// write (it takes real time, none simulated, to queue it), so a push is not charged the
  /// time a busy machine makes the phone wait for a thread.
  private func awaitPushedBytes() {
    if let link = connection {
      awaitCentralWrite(link.id, .emulatorFirmwarePush, horizon: Self.firmwarePushHorizon)
    }
  }

  /// How far time may move while the device awaits the central's next `03` frame: a central
  /// that paces its frames (PROTOCOL.md §7: 18 ms) sleeps on the same clock, and a device
  /// timer further away must not fire while the central has its real time.
  static let firmwarePushHorizon: Duration = .seconds(1)

  func phoneSentFirmware(_ done: FirmwareDone, readyAt: Duration) {
    guard var receiver = otaReceiver, receiver.push.uid == done.uid, !receiver.verifying else {
      return
    }
    guard receiver.image.count >= receiver.push.size else {
      receiver.resends += 1
      otaReceiver = receiver
      guard receiver.resends <= configuration.ota.maximumResends else {
        finishUpdate(UpdateResult.retriesExhausted, readyAt: readyAt)
        return
      }
      askNextRange(readyAt: readyAt)
      return
    }
    receiver.verifying = true
    otaReceiver = receiver
    // Status 2: keep waiting while the image is checked [sdk].
    reply(.firmwareDone(FirmwareDone(uid: done.uid, status: 2)), readyAt: readyAt)
    let result: UInt8
    if receiver.image.count != receiver.push.size {
      result = UpdateResult.sizeMismatch
    } else if CRC16.checksum(receiver.image) != receiver.push.crc
      || !EmulatedFirmwareImage.isValid(
        receiver.image,
        version: FirmwareVersion(type: receiver.push.toType, code: receiver.push.toCode))
    {
      result = UpdateResult.checkFailed
    } else {
      result = UpdateResult.ok
    }
    finishUpdate(result, readyAt: readyAt + configuration.ota.verifyTime)
  }

  /// Reports `result`; a good image is installed and the device restarts into it.
  private func finishUpdate(_ result: UInt8, readyAt: Duration) {
    guard let receiver = otaReceiver else { return }
    otaReceiver = nil
    let target = FirmwareVersion(type: receiver.push.toType, code: receiver.push.toCode)
    let running = result == UpdateResult.ok ? target : firmware
    otaOutcomes.append(
      FirmwareUpdateOutcome(
        uid: receiver.push.uid, target: target.description, result: result,
        runningVersion: running.description))
    reply(
      .firmwareStatus(
        FirmwareStatus(uid: receiver.push.uid, status: result, version: running, silent: 0)),
      readyAt: readyAt)
    guard result == UpdateResult.ok else { return }
    restarting = false
    let time = self.time
    let installAt = readyAt + configuration.ota.installTime
    let backAt = installAt + configuration.ota.restartTime
    otaTimer?.cancel()
    otaTimer = Task {
      do { try await time.sleep(until: installAt) } catch { return }
      self.install(target)
      do { try await time.sleep(until: backAt) } catch { return }
      self.restartFinished()
    }
  }

  private func install(_ version: FirmwareVersion) {
    firmware = version
    restarting = true
    reboot()
  }

  private func restartFinished() {
    restarting = false
    publishAdvertisement()
  }
}
