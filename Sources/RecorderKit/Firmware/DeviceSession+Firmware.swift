import RecorderBluetooth
import RecorderProtocol

extension DeviceSession {
  /// The data bytes each `03` frame carries on this link (PROTOCOL.md §7): 80 on every
  /// model but the Note Pro (881) [sdk-code]; 160 on a Note Pro, or 80 (its slow mode) when
  /// the MTU is too small for 160 [sdk]; nil when it is too small even for 80. Under Mode B
  /// each frame also carries its sequence number and tag (`SessionCipher/overhead`).
  func firmwareFrameData() async -> Int? {
    let maximum = await maximumWriteLength()
    let known = info
    let model = known.model ?? UInt16(known.serial.prefix(3)).flatMap(RecorderModel.init)
    let wanted = OTADataFrame.dataLength(for: model)
    if maximum >= OTADataFrame.headerLength + wanted { return wanted }
    if maximum >= OTADataFrame.headerLength + OTADataFrame.slowDataLength {
      return OTADataFrame.slowDataLength
    }
    return nil
  }

  /// The longest frame one write carries (the link's limit, less Mode B's sealing).
  func maximumWriteLength() async -> Int {
    let sealing = await channel.cipher == nil ? 0 : SessionCipher.overhead
    return await channel.link.maximumWriteLength(for: .withoutResponse) - sealing
  }

  /// The spacing of `03` frames `pacing` asks for on this device: for
  /// ``FirmwareUpdater/FramePacing/model``, one every 18 ms on every model but the Note Pro
  /// (PROTOCOL.md §7) [sdk-code]; nil: as fast as the link takes them.
  func firmwareFrameInterval(_ pacing: FirmwareUpdater.FramePacing) -> Duration? {
    switch pacing {
    case .unpaced: return nil
    case .every(let interval): return interval > .zero ? interval : nil
    case .model:
      let known = info
      let model = known.model ?? UInt16(known.serial.prefix(3)).flatMap(RecorderModel.init)
      return OTADataFrame.interval(for: model)
    }
  }

  /// One push attempt (see
  /// `RequestChannel/pushFirmware(_:image:frameData:interval:silence:sent:event:)`).
  func pushFirmware(
    _ push: FirmwarePush, image: [UInt8], frameData: Int, interval: Duration?,
    silence: Duration, sent: @escaping @Sendable (Int) -> Void,
    event: @escaping @Sendable (FirmwareDeviceEvent) -> Void = { _ in }
  ) async throws(DeviceError) -> FirmwarePushEnd {
    try await channel.pushFirmware(
      push, image: image, frameData: frameData, interval: interval, silence: silence,
      sent: sent, event: event)
  }
}

extension OTADataFrame {
  /// `03` · `offset u32` · `len u8`.
  static let headerLength = 6
  /// Data bytes per frame on a Note Pro (881) (§7) [sdk].
  static let noteProDataLength = 160
  /// Data bytes per frame on every other model [sdk-code], and a Note Pro's slow mode
  /// (§7) [sdk].
  static let slowDataLength = 80

  /// The data bytes per frame `model` takes; a model not known yet takes the smaller size.
  static func dataLength(for model: RecorderModel?) -> Int {
    model == .notePro ? noteProDataLength : slowDataLength
  }

  /// The vendor's spacing of frames on every model but the Note Pro (§7) [sdk-code].
  static let pacedInterval: Duration = .milliseconds(18)

  /// The spacing of frames for `model`: 18 ms, or nil (unpaced) on a Note Pro, whose
  /// pushes the evidence shows unpaced; a model not known yet is paced.
  static func interval(for model: RecorderModel?) -> Duration? {
    model == .notePro ? nil : pacedInterval
  }
}
