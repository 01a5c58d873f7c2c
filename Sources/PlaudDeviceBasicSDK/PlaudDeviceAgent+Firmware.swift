import Foundation
import RecorderKit

/// Firmware update (002's calls) over RecorderKit's `CloudClient` and `FirmwareUpdater`:
/// each runs as one command, in call order; results arrive on the callback queue.
extension PlaudDeviceAgent {
  // MARK: - Firmware

  /// Asks the cloud (``PlaudDomainManager/getCurrentBaseURL()``, the user access token) for
  /// firmware newer than the connected device's. `hasUpdate` is true only for a newer
  /// version of the device's type letter. When the check cannot run (not connected, no
  /// token, the cloud unreachable or its answer malformed) `hasUpdate` is false and
  /// `errorMessage` (RecorderKit addition) and ``lastError`` say why.
  public func checkFirmwareUpdate(completion: @escaping (PlaudFirmwareCheckResult) -> Void) {
    let closure = AppClosure(completion)
    let queue = callbackQueue
    enqueue { core in
      let result = await core.checkFirmware()
      queue.async { closure.body(result) }
    }
  }

  /// Checks, downloads (resumably, checked against the release's MD5 and SHA-256), pushes
  /// and installs the newest firmware, waits for the device to restart, reconnects and reads
  /// the version it reports. `progress` gets the phases in order, `downloading` →
  /// `installing` → `restarting` → `complete`, each 0.0…1.0; `completion` gets the
  /// outcome: on success the version the device reports after the restart; on failure why
  /// (nothing newer, no token, checksum mismatch, refused by the device, …) and the version
  /// it kept. `bleFotaResult(uid:status:errmsg:)` follows (status 0, or the device's §7
  /// status, else -1 for a failure on the SDK's side). While it runs the link belongs to
  /// the update; afterwards the agent reconnects with the documented sequence
  /// (`bleConnectState(1)`, `bleBind`, …).
  public func startFirmwareUpdate(
    progress: @escaping (PlaudFirmwarePhase, Float) -> Void,
    completion: @escaping (PlaudFirmwareUpdateResult) -> Void
  ) {
    runUpdate(.cloud, progress: progress, completion: completion)
  }

  /// Pushes the firmware file at `filePath`, which installs `toVersion`, as
  /// ``startFirmwareUpdate(progress:completion:)`` does from `installing` on (no download).
  /// `toVersion` parses in both forms (`V0096`, `V1.2.8`), but only the code form has a
  /// device encoding: `V1.2.8` fails with a reason saying so. Only a version newer than the
  /// device's is installed (RecorderKit's rule).
  public func pushFirmwareFile(
    filePath: String, toVersion: String, progress: @escaping (PlaudFirmwarePhase, Float) -> Void,
    completion: @escaping (PlaudFirmwareUpdateResult) -> Void
  ) {
    runUpdate(.file(path: filePath, version: toVersion), progress: progress, completion: completion)
  }

  private func runUpdate(
    _ source: AgentCore.FirmwareSource, progress: @escaping (PlaudFirmwarePhase, Float) -> Void,
    completion: @escaping (PlaudFirmwareUpdateResult) -> Void
  ) {
    let step = AppClosure<(PlaudFirmwarePhase, Float)>(progress)
    let closure = AppClosure(completion)
    let queue = callbackQueue
    enqueue { core in
      let result = await core.updateFirmware(source) { phase, fraction in
        queue.async { step.body((phase, fraction)) }
      }
      queue.async { closure.body(result) }
    }
  }
}
