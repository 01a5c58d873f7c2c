import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import TestSupport
import Testing

/// Issue 6, device control through the facade: settings by id, rename, privacy, LED and
/// tags against the emulator, each answering once with what the device reports, and a clear
/// error when nothing is connected.
@Suite("Facade: device control")
struct DeviceControlTests {
  /// Waits for one completion (a hang guard in real time; the facade answers on its queue).
  private func call<Value: Sendable>(
    _ start: (@escaping (Result<Value, PlaudSDKError>) -> Void) -> Void
  ) async throws -> Result<Value, PlaudSDKError> {
    let box = Locked<Result<Value, PlaudSDKError>?>(nil)
    start { result in box.withLock { $0 = result } }
    try await eventually("completion") { box.withLock { $0 } != nil }
    return try #require(box.withLock { $0 })
  }

  @Test("settings, name, privacy, LED and tags through PlaudDeviceAgent")
  func controlThroughTheFacade() async throws {
    let bench = try FacadeBench()
    defer { bench.cleanUp() }
    let log = CallbackLog()
    bench.agent.delegate = log
    bench.agent.initSDK(
      userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
    bench.agent.connectBySN(bench.device.serial)
    try await eventually("connected") { log.count("bleStorage") == 1 }

    #expect(try await call { bench.agent.setSetting(23, value: 4, completion: $0) }.get() == 4)
    #expect(await bench.device.setting(23) == 4)
    #expect(try await call { bench.agent.getSetting(23, completion: $0) }.get() == 4)

    let renamed = try await call { bench.agent.renameDevice("Desk recorder", completion: $0) }
    #expect(try renamed.get() == "Desk recorder")

    #expect(try await call { bench.agent.setPrivacy(true, completion: $0) }.get() == true)
    #expect(try await call { bench.agent.setLED(false, completion: $0) }.get() == false)
    #expect(try await call { bench.agent.getLED(completion: $0) }.get() == false)
    #expect(try await call { bench.agent.setLED(true, completion: $0) }.get() == true)

    await bench.device.pressMarkButton()
    let tags = try await call { bench.agent.getTags(completion: $0) }.get()
    #expect(tags.count == 1)

    // Bad input is refused before anything is sent.
    let outOfRange = try await call { bench.agent.getSetting(70_000, completion: $0) }
    #expect(throws: PlaudSDKError.self) { try outOfRange.get() }
    let tooLong = try await call {
      bench.agent.renameDevice(String(repeating: "n", count: 40), completion: $0)
    }
    #expect(throws: PlaudSDKError.self) { try tooLong.get() }
  }

  @Test("without a connection every control call answers notConnected")
  func controlWithoutAConnection() async throws {
    let bench = try FacadeBench()
    defer { bench.cleanUp() }
    let result = try await call { bench.agent.getLED(completion: $0) }
    #expect(throws: PlaudSDKError.notConnected) { try result.get() }
    #expect(bench.agent.lastError == .notConnected)
  }
}
