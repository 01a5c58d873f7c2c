import RecorderBluetooth
import RecorderProtocol

extension DeviceSession {
  /// The data bytes each `03` frame carries on this link (PROTOCOL.md §7): the model's
  /// ``OTAFramePacing/dataLength`` (``ModelCapabilities/otaFrames(for:)``), or its
  /// ``OTAFramePacing/slowDataLength`` when the MTU is too small for that; nil when it is too
  /// small even for the slow size. Under Mode B each frame also carries its sequence number and
  /// tag (`SessionCipher/overhead`).
  func firmwareFrameData() async -> Int? {
    let maximum = await maximumWriteLength()
    let frames = ModelCapabilities.otaFrames(for: firmwareModel)
    if maximum >= OTADataFrame.headerLength + frames.dataLength { return frames.dataLength }
    if maximum >= OTADataFrame.headerLength + frames.slowDataLength {
      return frames.slowDataLength
    }
    return nil
  }

  /// The model whose firmware frames this session sends: the one known, else the one the
  /// serial's prefix names.
  private var firmwareModel: RecorderModel? {
    let known = info
    return ModelCapabilities.of(model: known.model, serial: known.serial)?.model
  }

  /// The longest frame one write carries (the link's limit, less Mode B's sealing).
  func maximumWriteLength() async -> Int {
    let sealing = await channel.cipher == nil ? 0 : SessionCipher.overhead
    return await channel.link.maximumWriteLength(for: .withoutResponse) - sealing
  }

  /// The spacing of `03` frames `pacing` asks for on this device: for
  /// ``FirmwareUpdater/FramePacing/model``, the model's ``OTAFramePacing/interval`` (one
  /// every 18 ms on every model but the Note Pro, PROTOCOL.md §7 [sdk-code]); nil: as fast as
  /// the link takes them.
  func firmwareFrameInterval(_ pacing: FirmwareUpdater.FramePacing) -> Duration? {
    switch pacing {
    case .unpaced: return nil
    case .every(let interval): return interval > .zero ? interval : nil
    case .model: return ModelCapabilities.otaFrames(for: firmwareModel).interval
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
}
