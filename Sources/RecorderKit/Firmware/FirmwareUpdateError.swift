/// Why a firmware update stopped, in terms a user can act on. The device keeps its firmware
/// whenever one of these is thrown before ``FirmwarePhase/restarting``.
public enum FirmwareUpdateError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The cloud check or download failed.
  case cloud(CloudError)
  /// Talking to the device failed (and reconnecting did not help).
  case device(DeviceError)
  /// The cloud has no newer firmware for this device, or the version offered is the one it
  /// runs.
  case noUpdate(current: String)
  /// The version offered is older than the device's `current` (or of another type letter):
  /// not installed, since downgrades are not allowed
  /// (``FirmwareUpdater/Configuration/allowDowngrade``).
  case downgradeRefused(current: String, offered: String)
  /// A local file could not be read.
  case io(path: String, reason: String)
  case emptyImage
  case imageTooLarge(bytes: Int, limit: Int)
  /// `V0096`-style versions only (a letter and up to 8 digits).
  case invalidVersion(String)
  /// The image does not match the checksum it was published with: nothing was pushed.
  case checksumMismatch(algorithm: String)
  /// The battery is below the minimum and not charging: charge the device first.
  case batteryLow(level: UInt8, minimum: UInt8)
  /// The device is recording: stop the recording first.
  case recording
  /// The device refused FOTA_PUSH (PROTOCOL.md §7 push status).
  case refused(status: UInt8)
  /// The device checked the image and rejected it (§7 result); it keeps its firmware.
  case rejectedByDevice(result: UInt8)
  /// The link is too small for `03` frames (MTU below 89).
  case linkTooSmall(maximumWrite: Int)
  /// The push made no progress across this many reconnects.
  case tooManyDisconnects(Int)
  /// After the restart the device reports another version than the one installed.
  case versionNotConfirmed(expected: String, found: String)
  case cancelled

  public var description: String {
    switch self {
    case .cloud(let error): "\(error)"
    case .device(let error): "\(error)"
    case .noUpdate(let current): "no newer firmware than \(current)"
    case .downgradeRefused(let current, let offered):
      "\(offered) is not newer than the device's \(current): not installed (downgrades are not allowed)"
    case .io(let path, let reason): "\(path): \(reason)"
    case .emptyImage: "the firmware file is empty"
    case .imageTooLarge(let bytes, let limit):
      "the firmware file has \(bytes) bytes; at most \(limit) are accepted"
    case .invalidVersion(let text): "\"\(text)\" is not a firmware version like V0096"
    case .checksumMismatch(let algorithm):
      "the firmware file does not match its \(algorithm): nothing was pushed"
    case .batteryLow(let level, let minimum):
      "battery at \(level) %: charge the device to \(minimum) % (or plug it in) first"
    case .recording: "the device is recording: stop the recording first"
    case .refused(let status): "the device refused the update: \(Self.pushStatus(status))"
    case .rejectedByDevice(let result):
      "the device rejected the image (\(Self.result(result))); it keeps its firmware"
    case .linkTooSmall(let maximum):
      "the link carries \(maximum)-byte writes; a firmware frame needs at least 86"
    case .tooManyDisconnects(let count): "the link dropped \(count) times: update abandoned"
    case .versionNotConfirmed(let expected, let found):
      "after the restart the device runs \(found), not \(expected)"
    case .cancelled: "cancelled"
    }
  }

  /// FOTA_PUSH statuses (PROTOCOL.md §7) [sdk].
  public static func pushStatus(_ status: UInt8) -> String {
    switch status {
    case 1: "failed"
    case 2: "version mismatch"
    case 3: "flash write error"
    case 4: "image too large"
    case 5: "too many writes"
    case 6: "in USB-disk mode"
    case 7: "recording"
    case 8: "low on space"
    case 9: "busy"
    case 10: "not charging"
    case 11: "battery low"
    case 12: "entering OTA mode"
    case 13: "this silent update is already installed"
    case 255: "wrong mode"
    default: "status \(status)"
    }
  }

  /// FOTA results (PROTOCOL.md §7) [sdk].
  public static func result(_ result: UInt8) -> String {
    switch result {
    case 0: "ok"
    case 1: "superseded"
    case 2: "timed out"
    case 3: "size mismatch"
    case 4: "CRC or image check failed"
    case 5: "retries exhausted"
    case 6: "flush failed"
    default: "result \(result)"
    }
  }
}
