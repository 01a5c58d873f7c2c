import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// Issue 15: the cloud client against the cloud emulator (real loopback HTTP; backoff on a
/// manual clock, seeded jitter).
@Suite("Cloud client against the cloud emulator", .serialized)
struct CloudClientTests {
  static let serial = "8881234567890123"

  struct Bench {
    let cloud: CloudEmulator
    let clock = ManualClock()
    let jwt: String
    let user: UserToken

    init() throws {
      cloud = try CloudEmulator()
      jwt = cloud.issueToken(userID: "4f1c-22aa-9d03")
      user = try UserToken(jwt: jwt)
      clock.startAutoAdvance()
    }

    func client(
      attempts: Int = 4, timeout: Duration = .seconds(30),
      refresher: (@Sendable () async -> UserToken?)? = nil
    ) throws -> CloudClient {
      var configuration = CloudClient.Configuration()
      configuration.clock = AnyClock(clock)
      configuration.retry = RetryPolicy(maximumAttempts: attempts, jitter: RetryPolicy.seeded(7))
      configuration.requestTimeout = timeout
      configuration.tokenRefresher = refresher
      return try CloudClient(domain: cloud.url, userToken: user, configuration: configuration)
    }

    func cleanUp() {
      clock.stopAutoAdvance()
      cloud.stop()
    }
  }

