import Foundation
import RecorderKit

/// A tag (mark) the device stored while recording: the mark button, a scene change.
public struct PlaudDeviceTag: Sendable, Equatable {
  /// Unix seconds.
  public var time: Int
  /// The device's tag type.
  public var type: Int
  /// The device's tag status.
  public var status: Int

  public init(time: Int, type: Int, status: Int) {
    self.time = time
    self.type = type
    self.status = status
  }
}

/// Device control beyond the vendor's reference (002 names none of these): settings by
/// PROTOCOL.md §3.1 id, the name, privacy, the LED and the tags. RecorderKit additions, in
/// the facade's style: each runs in call order with the other commands and answers once,
/// on the facade's callback queue, with the value the device reports or why it failed
/// (also ``PlaudDeviceAgent/lastError``).
extension PlaudDeviceAgent {
  /// Reads one setting (SETTINGS read): `id` as in PROTOCOL.md §3.1 (23 auto power-off, …).
  public func getSetting(_ id: Int, completion: @escaping (Result<Int, PlaudSDKError>) -> Void) {
    guard let setting = UInt16(exactly: id) else {
      return answer(.failure(.operationFailed("setting id \(id) is out of range")), completion)
    }
    control(completion) { session throws(DeviceError) in
      Int(try await session.readSetting(setting))
    }
  }

  /// Writes one setting and answers with the value the device reports back.
  public func setSetting(
    _ id: Int, value: Int, completion: @escaping (Result<Int, PlaudSDKError>) -> Void
  ) {
    guard let setting = UInt16(exactly: id), let raw = UInt32(exactly: value) else {
      return answer(
        .failure(.operationFailed("setting \(id) = \(value) is out of range")), completion)
    }
    control(completion) { session throws(DeviceError) in
      Int(try await session.writeSetting(setting, value: raw))
    }
  }

  /// Renames the device (at most 32 bytes of UTF-8); answers with the name it now reports.
  public func renameDevice(
    _ name: String, completion: @escaping (Result<String, PlaudSDKError>) -> Void
  ) {
    control(completion) { session throws(DeviceError) in try await session.rename(to: name) }
  }

  /// Turns privacy mode on or off; answers with the state the device reports.
  public func setPrivacy(_ on: Bool, completion: @escaping (Result<Bool, PlaudSDKError>) -> Void) {
    control(completion) { session throws(DeviceError) in try await session.setPrivacy(on) }
  }

  /// Reads whether the device's LED is on.
  public func getLED(completion: @escaping (Result<Bool, PlaudSDKError>) -> Void) {
    control(completion) { session throws(DeviceError) in try await session.led() }
  }

  /// Turns the LED on or off; answers with the state the device reports.
  public func setLED(_ on: Bool, completion: @escaping (Result<Bool, PlaudSDKError>) -> Void) {
    control(completion) { session throws(DeviceError) in try await session.setLED(on) }
  }

  /// The tags stored between unix seconds `from` and `to` (all by default).
  public func getTags(
    from: Int = 0, to: Int = Int(UInt32.max),
    completion: @escaping (Result<[PlaudDeviceTag], PlaudSDKError>) -> Void
  ) {
    let start = UInt32(clamping: from)
    let end = UInt32(clamping: to)
    control(completion) { session throws(DeviceError) in
      try await session.tags(from: start, to: end).map {
        PlaudDeviceTag(time: Int($0.time), type: Int($0.type), status: Int($0.status))
      }
    }
  }

  /// Queues `body` behind the other commands and answers on the callback queue (also the
  /// door PlaudBleSDK's `BleAgent` commands go through: the same session, in the same order).
  package func control<Value: Sendable>(
    _ completion: @escaping (Result<Value, PlaudSDKError>) -> Void,
    _ body: @escaping @Sendable (DeviceSession) async throws(DeviceError) -> Value
  ) {
    let closure = AppClosure(completion)
    let queue = callbackQueue
    enqueue { core in
      let result = await core.control(body)
      queue.async { closure.body(result) }
    }
  }

  private func answer<Value: Sendable>(
    _ result: Result<Value, PlaudSDKError>,
    _ completion: @escaping (Result<Value, PlaudSDKError>) -> Void
  ) {
    let closure = AppClosure(completion)
    callbackQueue.async { closure.body(result) }
  }
}
