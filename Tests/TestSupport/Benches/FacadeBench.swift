import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink
import RecorderTesting

/// An emulated recorder on a manual clock, and a facade agent wired to it in process. With
/// `wifi`, the device also answers hotspot joins on a loopback join port
/// (`HotspotJoinServer` → `EmulatedDevice.joinHotspot`) and the agent joins through it with
/// `TCPHotspotJoiner`; its Wi-Fi session then runs over real loopback TCP on the same manual
/// clock (the emulated device holds it while messages cross TCP and moves it on for the
/// content it sends).
package struct FacadeBench {
  package let clock = ManualClock()
  package let device: EmulatedDevice
  package let central: EmulatorCentral
  package let directory: String
  package let agent: PlaudDeviceAgent
  package let beacon: RangeBeacon
  package let joinServer: HotspotJoinServer?

  /// `portVersion` 20 or more: a Mode B device (PROTOCOL.md §9); with `e2ee` too, its
  /// recordings are stored end-to-end encrypted to the user key the facade will find in its
  /// key store (made here first, as an earlier session of the app would have).
  /// With `backgroundTasks`, every facade command runs inside one of its background tasks.
  /// `configure` changes the device's configuration last (its serial, model, Wi-Fi
  /// behaviour).
  package init(
    seed: UInt64 = 1, wifi: Bool = false, portVersion: UInt16 = 10, e2ee: Bool = false,
    backgroundTasks: (any BackgroundTaskMirror)? = nil,
    exportPolicy: ExportPolicy = .convertImmediately,
    configure: (inout DeviceConfiguration) -> Void = { _ in }
  ) throws {
    directory = NSTemporaryDirectory() + "plaud-facade-\(UUID().uuidString)"
    // The hotspot's start-up delay passes on the same clock the facade's join waits on.
    var deviceConfiguration = DeviceConfiguration(seed: seed, wifi: WiFiParameters())
    deviceConfiguration.portVersion = portVersion
    if e2ee {
      let ring = UserKeyRing(store: FileKeyStore(directory: directory + "/store/keys"))
      let key = try ring.userKey(forUser: deviceConfiguration.token.revealed)
      deviceConfiguration.modeB.e2eeUserKey = try key.publicKey()
    }
    configure(&deviceConfiguration)
    device = try EmulatedDevice(
      configuration: deviceConfiguration, flashDirectory: directory + "/flash",
      time: .manual(clock))
    central = EmulatorCentral(device: device)
    beacon = RangeBeacon(device: device)
    var configuration = PlaudSDKConfiguration(
      central: central, storageRoot: directory + "/store", clock: AnyClock(clock),
      beaconMonitor: beacon)
    // Its own domain manager: `.shared` is one per process, and tests run in parallel.
    configuration.domainManager = PlaudDomainManager()
    configuration.unixTime = { 1_775_395_281 }
    configuration.timeZoneSeconds = { 3 * 3600 }
    configuration.scanTimeout = .seconds(5)
    configuration.backgroundTasks = backgroundTasks
    configuration.exportPolicy = exportPolicy
    if wifi {
      let device = self.device
      let server = try HotspotJoinServer { request in await device.joinHotspot(request) }
      joinServer = server
      configuration.hotspotJoiner = TCPHotspotJoiner(host: "127.0.0.1", port: server.port)
      configuration.wifiServer = WiFiLink.Configuration(
        host: "127.0.0.1", port: 0, connectTimeout: .seconds(20))
      configuration.wifiRetryInterval = .milliseconds(200)
      configuration.wifiResponseTimeout = .seconds(30)
    } else {
      joinServer = nil
    }
    agent = PlaudDeviceAgent(configuration: configuration)
    clock.startAutoAdvance()
  }

  package var exports: String { directory + "/exports" }

  /// Sets `delegate`, the user token, and connects by serial: the answers arrive on
  /// `delegate`.
  package func connect(_ delegate: any PlaudDeviceAgentProtocol) {
    agent.delegate = delegate
    agent.initSDK(userAccessToken: Self.userToken, customDomain: FacadeBench.offlineDomain)
    agent.connectBySN(device.serial)
  }

  /// The user records `duration` (virtual time) with the device's button: its session id.
  package func recordOnDevice(for duration: Duration) async throws -> SessionID {
    guard let sessionId = await device.startRecordingOnDevice() else {
      throw BenchError("the device did not start recording")
    }
    try await anyClock.sleep(for: duration)
    await device.stopRecordingOnDevice()
    return sessionId
  }
  package var anyClock: AnyClock { AnyClock(clock) }

  package func cleanUp() {
    joinServer?.stop()
    clock.stopAutoAdvance()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// The cloud domain of tests that need none: loopback port 9 (discard), refused at once,
  /// so a cloud request (a Mode B serial signature, say) fails fast and never leaves the
  /// machine.
  package static let offlineDomain = "127.0.0.1:9"

  /// A JWT whose `sub` derives the emulator's token (PROTOCOL.md §8).
  package static let userToken = jwt(
    payload: #"{"sub":"client_user_01234567-89ab-cdef-0123-456789abcdef"}"#)

  package static func jwt(payload: String) -> String {
    func encode(_ text: String) -> String {
      Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    return encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + encode(payload) + ".c2lnbmF0dXJl"
  }
}

/// Waits (in real time, the virtual clock running on its own) until `condition` holds; the
/// timeout is a hang guard, generous because `make tsan` runs ~50x slower.
package func eventually(
  _ what: String, timeout: Duration = .seconds(120), _ condition: @Sendable () async -> Bool
) async throws {
  let start = ContinuousClock.now
  while !(await condition()) {
    if ContinuousClock.now - start > timeout { throw TestTimeout(what: what) }
    try await Task.sleep(for: .milliseconds(2))
  }
}

package struct TestTimeout: Error, CustomStringConvertible {
  package let what: String
  package var description: String { "timed out waiting for \(what)" }
}

/// The beacon service for tests: the recorder's iBeacon is "heard" when its advertising
/// reappears after it left range (observed with `EmulatedDevice.observeAdvertising()`; the
/// emulator has no beacon of its own).
package final class RangeBeacon: BeaconMonitor {
  private struct State {
    package var away = false
    package var serials: Set<String> = []
    package var wakes: [String] = []
  }
  private let device: EmulatedDevice
  private let state = Locked(State())
  private let granted = Locked(BeaconAuthorization.whenInUse)

  package init(device: EmulatedDevice) { self.device = device }

  package var authorization: BeaconAuthorization { granted.withLock { $0 } }
  package var wakeCount: Int { state.withLock { $0.wakes.count } }

  package func requestAlwaysAuthorization() async -> Bool {
    granted.withLock { $0 = .always }
    return true
  }

  package func monitor(serials: [String]) async -> BeaconWatch {
    state.withLock { $0.serials = Set(serials) }
    return BeaconWatch(watched: serials)
  }

  package func wakeUps() -> AsyncStream<String> {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    let device = self.device
    let state = self.state
    let task = Task {
      for await advertisement in await device.observeAdvertising() {
        guard let heard = RecorderScanner.recognise(advertisement)?.serial else { continue }
        let wake = state.withLock { state -> Bool in
          guard state.away, state.serials.contains(heard) else { return false }
          state.away = false
          state.wakes.append(heard)
          return true
        }
        if wake { continuation.yield(heard) }
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
  }

  /// The recorder walks out of range (the link drops).
  package func leaveRange() async {
    state.withLock { $0.away = true }
    await device.goOutOfRange()
  }
}
