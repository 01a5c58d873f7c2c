import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import TestSupport
import Testing

/// The device bench's transfers over BLE (a range, a stopped stream, a stopped download),
/// the battery, and, after the disconnect, scan, connect again, tokens, clear-all, depair.
extension MemberStatusRegistry {
  /// Calls `stop` from the first callback entry that `trigger` accepts (as an app's cancel
  /// button would), once; the reaction is removed when the check ends.
  static func stopOnFirst(
    _ c: MemberContext, _ trigger: @escaping @Sendable (String) -> Bool,
    _ stop: @escaping @Sendable () -> Void
  ) {
    let fired = Locked(false)
    c.log.reaction.withLock {
      $0 = { entry in
        guard trigger(entry) else { return }
        let first = fired.withLock { fired in
          defer { fired = true }
          return !fired
        }
        if first { stop() }
      }
    }
  }

  static let deviceTransfers: [MemberCheck] = [
    on(.device, agent, #"`func syncFile(sessionId: Int, start: Int, end: Int)`"#) { c in
      let id = c.recordings[0]
      let size = try #require(try await onDevice(c)[id]).size
      c.log.bleBytes.withLock { $0[id] = 0 }
      c.log.bleStarts.withLock { $0 = [] }
      let entry = try await c.call(
        { c.agent.syncFile(sessionId: id, start: 0, end: size) }, heard: "bleDataComplete")
      let got = c.log.bleBytes.current[id] ?? 0
      try require(got == size, "\(got) bytes of \(size)")
      return .answered("\(entry) after all \(size) bytes")
    },
    on(.device, callbacks, #"`optional func bleSyncFileHead(sessionId: Int, status: Int)`"#) { c in
      try require(c.log.has("bleSyncFileHead \(c.recordings[0]) 0"), "no bleSyncFileHead id 0")
      return .answered("id 0")
    },
    on(.device, callbacks, #"`optional func bleData(sessionId: Int, start: Int, data: Data)`"#) {
      c in
      // The syncFile range's chunks: contiguous from 0 (sizes summed in bleBytes).
      let starts = c.log.bleStarts.current
      try require(starts.first == 0 && starts == starts.sorted(), "starts out of order")
      return .answered("\(starts.count) chunks in order from 0")
    },
    on(.device, callbacks, #"`optional func bleSyncFileTail(sessionId: Int, crc: Int)`"#) { c in
      try require(c.log.has("bleSyncFileTail \(c.recordings[0]) 0"), "no bleSyncFileTail id 0")
      return .answered("at the last byte, crc 0")
    },
    on(
      .device, callbacks,
      #"`optional func blePcmData(sessionId: Int, millsec: Int, pcmData: Data, isMusic: Bool)`"#
    ) { c in
      let sizes = c.log.pcmSizes.current
      try require(!sizes.isEmpty && sizes.allSatisfy { $0 == 640 }, "chunk sizes \(Set(sizes))")
      return .answered("\(sizes.count) chunks of 640 bytes")
    },
    on(.device, callbacks, #"`optional func bleDataComplete()`"#) { c in
      try require(c.log.count("bleDataComplete") >= 1, "no bleDataComplete")
      return .answered("after the range")
    },
    on(.device, agent, #"`func stopSyncFile()`"#) { c in
      let long = c.recordings[2]
      let agent = c.agent
      let before = c.log.count("bleDataComplete")
      // Stopped from the first data callback, as an app's cancel button would. The device
      // holds its data after the first 2,000 bytes until the phone's next write (the pause
      // fault): SYNC_STOP finds the sync going however late the callback queue delivers,
      // where a short sync could be over before the stop is asked.
      await c.device.setFaults(FaultPlan(pauseDataAfterBytes: 2_000))
      stopOnFirst(c, { $0 == "bleData" }) { agent.stopSyncFile() }
      defer { c.log.reaction.withLock { $0 = nil } }
      c.log.bleBytes.withLock { $0[long] = 0 }
      let size = try #require(try await onDevice(c)[long]).size
      let entry = try await c.call(
        { c.agent.syncFile(sessionId: long, start: 0, end: size) }, heard: "bleSyncFileStop")
      let got = c.log.bleBytes.current[long] ?? 0
      try require(got < size, "the whole file arrived")
      try require(c.log.count("bleDataComplete") == before, "completed though stopped")
      try require(await c.device.faultPlan.pauseDataAfterBytes == nil, "never paused")
      return .answered("\(entry) after \(got) of \(size) bytes")
    },
    on(.device, callbacks, #"`optional func bleSyncFileStop()`"#) { c in
      try require(c.log.count("bleSyncFileStop") == 1, "not once")
      return .answered("once, after stopSyncFile")
    },
    on(.device, agent, #"`func stopDownloadFile()`"#) { c in
      let long = c.recordings[2]
      let agent = c.agent
      let busy = Locked<Bool?>(nil)
      // Stopped from the first progress callback. The device holds its data after 2,000
      // bytes (the pause fault) until the stop was asked for; then one frame more, which
      // the download refuses before it sends SYNC_STOP: the stop finds the download going
      // however late the callback queue delivers.
      let device = c.device
      await device.setFaults(FaultPlan(pauseDataAfterBytes: 2_000))
      stopOnFirst(c, { $0.hasPrefix("bleDownloadFile \(long) 0 ") }) {
        busy.withLock { $0 = agent.checkIsDownloading() }
        agent.stopDownloadFile()
        Task { await device.stepData() }
      }
      defer { c.log.reaction.withLock { $0 = nil } }
      let path = c.scratch + "/stopped.wav"
      c.agent.downloadFile(sessionId: long, desiredOutputPath: path, format: .wav)
      try await eventually("the download's end") {
        c.log.has("bleDownloadFileStop") || c.log.has("bleDownloadFile \(long) 0 100")
          || c.log.count("bleDownloadFile \(long) -1") > 0
      }
      let seen = c.log.all.filter { $0.hasPrefix("bleDownloadFile") }
      try require(
        c.log.has("bleDownloadFileStop"), "not stopped: \(seen.suffix(4)) \(c.lastFailure)")
      try require(!FileManager.default.fileExists(atPath: path), "a file at the path asked")
      // A download the stop ended before the pause leaves the fault armed: not for the next.
      await device.setFaults(.none)
      c.log.entries.withLock {
        $0.append("checkIsDownloading \(busy.current.map(String.init) ?? "nil")")
      }
      return .answered("bleDownloadFileStop before 100%")
    },
    on(.device, callbacks, #"`optional func bleDownloadFileStop()`"#) { c in
      try require(c.log.count("bleDownloadFileStop") == 1, "not once")
      return .answered("once, after stopDownloadFile")
    },
    on(.device, agent, #"`func checkIsDownloading() -> Bool`"#) { c in
      try require(c.log.has("checkIsDownloading true"), "not true during the download")
      try require(!c.agent.checkIsDownloading(), "still true after it stopped")
      return .answered("true during a download, false after")
    },
    on(.device, callbacks, #"`optional func blePowerChange(power: Int, oldPower: Int)`"#) { c in
      let old = try #require(c.agent.recentConnectDevice).power
      await c.device.setBattery(level: 40, charging: true)
      c.agent.getChargingState()
      let entry = try await c.heard("blePowerChange ", after: 0)
      try require(entry == "blePowerChange 40 \(old)", "\(entry), from \(old)")
      return .answered(entry)
    },
    on(.device, "BleDevice", #"`var isCharging: Bool  (TA: PlaudDevice(isCharging: Bool))`"#) { c in
      let entry = try await c.call({ c.agent.getChargingState() }, heard: "bleChargingState ")
      try require(entry == "bleChargingState true 40", entry)
      let recent = try #require(c.agent.recentConnectDevice)
      try require(recent.isCharging && recent.power == 40, "recent not following the battery")
      return .answered("true, as the device's battery")
    },
  ]

