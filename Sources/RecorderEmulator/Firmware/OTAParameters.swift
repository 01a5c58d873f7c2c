/// How the emulated device receives a firmware update (PROTOCOL.md §7). The real values are
/// unknown; these are this project's [project].
public struct OTAParameters: Sendable, Equatable {
  /// Bytes each PACK_REQ asks for.
  public var rangeBytes: Int
  /// Largest image accepted (status 4, too large, beyond it).
  public var maximumImageBytes: Int
  /// Re-asks of a range the phone says it sent but that did not all arrive, before result 5.
  public var maximumResends: Int
  /// From FOTA_DONE to the result (checking the image).
  public var verifyTime: Duration
  /// From a good result to the restart (writing the image).
  public var installTime: Duration
  /// Silent (not advertising) while restarting into the new firmware.
  public var restartTime: Duration
  /// FOTA_PUSH is refused (status 11) below this battery level unless charging [project].
  public var minimumBattery: UInt8
  /// A `03` frame that reaches the device sooner than this after the previous one is lost,
  /// as a receive buffer the flash cannot drain faster would lose it (zero: none is). The
  /// vendor's SDK sends one every 18 ms on every model but the Note Pro (PROTOCOL.md §7)
  /// [sdk-code]; whether a device needs it is not known, so the default takes any rate.
  public var minimumFrameInterval: Duration = .zero

  public init(
    rangeBytes: Int = 128 * 1024, maximumImageBytes: Int = 8 * 1024 * 1024, maximumResends: Int = 3,
    verifyTime: Duration = .milliseconds(500), installTime: Duration = .seconds(2),
    restartTime: Duration = .seconds(4), minimumBattery: UInt8 = 30
  ) {
    precondition(rangeBytes > 0 && maximumImageBytes > 0, "sizes must be positive")
    self.rangeBytes = rangeBytes
    self.maximumImageBytes = maximumImageBytes
    self.maximumResends = maximumResends
    self.verifyTime = verifyTime
    self.installTime = installTime
    self.restartTime = restartTime
    self.minimumBattery = minimumBattery
  }
}

/// How one firmware update ended on the emulated device.
public struct FirmwareUpdateOutcome: Sendable, Equatable {
  /// The FOTA_PUSH `uid`.
  public var uid: UInt32
  /// The version pushed.
  public var target: String
  /// The §7 result code: 0 ok, 3 size mismatch, 4 CRC / image check failed, 5 retries
  /// exhausted.
  public var result: UInt8
  /// The version the device runs after it (the old one unless `result` is 0).
  public var runningVersion: String
}

/// A firmware image being received: its FOTA_PUSH and the contiguous bytes so far.
struct OTAReceiver {
  let push: FirmwarePushHeader
  var image: [UInt8] = []
  /// End of the range the last PACK_REQ asked for.
  var rangeEnd = 0
  /// Re-asks of the current range.
  var resends = 0
  /// FOTA_DONE came and the image is being checked: further data is ignored.
  var verifying = false
  /// When the first and the last `03` frame of this push reached the device (device time).
  var firstFrameAt: Duration?
  var lastFrameAt: Duration?
}

/// The fields of FOTA_PUSH the receiver keeps (a resumed push must match them).
struct FirmwarePushHeader: Equatable {
  var uid: UInt32
  var to: String
  var toCode: UInt32
  var toType: UInt8
  var size: Int
  var crc: UInt16
  var silent: UInt8
}
