import RecorderBluetooth
import RecorderProtocol

extension DeviceSession {
  /// The data bytes each `03` frame carries on this link: 160, or 80 (slow mode) when the
  /// MTU is too small for 160 (PROTOCOL.md §7); nil when it is too small even for 80.
  func firmwareFrameData() async -> Int? {
    let maximum = await channel.link.maximumWriteLength(for: .withoutResponse)
    if maximum >= OTADataFrame.headerLength + OTADataFrame.standardDataLength {
      return OTADataFrame.standardDataLength
    }
    if maximum >= OTADataFrame.headerLength + OTADataFrame.slowDataLength {
      return OTADataFrame.slowDataLength
    }
    return nil
  }

  /// The longest write this link carries.
  func maximumWriteLength() async -> Int {
    await channel.link.maximumWriteLength(for: .withoutResponse)
  }

  /// One push attempt (see ``RequestChannel/pushFirmware(_:image:frameData:silence:sent:)``).
  func pushFirmware(
    _ push: FirmwarePush, image: [UInt8], frameData: Int, silence: Duration,
    sent: @escaping @Sendable (Int) -> Void
  ) async throws(DeviceError) -> FirmwarePushEnd {
    try await channel.pushFirmware(
      push, image: image, frameData: frameData, silence: silence, sent: sent)
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
