import Foundation
import PlaudDeviceBasicSDK
import RecorderEmulator
import TestSupport
import Testing

@testable import PlaudDeviceBasicSDK

/// The checks on a connected emulated recorder (two recordings on it), in the order they run:
/// the connect's callbacks, the device commands, recording, files, then the members that are
/// not supported, then the callbacks that must never have fired.
extension MemberStatusRegistry {
  static let agent = "PlaudDeviceAgent"
  static let update = "PlaudDeviceAgent (update-check API)"
  static let callbacks = "PlaudDeviceAgentProtocol"

  static let device: [MemberCheck] =
    deviceConnect + deviceCommands + deviceFiles + deviceTransfers + deviceRefusals
    + deviceNeverFired + deviceLast + deviceReconnect

  // MARK: - The connect

  static let deviceConnect: [MemberCheck] = [
    on(.device, agent, #"`weak var delegate: (any PlaudDeviceAgentProtocol)? { get set }`"#) {
      c in
      try require(c.agent.delegate === c.log, "the delegate set is not the one read back")
      try require(c.log.count("bleBind") == 1, "the delegate heard no bleBind")
      return .answered("the delegate set heard the connect")
    },
    on(
      .device, agent,
      #"`func initSDK(userAccessToken: String, customDomain: String, extra: [String: String] = [:])`"#
    ) { c in
      // The connect's handshake used the token initSDK set: the device bound.
      try require(c.log.has("bleBind \(c.serial) 0"), "not bound: \(c.log.all.prefix(8))")
      return .answered("the handshake with its token bound")
    },
    on(.device, agent, #"`func isConnected() -> Bool`"#) { c in
      try require(c.agent.isConnected(), "isConnected() is false while bound")
      try require(await c.device.isAuthenticated, "the device is not authenticated")
      return .answered("true while the device is authenticated")
    },
    on(.device, callbacks, #"`optional func bleConnectState(state: Int)`"#) { c in
      try require(c.log.has("bleConnectState 1"), "no bleConnectState 1: \(c.log.all.prefix(8))")
      return .answered("bleConnectState 1")
    },
    on(
      .device, callbacks,
      #"`optional func bleBind(sn: String?, status: Int, protVersion: Int, timezone: Int)`"#
    ) { c in
      try require(c.log.has("bleBind \(c.serial) 0"), "no bleBind \(c.serial) 0")
      return .answered("bleBind with the device's serial, 0")
    },
    on(.device, callbacks, #"`optional func bleStorage(total: Int, free: Int, duration: Int)`"#) {
      c in
      let entry = try #require(c.log.last("bleStorage "))
      let parts = entry.split(separator: " ").compactMap { Int($0) }
      try require(parts.count == 2 && parts[0] > 0 && parts[1] <= parts[0], entry)
      return .answered(entry)
    },
    on(.device, agent, #"`var recentConnectDevice: BleDevice? { get set }`"#) { c in
      let recent = try #require(c.agent.recentConnectDevice)
      try require(recent.serialNumber == c.serial, "recent is \(recent.serialNumber)")
      return .answered("the connected device's serial")
    },
    on(
      .device, "BleDevice",
      #"`var serialNumber: String  (TA: keys [String: BleDevice], isSupportedDevice(sn:))`"#
    ) { c in
      let recent = try #require(c.agent.recentConnectDevice)
      try require(recent.serialNumber == c.serial, "serialNumber \(recent.serialNumber)")
      return .answered(recent.serialNumber)
    },
    on(.device, "BleDevice", #"`var power: Int  (TA: PlaudDevice(batteryLevel: Int))`"#) { c in
      let recent = try #require(c.agent.recentConnectDevice)
      let level = Int(c.device.configuration.batteryLevel)
      try require(recent.power == level, "power \(recent.power), the device's \(level)")
      return .answered("power \(recent.power)")
    },
    on(
      .device, "BleDevice",
      #"`var name: String  (TA: scanDisplayName(rawName: String), PlaudDevice(name: String))`"#
    ) { c in
      let recent = try #require(c.agent.recentConnectDevice)
      try require(!recent.name.isEmpty, "an empty name")
      return .answered("name \(recent.name)")
    },
    on(
      .device, "BleDevice",
      #"`var versionTypeStr  (TA: "\(type)\(formatVersionCode(...))", the "V" prefix; type not pinned)`"#
    ) { c in
      let recent = try #require(c.agent.recentConnectDevice)
      try require(recent.versionTypeStr == "V", "versionTypeStr \(recent.versionTypeStr)")
      return .answered("V")
    },
    on(
      .device, "BleDevice",
      #"`var versionCode: Int  (TA: formatVersionCode(_ code: Int), "major.minor.patch" packed in bytes)`"#
    ) { c in
      let recent = try #require(c.agent.recentConnectDevice)
      let firmware = c.device.configuration.firmware.description
      try require(
        recent.versionCode > 0 && firmware.hasSuffix(String(recent.versionCode)),
        "versionCode \(recent.versionCode), the device's firmware \(firmware)")
      return .answered("versionCode \(recent.versionCode) of \(firmware)")
    },
  ]

