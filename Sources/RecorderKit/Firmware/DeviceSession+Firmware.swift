import RecorderBluetooth
import RecorderProtocol

extension DeviceSession {
  /// The data bytes each `03` frame carries on this link: 160, or 80 (slow mode) when the
  /// MTU is too small for 160 (PROTOCOL.md §7); nil when it is too small even for 80. Under
  /// Mode B each frame also carries its sequence number and tag (`SessionCipher/overhead`).
  func firmwareFrameData() async -> Int? {
    let maximum = await maximumWriteLength()
    if maximum >= OTADataFrame.headerLength + OTADataFrame.standardDataLength {
      return OTADataFrame.standardDataLength
    }
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

  /// One push attempt (see `RequestChannel/pushFirmware(_:image:frameData:silence:sent:)`).
  func pushFirmware(
    _ push: FirmwarePush, image: [UInt8], frameData: Int, silence: Duration,
    sent: @escaping @Sendable (Int) -> Void,
    event: @escaping @Sendable (FirmwareDeviceEvent) -> Void = { _ in }
  ) async throws(DeviceError) -> FirmwarePushEnd {
    try await channel.pushFirmware(
      push, image: image, frameData: frameData, silence: silence, sent: sent, event: event)
  }
}

extension OTADataFrame {
  /// `03` · `offset u32` · `len u8`.
  static let headerLength = 6
  /// Data bytes per frame (§7) [sdk].
  static let standardDataLength = 160
  /// Data bytes per frame in slow mode (§7) [sdk].
  static let slowDataLength = 80
}