  @Test("bind registers the device; binding again is idempotent; unbind twice too")
  func bindIdempotent() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let client = try bench.client()
    try await client.bind(serial: Self.serial)
    #expect(bench.cloud.binding(of: Self.serial) == "4f1c-22aa-9d03")
    try await client.bind(serial: Self.serial)
    #expect(bench.cloud.binding(of: Self.serial) == "4f1c-22aa-9d03")
    #expect(try await client.isBound(serial: Self.serial) == true)
    try await client.unbind(serial: Self.serial)
    try await client.unbind(serial: Self.serial)
    #expect(bench.cloud.binding(of: Self.serial) == nil)
    // Five requests, each answered 200 (a retry after a lost answer on a loaded machine adds
    // one more: binding is idempotent, so that is harmless).
    #expect(bench.cloud.requestLog.count >= 5)
    #expect(bench.cloud.requestLog.allSatisfy { $0.status == 200 })
  }

  @Test("Mode B: gen-key stores the user's public key; sn-sign's signature reaches FE10")
  func modeBKeyAndSignature() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let client = try bench.client()
    let key = try TestUserKey.key()
    try await client.registerUserKey(try key.publicKey())
    #expect(bench.cloud.userPublicKey(of: "4f1c-22aa-9d03") == (try key.publicKey()))
    let signature = try await client.serialSignature(serial: Self.serial)
    #expect(signature == bench.cloud.serialSignature(for: Self.serial))
    #expect(signature.count == 32)
    // The credentials a session would use send exactly these bytes as FE10.
    let credentials = ModeBCredentials(userKey: key) { serial in
      (try? await client.serialSignature(serial: serial)) ?? []
    }
    #expect(await credentials.serialSignature(Self.serial) == signature)
  }

  /// A device that checks FE10 answers only sn-sign's signature; the key it asks for (FE11)
  /// is registered with gen-key.
  @Test("Mode B through the cloud: FE10 from sn-sign, the FE11 key registered with gen-key")
  func modeBSessionThroughTheCloud() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let client = try bench.client()
    var modeB = ModeBParameters()
    let serial = DeviceConfiguration(seed: 1).serial
    modeB.requiredSerialSignature = bench.cloud.serialSignature(for: serial)
    let device = try SyncBench(
      seed: 1, portVersion: ProtocolDefaults.modeBPortVersion, modeB: modeB)
    defer { device.cleanUp() }
    let key = try TestUserKey.key()

    // No cloud: an empty signature, which this device leaves unanswered until it drops a
    // central that did not authenticate in time: refused, and the error says why.
    await #expect(throws: DeviceError.modeB(.serialSignatureUnanswered(signed: false))) {
      try await device.connect(modeB: ModeBCredentials(userKey: key))
    }
    #expect(await device.device.counters.refusedSerialSignatures == 1)
    #expect(bench.cloud.userPublicKey(of: "4f1c-22aa-9d03") == nil)

    let session = try await device.connect(modeB: ModeBCredentials(userKey: key).usingCloud(client))
    #expect(await session.info.serial == serial)
    await session.close()
    #expect(await device.device.counters.refusedSerialSignatures == 1)
    // gen-key runs beside the handshake (real loopback HTTP): wait for it, bounded.
    let registered = try key.publicKey()
    let started = ContinuousClock.now
    while bench.cloud.userPublicKey(of: "4f1c-22aa-9d03") != registered,
      ContinuousClock.now - started < .seconds(20)
    {
      await Task.yield()
    }
    #expect(bench.cloud.userPublicKey(of: "4f1c-22aa-9d03") == registered)
  }

  @Test("a cloud failure is reported and the handshake goes on with an empty signature")
  func modeBCloudFailureIsReported() async throws {
    let bench = try Bench()
    let client = try bench.client(attempts: 1, timeout: .seconds(1))
    bench.cleanUp()  // the cloud is gone
    let reports = Locked<[CloudError]>([])
    let credentials = ModeBCredentials(userKey: try TestUserKey.key()).usingCloud(client) {
      error in reports.withLock { $0.append(error) }
    }
    #expect(await credentials.serialSignature(Self.serial) == [])
    await credentials.publishUserKey(try TestUserKey.key().publicKey())
    let started = ContinuousClock.now
    while reports.withLock({ $0.count }) < 2, ContinuousClock.now - started < .seconds(20) {
      await Task.yield()
    }
    #expect(reports.withLock { $0.count } == 2)
    for error in reports.withLock({ $0 }) {
      #expect(!"\(error)".contains(bench.jwt), "no token in a cloud error")
    }
  }

  @Test("the body carries {type, sn} with the type from the serial prefix")
  func deviceTypes() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let client = try bench.client()
    // The emulator answers 400 when the type does not match the serial's prefix.
    for serial in ["8801", "8812", "8823", "8884", "1234"] {
      try await client.bind(serial: serial)
    }
    #expect(CloudDeviceType(serial: "880123") == .notepin)
    #expect(CloudDeviceType(serial: "881123") == .notepro)
    #expect(CloudDeviceType(serial: "882123") == .notepins)
    #expect(CloudDeviceType(serial: "888123") == .note)
  }

  @Test("403: bound to another account")
  func boundElsewhere() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    bench.cloud.setBinding(serial: Self.serial, userID: "someone-else")
    let client = try bench.client()
    await #expect(throws: CloudError.boundToAnotherAccount(serial: Self.serial)) {
      try await client.bind(serial: Self.serial)
    }
    await #expect(throws: CloudError.boundToAnotherAccount(serial: Self.serial)) {
      try await client.unbind(serial: Self.serial)
    }
    #expect(bench.cloud.binding(of: Self.serial) == "someone-else")
  }

  @Test("401 is tokenExpired; after the app refreshes the token the bind succeeds")
  func expiredThenRefreshed() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    bench.cloud.expire(bench.jwt)
    let client = try bench.client()
    await #expect(throws: CloudError.tokenExpired) { try await client.bind(serial: Self.serial) }
    await client.setUserToken(try UserToken(jwt: bench.cloud.issueToken(userID: "4f1c-22aa-9d03")))
    try await client.bind(serial: Self.serial)
    #expect(bench.cloud.binding(of: Self.serial) == "4f1c-22aa-9d03")
  }

  @Test("401 with a refresher: the request is retried once with the fresh token")
  func refresherOn401() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    bench.cloud.expire(bench.jwt)
    let fresh = try UserToken(jwt: bench.cloud.issueToken(userID: "4f1c-22aa-9d03"))
    let calls = Locked(0)
    let client = try bench.client(refresher: {
      calls.withLock { $0 += 1 }
      return fresh
    })
    try await client.bind(serial: Self.serial)
    #expect(calls.withLock { $0 } == 1)
    #expect(bench.cloud.requestLog.map(\.status) == [401, 200])
    #expect(await client.userToken == fresh)
  }

  @Test("5xx is retried with backoff on the injected clock, then succeeds")
  func serverErrorsRetried() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    bench.cloud.setFaults(CloudFaults(serverErrors: 2))
    let client = try bench.client()
    let before = bench.clock.elapsed
    try await client.bind(serial: Self.serial)
    #expect(bench.cloud.requestLog.map(\.status) == [503, 503, 200])
    // The two waits are the policy's, with the same seeded jitter.
    let policy = RetryPolicy(jitter: RetryPolicy.seeded(7))
    let expected = policy.delay(beforeRetry: 1) + policy.delay(beforeRetry: 2)
    #expect(bench.clock.elapsed - before == expected)
    #expect(expected >= .milliseconds(750) && expected < .milliseconds(1500))
  }

  @Test("5xx that never ends: unavailable after the bounded attempts")
  func serverErrorsExhausted() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    bench.cloud.setFaults(CloudFaults(serverErrors: 10))
    let client = try bench.client(attempts: 3)
    await #expect(throws: CloudError.unavailable(status: 503, attempts: 3)) {
      try await client.bind(serial: Self.serial)
    }
    #expect(bench.cloud.requestLog.count == 3)
  }

  @Test("a token refreshed while a request waits to retry is the one its retry uses")
  func refreshAppliesToRetry() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    bench.cloud.setFaults(CloudFaults(serverErrors: 1))
    let client = try bench.client()
    // The first attempt (503) uses the old token; expire it so only a refreshed token can
    // make the retry succeed.
    let fresh = try UserToken(jwt: bench.cloud.issueToken(userID: "4f1c-22aa-9d03"))
    bench.clock.stopAutoAdvance()
    let bind = Task { try await client.bind(serial: Self.serial) }
    // Wait (bounded) until the request sleeps in its backoff.
    let inBackoff = await waitForSleeper(bench.clock)
    try #require(inBackoff, "the request never waited to retry")
    bench.cloud.expire(bench.jwt)
    await client.setUserToken(fresh)
    bench.clock.advanceToNextDeadline()
    try await bind.value
    #expect(bench.cloud.requestLog.map(\.status) == [503, 200])
  }

  @Test("a stalled response times out and is retried")
  func stalledRetried() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    bench.cloud.setFaults(CloudFaults(stalledResponses: 1))
    // The timeout is URLSession's, in real time (whole seconds on Linux): three seconds,
    // so a loaded machine still answers the retry within it (one second did not, once).
    let client = try bench.client(timeout: .seconds(3))
    let started = ContinuousClock.now
    try await client.bind(serial: Self.serial)
    #expect(ContinuousClock.now - started >= .seconds(3))
    #expect(bench.cloud.binding(of: Self.serial) == "4f1c-22aa-9d03")
    #expect(bench.cloud.requestLog.count == 2)
  }

  @Test("a malformed JSON body is a typed error, never a crash")
  func malformedBody() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    bench.cloud.setFaults(CloudFaults(malformedBodies: 2))
    let client = try bench.client()
    await #expect {
      try await client.bind(serial: Self.serial)
    } throws: { error in
      guard case CloudError.malformedResponse = error else { return false }
      return true
    }
    await #expect {
      try await client.checkFirmware(serial: Self.serial, current: FirmwareVersion("V0095")!)
    } throws: { error in
      guard case CloudError.malformedResponse = error else { return false }
      return true
    }
  }

  @Test("firmware check: fields mapped; no release means no update")
  func firmwareCheck() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let client = try bench.client()
    let current = FirmwareVersion("V0095")!
    #expect(
      try await client.checkFirmware(serial: Self.serial, current: current).hasUpdate == false)
    let image = EmulatedFirmwareImage.make(version: FirmwareVersion("V0096")!, size: 4096, seed: 1)
    bench.cloud.publishFirmware(
      type: "note", version: FirmwareVersion("V0096")!, image: image, notes: "fixes", force: true)
    let release = try await client.checkFirmware(serial: Self.serial, current: current)
    #expect(release.hasUpdate)
    #expect(release.currentVersion == "V0095")
    #expect(release.latestVersion == "V0096")
    #expect(release.versionCode == 96)
    #expect(release.releaseNotes == "fixes")
    #expect(release.isForce)
    #expect(release.md5.count == 32)
    #expect(release.downloadUrl == "/firmware/note-V0096.bin")
    let newer = try await client.checkFirmware(
      serial: Self.serial, current: FirmwareVersion("V0096")!)
    #expect(newer.hasUpdate == false)
  }

  @Test("a truncated firmware download resumes with Range and verifies")
  func truncatedDownloadResumes() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let image = EmulatedFirmwareImage.make(
      version: FirmwareVersion("V0096")!, size: 300_000, seed: 2)
    bench.cloud.publishFirmware(type: "note", version: FirmwareVersion("V0096")!, image: image)
    bench.cloud.setFaults(CloudFaults(truncatedDownloads: 1))
    let client = try bench.client()
    let release = try await client.checkFirmware(
      serial: Self.serial, current: FirmwareVersion("V0095")!)
    let directory = NSTemporaryDirectory() + "cloud-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let file = try await client.download(release, to: directory + "/fw.bin")
    #expect(file.size == image.count)
    #expect(try Data(contentsOf: URL(fileURLWithPath: file.path)) == Data(image))
    let downloads = bench.cloud.requestLog.filter { $0.path.hasPrefix("/firmware/") }
    #expect(downloads.map(\.status) == [200, 206])
    #expect(downloads.last?.range == "bytes=\(image.count / 2)-")
  }

  @Test("an MD5 mismatch is rejected and the file deleted (before anything could be pushed)")
  func downloadMD5Mismatch() async throws {
    let bench = try Bench()
    defer { bench.cleanUp() }
    let image = EmulatedFirmwareImage.make(
      version: FirmwareVersion("V0096")!, size: 10_000, seed: 3)
    bench.cloud.publishFirmware(
      type: "note", version: FirmwareVersion("V0096")!, image: image,
      md5: String(repeating: "ab", count: 16))
    let client = try bench.client()
    let release = try await client.checkFirmware(
      serial: Self.serial, current: FirmwareVersion("V0095")!)
    let directory = NSTemporaryDirectory() + "cloud-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    await #expect(throws: CloudError.checksumMismatch(algorithm: "MD5")) {
      try await client.download(release, to: directory + "/fw.bin")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
  }

  @Test("domains: no scheme means https; plain http only on loopback")
  func domains() throws {
    let user = try UserToken(jwt: Self.jwt(sub: "client_user_a-b"))
    #expect(
      try CloudClient(domain: "platform-us.plaud.ai", userToken: user).apiBase
        == "https://platform-us.plaud.ai/developer/api")
    #expect(
      try CloudClient(domain: "http://127.0.0.1:8080", userToken: user).origin
        == "http://127.0.0.1:8080")
    #expect(throws: CloudError.insecureURL("http://platform-us.plaud.ai")) {
      try CloudClient(domain: "http://platform-us.plaud.ai", userToken: user)
    }
    for bad in ["", "ftp://x", "https://", "https://a/b", "https://u:p@host"] {
      #expect(throws: CloudError.invalidDomain(bad)) {
        try CloudClient(domain: bad, userToken: user)
      }
    }
  }

  @Test("JWT: the device token derives from sub; malformed tokens are typed errors; never printed")
  func jwtParsing() throws {
    let token = try UserToken(jwt: Self.jwt(sub: "client_user_6f1d-22aa-9d03"))
    #expect(token.deviceToken.revealed == "6f1d22aa9d03")
    #expect(token.subject == "client_user_6f1d-22aa-9d03")
    #expect(!"\(token)".contains("6f1d"))
    #expect(!String(reflecting: token).contains("eyJ"))
    let cases: [(String, String)] = [
      ("a.b", "expected 3 dot-separated parts, found 2"),
      ("a.b.c.d", "expected 3 dot-separated parts, found 4"),
      ("x.@@@.y", "the payload is not base64url"),
      ("x.\(Self.b64("not json")).y", "the payload is not JSON"),
      ("x.\(Self.b64("[1]")).y", "the payload is not a JSON object"),
      ("x.\(Self.b64("{\"iat\":1}")).y", "no `sub` claim"),
      ("x.\(Self.b64("{\"sub\":7}")).y", "no `sub` claim"),
      (
        "x.\(Self.b64("{\"sub\":\"client_user_---\"}")).y",
        "`sub` does not make a printable-ASCII device token"
      ),
      ("x.\(Self.b64("{\"sub\":\"é\"}")).y", "`sub` does not make a printable-ASCII device token"),
      ("x.\(Self.b64("{\"sub\":\"a\"}"))=x.y", "the payload is not base64url"),
    ]
    for (jwt, reason) in cases {
      #expect(throws: CloudError.malformedUserToken(reason: reason)) { try UserToken(jwt: jwt) }
    }
  }

  static func b64(_ text: String) -> String {
    Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }

  static func jwt(sub: String) -> String {
    "\(b64(#"{"alg":"HS256"}"#)).\(b64("{\"sub\":\"\(sub)\"}")).c2ln"
  }
}

/// Yields until `clock` has a sleeper, at most ~10 s of real time.
func waitForSleeper(_ clock: ManualClock) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(10)
  while clock.sleeperCount == 0 {
    guard ContinuousClock.now < deadline else { return false }
    await Task.yield()
  }
  return true
}