  // MARK: - Device commands

  static let deviceCommands: [MemberCheck] = [
    on(.device, agent, #"`func getState()`"#) { c in
      let entry = try await c.call({ c.agent.getState() }, heard: "blePenState ")
      return .answered(entry)
    },
    on(
      .device, callbacks,
      #"`func blePenState(state:privacy:keyState:uDisk:findMyToken:hasSndpKey:deviceAccessToken: Int...)  (required)`"#
    ) { c in
      let entry = try await c.call({ c.agent.getState() }, heard: "blePenState ")
      return .answered(entry)
    },
    on(.device, agent, #"`func getStorage()`"#) { c in
      let entry = try await c.call({ c.agent.getStorage() }, heard: "bleStorage ")
      return .answered(entry)
    },
    on(.device, agent, #"`func getChargingState()`"#) { c in
      let entry = try await c.call({ c.agent.getChargingState() }, heard: "bleChargingState ")
      let level = Int(c.device.configuration.batteryLevel)
      try require(entry.hasSuffix(" \(level)"), "\(entry), the device's level \(level)")
      return .answered(entry)
    },
    on(.device, callbacks, #"`optional func bleChargingState(isCharging: Bool, level: Int)`"#) {
      c in
      let entry = try await c.call({ c.agent.getChargingState() }, heard: "bleChargingState ")
      return .answered(entry)
    },
    on(.device, agent, #"`func setMicGain(value: Int)`"#) { c in
      let entry = try await c.call({ c.agent.setMicGain(value: 17) }, heard: "bleMicGain ")
      try require(entry == "bleMicGain 17", entry)
      try require(await c.device.setting(20) == 17, "the device's setting 20 is not 17")
      return .answered(entry)
    },
    on(.device, agent, #"`func readMicGain()`"#) { c in
      let entry = try await c.call({ c.agent.readMicGain() }, heard: "bleMicGain ")
      try require(entry == "bleMicGain 17", "\(entry), the device holds 17")
      return .answered(entry)
    },
    on(.device, callbacks, #"`optional func bleMicGain(_ value: Int)`"#) { c in
      let entry = try await c.call({ c.agent.setMicGain(value: 9) }, heard: "bleMicGain ")
      try require(entry == "bleMicGain 9", entry)
      return .answered(entry)
    },
    on(.device, agent, #"`func setDeviceName(_ name: String)`"#) { c in
      let entry = try await c.call(
        { c.agent.setDeviceName("Status Bench") }, heard: "bleDeviceName ")
      try require(entry == "bleDeviceName Status Bench", entry)
      return .answered(entry)
    },
    on(.device, callbacks, #"`optional func bleDeviceName(name: String?)`"#) { c in
      let entry = try await c.call({ c.agent.setDeviceName("Bench Two") }, heard: "bleDeviceName ")
      try require(entry == "bleDeviceName Bench Two", entry)
      try require(c.agent.recentConnectDevice?.name == "Bench Two", "recent's name not followed")
      return .answered(entry)
    },
    on(.device, agent, #"`func startRecord()`"#) { c in
      // The recording's steps follow one another with the clock held (an idle moment of a
      // busy machine's is no jump to the recording's 5-hour limit); stopRecord ends the hold.
      c.hold.withLock { $0 = c.clock.beginWork(ClockHold("member checks: one recording")) }
      let entry = try await c.call({ c.agent.startRecord() }, heard: "bleRecordStart ")
      try require(await c.device.recordingSessionId != nil, "the device is not recording")
      return .answered(entry)
    },
    on(
      .device, callbacks,
      #"`optional func bleRecordStart(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int, reason: Int)`"#
    ) { c in
      let entry = try #require(c.log.last("bleRecordStart "))
      let id = try #require(await c.device.recordingSessionId)
      try require(entry == "bleRecordStart \(id.rawValue) 0 1", "\(entry), recording \(id)")
      return .answered(entry)
    },
    on(.device, agent, #"`func checkIsRecording() -> Bool`"#) { c in
      try require(c.agent.checkIsRecording(), "false while recording")
      return .answered("true while recording")
    },
    on(.device, agent, #"`func getCurrentSessionID() -> Int`"#) { c in
      let id = try #require(await c.device.recordingSessionId)
      try require(c.agent.getCurrentSessionID() == Int(id.rawValue), "not the device's \(id)")
      return .answered("the recording's id")
    },
    on(.device, agent, #"`var sceneFlag: Int { get }`"#) { c in
      try require(c.agent.sceneFlag == 1, "sceneFlag \(c.agent.sceneFlag) while recording scene 1")
      return .answered("scene 1")
    },
    on(.device, agent, #"`func pauseRecord()`"#) { c in
      .answered(try await c.call({ c.agent.pauseRecord() }, heard: "bleRecordPause "))
    },
    on(
      .device, callbacks,
      #"`optional func bleRecordPause(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)`"#
    ) { c in
      let id = c.agent.getCurrentSessionID()
      try require(c.log.has("bleRecordPause \(id)"), "no bleRecordPause \(id)")
      return .answered("bleRecordPause \(id)")
    },
    on(.device, agent, #"`func resumeRecord()`"#) { c in
      .answered(try await c.call({ c.agent.resumeRecord() }, heard: "bleRecordResume "))
    },
    on(
      .device, callbacks,
      #"`optional func bleRecordResume(sessionId: Int, start: Int, status: Int, scene: Int, startTime: Int)`"#
    ) { c in
      let id = c.agent.getCurrentSessionID()
      try require(c.log.has("bleRecordResume \(id) 0"), "no bleRecordResume \(id) 0")
      return .answered("bleRecordResume \(id) 0")
    },
    on(.device, agent, #"`func stopRecord()`"#) { c in
      c.clock.advance(by: .seconds(2))
      defer { c.hold.withLock { $0 }?.end() }
      let entry = try await c.call({ c.agent.stopRecord() }, heard: "bleRecordStop ")
      try await eventually("stopped") {
        await c.device.recordingSessionId == nil
      }
      return .answered(entry)
    },
    on(
      .device, callbacks,
      #"`optional func bleRecordStop(sessionId: Int, reason: Int, fileExist: Bool, fileSize: Int)`"#
    ) { c in
      let entry = try #require(c.log.last("bleRecordStop "))
      try require(entry.hasSuffix(" true"), "\(entry): no file")
      try require(!c.agent.checkIsRecording(), "still recording")
      return .answered(entry)
    },
  ]
}
