import Foundation
import RecorderKit

/// Firmware update (002's calls): not available yet. Each answers at once, in call order,
/// on the callback queue, with why.
extension PlaudDeviceAgent {
  // MARK: - Firmware (not available yet)

  /// Checks for a firmware update. Not available yet: `hasUpdate` false, the current
  /// version, and `errorMessage` saying why.
  public func checkFirmwareUpdate(completion: @escaping (PlaudFirmwareCheckResult) -> Void) {
    let closure = AppClosure(completion)
    let queue = callbackQueue
    enqueue { core in
      let current = await core.firmwareVersion
      queue.async {
        closure.body(
          PlaudFirmwareCheckResult(
            currentVersion: current,
            errorMessage: PlaudSDKError.notAvailableYet(feature: "Firmware update").description))
      }
    }
  }

  /// Downloads and installs the latest firmware. Not available yet: no progress, then a
  /// failed result saying why (and `bleFotaResult(uid: 0, status: -1, …)`).
  public func startFirmwareUpdate(
    progress: @escaping (PlaudFirmwarePhase, Float) -> Void,
    completion: @escaping (PlaudFirmwareUpdateResult) -> Void
  ) {
    failFirmware(completion)
  }

  /// Pushes a downloaded firmware file. Not available yet: as ``startFirmwareUpdate(progress:completion:)``.
  public func pushFirmwareFile(
    filePath: String, toVersion: String, progress: @escaping (PlaudFirmwarePhase, Float) -> Void,
    completion: @escaping (PlaudFirmwareUpdateResult) -> Void
  ) {
    failFirmware(completion)
  }

  private func failFirmware(_ completion: @escaping (PlaudFirmwareUpdateResult) -> Void) {
    let closure = AppClosure(completion)
    let queue = callbackQueue
    let message = PlaudSDKError.notAvailableYet(feature: "Firmware update").description
    enqueue { core in
      let current = await core.firmwareVersion
      await core.reportFirmwareUnavailable(message)
      queue.async {
        closure.body(
          PlaudFirmwareUpdateResult(success: false, version: current, errorMessage: message))
      }
    }
  }
}
