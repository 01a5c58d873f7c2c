import Foundation
import RecorderKit
import RecorderProtocol

/// The cloud and firmware: each a translation onto RecorderKit's `CloudClient`,
/// `ModeBCredentials.usingCloud` and `FirmwareUpdater`. The facade decides nothing of its
/// own here: the domain rule, retries, checksums and the newer-only rule are RecorderKit's.
extension AgentCore {
  /// Where a firmware or update package is downloaded: `<storageRoot>/firmware`.
  nonisolated var firmwareDirectory: String { configuration.storageRoot + "/firmware" }

  // MARK: - Cloud client and credentials

  /// A cloud client for the domain (``domains``) and user token in force now: made for each
  /// operation, so a domain or token set since is the one every request uses.
  /// - Throws: ``PlaudSDKError/noUserToken``, ``PlaudSDKError/malformedUserToken(reason:)``,
  ///   ``PlaudSDKError/operationFailed(_:)`` for a domain that is not one.
  nonisolated func cloudClient() throws(PlaudSDKError) -> CloudClient {
    guard let jwt = userJWT.current else { throw .noUserToken }
    let user: UserToken
    do {
      user = try UserToken(jwt: jwt)
    } catch .malformedUserToken(let reason) {
      throw .malformedUserToken(reason: reason)
    } catch {
      throw .malformedUserToken(reason: error.description)
    }
    var cloud = configuration.cloud
    cloud.clock = configuration.clock
    do {
      return try CloudClient(
        domain: domains.getCurrentDomain(), userToken: user, configuration: cloud)
    } catch {
      throw .operationFailed("the cloud domain cannot be used: \(error)")
    }
  }

  /// The Mode B credentials of a connection as `user`: the key ring's key, and, with a
  /// usable cloud, the serial signature (`FE10`) from the cloud and the public key
  /// registered there (`ModeBCredentials.usingCloud`, what `recorder sync --cloud` uses). A
  /// cloud failure is recorded in `lastError` and the handshake goes on (RecorderKit's
  /// rule: the device decides).
  nonisolated func modeBCredentials(forUser user: String) -> ModeBCredentials {
    let credentials = userKeyRing.credentials(forUser: user)
    guard let cloud = try? cloudClient() else { return credentials }
    return credentials.usingCloud(cloud) { [weak self] error in
      self?.fail(.operationFailed("the cloud, for Mode B: \(error)"))
    }
  }

  /// After `initSDK`/`setUserAccessToken`: the handshake token of the next connection (BLE,
  /// or Wi-Fi while BLE is down) and the Mode B key user become the token in force's, and
  /// that user's key pair is made now when the key ring holds none (a new user gets a new
  /// key pair; the same user keeps the one the device and its end-to-end encrypted
  /// recordings already hold). No token clears the handshake token and the key user. A
  /// malformed token changes nothing here; the next connect reports it. It reads the token
  /// in force when it runs, so calls that overtake each other end on the latest token.
  func adoptUserToken() {
    guard let jwt = userJWT.current else {
      handshakeToken = nil
      return
    }
    guard let user = try? UserToken(jwt: jwt) else { return }
    handshakeToken = user.deviceToken
    restoreKeeping()
    do throws(KeyStoreError) {
      _ = try userKeyRing.userKey(forUser: user.deviceToken.revealed)
    } catch {
      fail(.operationFailed("the Mode B user key: \(error)"))
    }
  }

  /// `PlaudFileUploader.bindDevice`/`unbindDevice`: `CloudClient.bind(serial:)` or
  /// `unbind(serial:)` (idempotent; 403: bound to another account).
  nonisolated func cloudBinding(bind: Bool, serial: String) async -> PlaudSDKError? {
    do {
      let cloud = try cloudClient()
      do throws(CloudError) {
        if bind {
          try await cloud.bind(serial: serial)
        } else {
          try await cloud.unbind(serial: serial)
        }
        return nil
      } catch {
        let failure = PlaudSDKError.operationFailed("cloud \(bind ? "bind" : "unbind"): \(error)")
        fail(failure)
        return failure
      }
    } catch {
      fail(error)
      return error
    }
  }

  // MARK: - Firmware

  /// Where a firmware update's image comes from.
  enum FirmwareSource: Sendable {
    /// The cloud's newest release for the connected device (`startFirmwareUpdate`).
    case cloud
    /// A file on disk and the version it installs (`pushFirmwareFile`).
    case file(path: String, version: String)
  }

  /// `CloudClient.checkFirmware(serial:current:)` for the connected device.
  func checkFirmware() async -> PlaudFirmwareCheckResult {
    guard let current = session else {
      fail(.notConnected)
      return PlaudFirmwareCheckResult(
        currentVersion: "", failure: PlaudSDKError.notConnected.description)
    }
    let info = await current.info
    let version = info.firmware?.description ?? ""
    guard let firmware = info.firmware else {
      return checkFailure(version, "the device did not report its firmware version")
    }
    let cloud: CloudClient
    do {
      cloud = try cloudClient()
    } catch {
      fail(error)
      return PlaudFirmwareCheckResult(currentVersion: version, failure: error.description)
    }
    do throws(CloudError) {
      return PlaudFirmwareCheckResult(
        try await cloud.checkFirmware(serial: info.serial, current: firmware))
    } catch {
      return checkFailure(version, "firmware check failed: \(error)")
    }
  }

  private func checkFailure(_ version: String, _ reason: String) -> PlaudFirmwareCheckResult {
    fail(.operationFailed(reason))
    return PlaudFirmwareCheckResult(currentVersion: version, failure: reason)
  }