  // MARK: - After the disconnect

  /// Waits for the next `bleConnectState` after `call`: its value.
  static func connectState(_ c: MemberContext, _ call: () -> Void) async throws -> String {
    try await c.call(call, heard: "bleConnectState ")
  }

  static let deviceReconnect: [MemberCheck] = [
    on(.device, agent, #"`func startScan()`"#) { c in
      let serial = c.serial
      c.agent.startScan()
      try await eventually("scanned") {
        c.log.scanned.current.contains { $0.serial == serial }
      }
      return .answered("bleScanResult with the device")
    },
    on(.device, callbacks, #"`optional func bleScanResult(bleDevices: [BleDevice])`"#) { c in
      try require(
        c.log.has("bleScanResult [\"\(c.serial)\"]"), "\(c.log.last("bleScanResult") ?? "")")
      return .answered("the device's serial")
    },
    on(
      .device, "BleDevice",
      #"`var rssi: Int  (TA: ScannedDevice(rssi:), sorted by rssi; type Int inferred)`"#
    ) { c in
      let rssi = try #require(c.log.scanned.current.first { $0.serial == c.serial }).rssi
      try require(rssi < 0 && rssi > -127, "rssi \(rssi)")
      return .answered("\(rssi) dBm")
    },
    on(.device, agent, #"`func stopScan()`"#) { c in
      c.agent.stopScan()
      // Past the scan's 5 s timeout: a stopped scan reports no bleScanOverTime.
      try await AnyClock(c.clock).sleep(for: .seconds(6))
      try require(c.log.count("bleScanOverTime") == 0, "bleScanOverTime after stopScan")
      return .answered("stopped, no timeout reported")
    },
    on(.device, agent, #"`func connectBleDevice(bleDevice: BleDevice)`"#) { c in
      let binds = c.log.count("bleBind \(c.serial) 0")
      let state = try await connectState(c) {
        c.agent.connectBleDevice(bleDevice: BleDevice(serialNumber: c.serial))
      }
      try require(state == "bleConnectState 1", "\(state) \(c.lastFailure)")
      try await eventually("bound") {
        c.log.count("bleBind \(c.serial) 0") > binds
      }
      return .answered("connected and bound")
    },
    on(.device, agent, #"`func tryReconnectLastDevice()`"#) { c in
      _ = try await connectState(c) { c.agent.disconnect() }
      let state = try await connectState(c) { c.agent.tryReconnectLastDevice() }
      try require(state == "bleConnectState 1", "\(state) \(c.lastFailure)")
      return .answered("connected again")
    },
    on(.device, agent, #"`func clearSDKCredentials()`"#) { c in
      _ = try await connectState(c) { c.agent.disconnect() }
      c.agent.clearSDKCredentials()
      let state = try await connectState(c) { c.agent.tryReconnectLastDevice() }
      try require(state != "bleConnectState 1", "connected without a token")
      try require(c.agent.lastError == .noUserToken, c.lastFailure)
      return .answered("\(state): no user token")
    },
    on(
      .device, agent,
      #"`func setPartnerToken(_ token: String?)  (deprecated, renamed setUserAccessToken)`"#
    ) { c in
      // The deprecated name is the same call: nil forgets the token (already forgotten).
      (c.agent as any PartnerTokenSetting).setPartnerTokenForCheck(nil)
      let refused = try await connectState(c) { c.agent.tryReconnectLastDevice() }
      try require(refused != "bleConnectState 1", "connected after setPartnerToken(nil)")
      (c.agent as any PartnerTokenSetting).setPartnerTokenForCheck(FacadeBench.userToken)
      let state = try await connectState(c) { c.agent.tryReconnectLastDevice() }
      try require(state == "bleConnectState 1", "\(state) \(c.lastFailure)")
      return .answered("nil refuses the connect, the token lets it through")
    },
    on(.device, agent, #"`func setUserAccessToken(_ token: String?)`"#) { c in
      c.agent.setUserAccessToken(nil)
      _ = try await connectState(c) { c.agent.disconnect() }
      let refused = try await connectState(c) { c.agent.tryReconnectLastDevice() }
      try require(refused != "bleConnectState 1", "connected with the token cleared")
      c.agent.setUserAccessToken(FacadeBench.userToken)
      let state = try await connectState(c) { c.agent.tryReconnectLastDevice() }
      try require(state == "bleConnectState 1", "\(state) \(c.lastFailure)")
      return .answered("in force at the next handshake")
    },
    on(.device, agent, #"`func connectBleDevice(bleDevice: BleDevice, deviceToken: String)`"#) {
      c in
      _ = try await connectState(c) { c.agent.disconnect() }
      // Another account's id: the device refuses the handshake token made from it.
      let refused = try await connectState(c) {
        c.agent.connectBleDevice(
          bleDevice: BleDevice(serialNumber: c.serial), deviceToken: "user-1")
      }
      try require(refused == "bleConnectState -2", "\(refused) \(c.lastFailure)")
      // The user's own id (the token's `sub`): connected.
      let state = try await connectState(c) {
        c.agent.connectBleDevice(
          bleDevice: BleDevice(serialNumber: c.serial),
          deviceToken: "client_user_01234567-89ab-cdef-0123-456789abcdef")
      }
      try require(state == "bleConnectState 1", "\(state) \(c.lastFailure)")
      return .answered("connected with the user's id, refused with another's")
    },
    on(.device, agent, #"`func clearAllFiles()`"#) { c in
      // The 600 s recording was never moved whole: RecorderKit refuses to erase it.
      let entry = try await c.call({ c.agent.clearAllFiles() }, heard: "bleClearAllFile ")
      try require(entry == "bleClearAllFile -1", entry)
      try require(try await onDevice(c)[c.recordings[2]] != nil, "an unsynced recording erased")
      return .answered("refused with an unsynced recording: \(entry)")
    },
    on(.device, agent, #"`func depair(clear: Bool = false)`"#) { c in
      let held = try await onDevice(c).count
      let entry = try await c.call({ c.agent.depair(clear: true) }, heard: "bleDepair ")
      try require(entry == "bleDepair 0", entry)
      try await eventually("link down") { !(await c.device.isConnected) }
      try require(try await onDevice(c).count == held, "recordings erased")
      return .answered("unbound, \(held) recordings kept")
    },
    on(.device, callbacks, #"`optional func bleDepair(_ status: Int)`"#) { c in
      try require(c.log.has("bleDepair 0"), "no bleDepair 0")
      return .answered("bleDepair 0")
    },
    on(.device, callbacks, #"`optional func bleScanOverTime()`"#) { c in
      await c.device.goOutOfRange()
      let entry = try await c.call({ c.agent.startScan() }, heard: "bleScanOverTime")
      return .answered("\(entry) when nothing was heard")
    },
  ]
}

/// `setPartnerToken(_:)` is deprecated; a check calls it through this protocol so the call
/// compiles without a deprecation warning.
protocol PartnerTokenSetting { func setPartnerTokenForCheck(_ token: String?) }

extension PlaudDeviceAgent: PartnerTokenSetting {
  @available(*, deprecated)
  func setPartnerTokenForCheck(_ token: String?) { setPartnerToken(token) }
}
