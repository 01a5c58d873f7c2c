import Foundation
import PlaudDeviceBasicSDK
import RecorderKit
import RecorderProtocol

/// The plumbing of PlaudBleSDK's `BleAgent` members: every command goes to the facade agent
/// BleAgent stands for (the one connected, `PlaudDeviceAgent.shared` in an app), in that
/// agent's command order and over its session; answers go to ``BleAgentProtocol`` on
/// ``BleAgent/cmdDelegateQueue``.
extension BleAgent {
  static let notSupportedByRecorderKit = "not supported by RecorderKit"

  /// The facade agent, or nil with ``lastError`` set to `.notConnected` for `member`.
  func facade(_ member: String) -> PlaudDeviceAgent? {
    guard let agent else {
      record(.notConnected, member)
      return nil
    }
    return agent
  }

  /// Runs `body` on the session (after the agent's earlier commands); `answer` gets the
  /// result on the delegate queue. Not connected, or the device failed: `answer(.failure)`
  /// with ``lastError`` set.
  func lower<Value: Sendable>(
    _ member: String,
    _ body: @escaping @Sendable (DeviceSession) async throws(DeviceError) -> Value,
    answer: @escaping @Sendable (any BleAgentProtocol, Result<Value, PlaudSDKError>) -> Void
  ) {
    guard let agent = facade(member) else {
      BleAgentListener.send { answer($0, .failure(.notConnected)) }
      return
    }
    agent.control(
      { result in
        if case .failure(let error) = result { BleAgent.shared.record(error, member) }
        BleAgentListener.send { answer($0, result) }
      }, body)
  }

  /// A member whose wire behaviour no source of RecorderKit's knows: ``lastError`` says so,
  /// the write-log block hears it, and `own` (the member's own callback with its failure
  /// status) is sent, when it has one.
  func unsupported(
    _ member: String, _ reason: String,
    own: (@Sendable (any BleAgentProtocol) -> Void)? = nil
  ) {
    record(.notSupported(member: member, reason: reason), member)
    if let own { BleAgentListener.send(own) }
  }

  func record(_ error: PlaudSDKError, _ member: String) {
    LowerState.shared.withLock { $0.lastError = error }
    wlog("BleAgent.\(member): \(error)")
  }

  /// Reads (`write` nil) or writes a device setting (PROTOCOL.md §3.1); `report` gets the
  /// value the device reports, or -1 when the command failed (``lastError`` says why).
  func setting(
    _ setting: DeviceSetting, write value: Int?, _ member: String,
    report: @escaping @Sendable (any BleAgentProtocol, Int) -> Void
  ) {
    let raw = value.map { UInt32(clamping: $0) }
    lower(
      member,
      { session throws(DeviceError) in
        if let raw { return Int(try await session.writeSetting(setting, value: raw)) }
        return Int(try await session.readSetting(setting))
      },
      answer: { delegate, result in
        let reported = (try? result.get()) ?? -1
        if setting == .scene, reported >= 0 {
          LowerState.shared.withLock { $0.settingScene = reported }
        }
        report(delegate, reported)
      })
  }

  static func otaSend(_ call: @escaping @Sendable (any OtaProtocol) -> Void) {
    let (ota, queue) = LowerState.shared.withLock { ($0.otaDelegateObject, $0.cmdDelegateQueue) }
    queue.async {
      guard let target = ota.value as? any OtaProtocol else { return }
      call(target)
    }
  }
}
