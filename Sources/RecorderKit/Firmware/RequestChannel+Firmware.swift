import RecorderBluetooth
import RecorderProtocol

/// How a firmware push ended on the device's side.
enum FirmwarePushEnd: Sendable, Equatable {
  /// FOTA_PUSH was answered with a non-zero status (§7): nothing was sent.
  case refused(status: UInt8)
  /// The device checked the image and answered its result (`0032` after FOTA_DONE).
  case result(FirmwareStatus)
}

// The firmware push (PROTOCOL.md §7) on the request channel: FOTA_PUSH, then every PACK_REQ
// answered with `03` frames over its range, FOTA_DONE after the last byte, until the result.
// The push holds the gate from FOTA_PUSH to the result: nothing else is written meanwhile.
extension RequestChannel {
  /// Frames handed to the link at a time: a whole PACK_REQ range (64 KiB on the emulator)
  /// up to this many, so the link's queue is refilled in one step after each connection
  /// event and never runs dry while the phone encodes the next frames.
  static let firmwareBatchFrames = 1024

  /// Frames between two progress reports of a paced push.
  static let pacedProgressFrames = 64

  /// Pushes `image` as the device asks for it, one frame per `interval` when one is given
  /// (else as fast as the link takes them). `sent` gets the image offset reached after
  /// each batch of frames. `silence` bounds every wait for the device (a PACK_REQ, the
  /// result); while this side is still sending what the device asked for, the device is
  /// not silent but waiting, so each frame sent restarts that wait.
  ///
  /// - Throws: ``DeviceError/disconnected(_:)`` (the caller reconnects and pushes again: the
  ///   device resumes from the bytes it holds), ``DeviceError/timeout(operation:)``,
  ///   ``DeviceError/cancelled``.
  func pushFirmware(
    _ push: FirmwarePush, image: [UInt8], frameData: Int, interval: Duration?,
    silence: Duration, sent: @escaping @Sendable (Int) -> Void,
    event: @escaping @Sendable (FirmwareDeviceEvent) -> Void = { _ in }
  ) async throws(DeviceError) -> FirmwarePushEnd {
    try await enterGate()
    defer { leaveGate() }
    let uid = push.uid
    var accepted = false
    var end: FirmwarePushEnd?
    var failure: DeviceError?
    try await exchangeHoldingGate(
      .firmwarePush(push), operation: "FOTA_PUSH", timeout: silence,
      accepts: { incoming in
        guard case .message(let message) = incoming else { return false }
        switch message {
        case .firmwareStatus(let status): return status.uid == uid
        case .packRequest(let request): return request.uid == uid
        case .firmwareDone(let done): return done.uid == uid
        default: return false
        }
      }
    ) { incoming in
      guard case .message(let message) = incoming else { return false }
      switch message {
      case .firmwareStatus(let status):
        guard accepted else {
          if status.status == 0 {
            accepted = true
            return false
          }
          end = .refused(status: status.status)
          return true
        }
        end = .result(status)
        return true
      case .packRequest(let request):
        accepted = true
        let start = min(Int(request.start), image.count)
        event(
          .packRequested(
            start: start, end: min(Int(request.end ?? UInt32(image.count)), image.count)))
        do throws(DeviceError) {
          try await sendRange(
            request, of: image, uid: uid, frameData: frameData, interval: interval, sent: sent)
        } catch {
          failure = error
          return true
        }
        return false
      case .firmwareDone(let done):
        event(.packFinished(status: done.status))
        return false  // FOTA_DONE status 2: the device is checking the image; keep waiting
      default:
        return false
      }
    }
    if let failure { throw failure }
    guard let end else { throw .timeout(operation: "FOTA_PUSH") }
    return end
  }

  /// `03` frames over `[start, end)` of the PACK_REQ, then FOTA_DONE when they reach the end.
  private func sendRange(
    _ request: PackRequest, of image: [UInt8], uid: UInt32, frameData: Int, interval: Duration?,
    sent: @Sendable (Int) -> Void
  ) async throws(DeviceError) {
    let start = min(Int(request.start), image.count)
    let end = min(Int(request.end ?? UInt32(image.count)), image.count)
    var offset = start
    if let interval {
      try await sendPaced(
        image, from: start, to: end, frameData: frameData, interval: interval, sent: sent)
      offset = end
    }
    while offset < end {
      var frames: [[UInt8]] = []
      while offset < end, frames.count < Self.firmwareBatchFrames {
        let next = min(end, offset + frameData)
        frames.append(
          Frame.ota(OTADataFrame(offset: UInt32(offset), data: Array(image[offset..<next])))
            .encoded(portVersion: portVersion))
        offset = next
      }
      do {
        try await link.writeWithoutResponse(sealed(frames), to: RecorderGATT.writeCharacteristic)
      } catch {
        throw .disconnected(Self.disconnectReason(error))
      }
      if Task.isCancelled { throw .cancelled }
      sent(offset)
    }
    guard end >= image.count else { return }
    do {
      let done = PhoneMessage.firmwareDone(FirmwareDone(uid: uid, status: 0)).encoded(
        portVersion: portVersion)
      for frame in sealed([done]) {
        try await link.write(frame, to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
      }
    } catch {
      throw .disconnected(Self.disconnectReason(error))
    }
  }

  /// `03` frames over `[start, end)`, each handed to the link `interval` after the one
  /// before (the vendor's pacing, §7).
  private func sendPaced(
    _ image: [UInt8], from start: Int, to end: Int, frameData: Int, interval: Duration,
    sent: @Sendable (Int) -> Void
  ) async throws(DeviceError) {
    var offset = start
    var frames = 0
    var lastWrite: Duration?
    while offset < end {
      if let lastWrite {
        let wait = interval - (clock.elapsed - lastWrite)
        if wait > .zero {
          do { try await clock.sleep(for: wait) } catch { throw .cancelled }
        }
      }
      if Task.isCancelled { throw .cancelled }
      let next = min(end, offset + frameData)
      let frame = Frame.ota(OTADataFrame(offset: UInt32(offset), data: Array(image[offset..<next])))
        .encoded(portVersion: portVersion)
      lastWrite = clock.elapsed
      do {
        try await link.writeWithoutResponse(sealed([frame]), to: RecorderGATT.writeCharacteristic)
      } catch {
        throw .disconnected(Self.disconnectReason(error))
      }
      noteOutgoing()
      offset = next
      frames += 1
      if frames % Self.pacedProgressFrames == 0 || offset == end { sent(offset) }
    }
  }

  static func disconnectReason(_ error: LinkError) -> DisconnectReason {
    if case .disconnected(let reason) = error { return reason }
    return .other(error.description)
  }
}