  /// The whole update through RecorderKit: from the cloud, check (`CloudClient`), download
  /// and verify (`CloudClient.download`: MD5, SHA-256) while the link stays up; from a file,
  /// read and hash it (`FirmwareFile`). Then the link is handed to a `FirmwareUpdater`,
  /// which pushes, waits for the restart and confirms the version; the facade then
  /// reconnects as `connect` does (`bleConnectState(1)`, `bleBind`, …), on success and
  /// failure alike, and reads the version the device reports. `bleFotaResult` ends it.
  /// Nothing is handed over, and the link stays as it was, when the check, the download or
  /// the file fails first.
  func updateFirmware(
    _ source: FirmwareSource,
    progress: @escaping @Sendable (PlaudFirmwarePhase, Float) -> Void
  ) async -> PlaudFirmwareUpdateResult {
    guard let recorders, let connection, let current = session else {
      return firmwareFailure(
        version: "", uid: 0, message: PlaudSDKError.notConnected.description)
    }
    let info = await current.info
    let version = info.firmware?.description ?? ""
    let file: FirmwareFile
    let target: FirmwareVersion
    switch source {
    case .cloud:
      guard let firmware = info.firmware else {
        return firmwareFailure(version: version, uid: 0, .noUpdate(current: version))
      }
      let cloud: CloudClient
      do {
        cloud = try cloudClient()
      } catch {
        fail(error)
        return firmwareFailure(version: version, uid: 0, message: error.description)
      }
      let release: FirmwareRelease
      do {
        release = try await cloud.checkFirmware(serial: info.serial, current: firmware)
      } catch {
        return firmwareFailure(version: version, uid: 0, .cloud(error))
      }
      guard release.hasUpdate, let latest = FirmwareVersion(release.latestVersion) else {
        return firmwareFailure(version: version, uid: 0, .noUpdate(current: version))
      }
      progress(.downloading, 0)
      do {
        try FileManager.default.createDirectory(
          atPath: firmwareDirectory, withIntermediateDirectories: true)
      } catch {
        return firmwareFailure(
          version: version, uid: 0, .io(path: firmwareDirectory, reason: "cannot create it"))
      }
      let path = firmwareDirectory + "/" + Self.packageName(info.serial, latest.description)
      do {
        file = try await cloud.download(release, to: path) { bytes, total in
          guard let total, total > 0 else { return }
          progress(.downloading, Float(min(1, max(0, Double(bytes) / Double(total)))))
        }
      } catch {
        return firmwareFailure(version: version, uid: 0, .cloud(error))
      }
      target = latest
    case .file(let path, let text):
      do throws(FirmwareVersionError) {
        target = try PlaudFirmwareBridge.version(text)
      } catch {
        return firmwareFailure(version: version, uid: 0, message: "toVersion: \(error)")
      }
      do {
        file = try FirmwareFile(path: path, version: target.description)
      } catch {
        return firmwareFailure(version: version, uid: 0, error)
      }
    }
    let uid = Int(file.crc)
    let updater = await recorders.firmwareUpdater(for: connection)
    let emit = self.emit
    let forward = Task {
      for await step in updater.progress {
        switch step.deviceEvent {
        case .packRequested(let start, let end):
          emit { $0.bleFotaPackReq(uid: uid, start: start, end: end) }
        case .packFinished(let status):
          let code = Int(status)
          emit { $0.bleFotaPackFin(uid: uid, status: code, errmsg: nil) }
        case nil:
          progress(PlaudFirmwarePhase(step.phase), Float(step.fraction))
        }
      }
    }
    // Hand the link over: the updater owns its sessions (and their events) from here. The
    // session is forgotten first, so its end is not reported as a disconnect.
    let reconnectTo = BleDevice.Snapshot(
      serialNumber: info.serial, name: "", rssi: 0, discovered: nil)
    let token = handshakeToken
    session = nil
    self.connection = nil
    await connection.close()
    var failure: FirmwareUpdateError?
    do {
      let result = try await updater.install(file, to: target)
      await result.session.close()
    } catch {
      failure = error
    }
    await forward.value
    await connect(reconnectTo, deviceToken: token?.revealed)
    let reported = await session?.info.firmware?.description
    if let failure {
      return firmwareFailure(version: reported ?? version, uid: uid, failure)
    }
    let confirmed = reported ?? target.description
    emit { $0.bleFotaResult(uid: uid, status: 0, errmsg: nil) }
    return PlaudFirmwareUpdateResult(success: true, version: confirmed)
  }

  /// A failed update: `lastError`, `bleFotaResult` with the device's status (or -1), and the
  /// result carrying the version the device keeps.
  private func firmwareFailure(version: String, uid: Int, _ error: FirmwareUpdateError)
    -> PlaudFirmwareUpdateResult
  {
    let fota = PlaudFirmwareBridge.fotaResult(uid: uid, error: error)
    return firmwareFailure(version: version, uid: uid, message: error.description, fota: fota)
  }

  private func firmwareFailure(
    version: String, uid: Int, message: String,
    fota: (uid: Int, status: Int, errmsg: String?)? = nil
  ) -> PlaudFirmwareUpdateResult {
    fail(.operationFailed(message))
    let fota = fota ?? (uid, -1, message)
    emit { $0.bleFotaResult(uid: fota.uid, status: fota.status, errmsg: fota.errmsg) }
    return PlaudFirmwareUpdateResult(success: false, version: version, errorMessage: message)
  }

  /// `<serial>-<version>.bin`, anything but ASCII letters, digits, `.` and `-` replaced.
  static func packageName(_ serial: String, _ version: String) -> String {
    let safe = { (text: String) in
      String(
        text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") ? $0 : "_" }
      )
    }
    return "\(safe(serial))-\(safe(version)).bin"
  }
}
