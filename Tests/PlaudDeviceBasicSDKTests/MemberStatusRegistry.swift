import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// What a member check saw when it called its member.
enum SeenStatus: Sendable, CustomStringConvertible {
  /// The member's real effect (a callback with the device's value, a file, a state change):
  /// what a **works** or **works differently** row promises.
  case answered(String)
  /// The member's loud failure (its own callback or return value, with the reason): what a
  /// **not supported** row promises.
  case refused(String)

  var description: String {
    switch self {
    case .answered(let what): "answered (\(what))"
    case .refused(let why): "refused (\(why))"
    }
  }
}

/// Which bench a check runs on: one connected bench serves every check of its kind, in the
/// order they are registered.
enum MemberBenchKind: String, Sendable, CaseIterable {
  /// An emulated recorder with three recordings (20 s, 30 s, 600 s), connected and bound
  /// over BLE.
  case device
  /// The same, with the Wi-Fi side (the third recording 1800 s): checks start with the
  /// hotspot down.
  case wifi
  /// A connected recorder on V0095 and the cloud emulator publishing V0096 (forced, notes
  /// "fixes"): firmware and update-package checks.
  case cloud
  /// An agent with no device (members that need none).
  case offline
}

/// What a check can use: the connected agent, the emulated device and the delegate that
/// hears everything.
struct MemberContext: Sendable {
  let agent: PlaudDeviceAgent
  let device: EmulatedDevice
  let log: MemberStatusLog
  /// The session ids of the recordings the device held when the bench was made, oldest first.
  let recordings: [Int]
  /// A directory of the bench's own.
  let scratch: String
  /// The bench's virtual clock, and a hold on it a check may take (steps that must follow
  /// one another without the clock jumping to the next deadline); the bench ends it last.
  let clock: ManualClock
  let hold = Locked<ManualClock.WorkToken?>(nil)
  /// What the bench prepared for its checks (the cloud bench: the published image's path
  /// and MD5, a local image for the next version).
  var facts: [String: String] = [:]

  var wifi: PlaudWiFiAgent { agent.wifiAgent }
  var serial: String { device.serial }

  /// Waits until the log holds one more entry starting with `prefix` than `before`; the
  /// last such entry.
  @discardableResult
  func heard(_ prefix: String, after before: Int) async throws -> String {
    let log = self.log
    try await eventually(prefix) { log.count(prefix) > before }
    return try #require(log.last(prefix))
  }

  /// Calls `call` and waits for the next entry starting with `prefix`.
  @discardableResult
  func call(_ call: () -> Void, heard prefix: String) async throws -> String {
    let before = log.count(prefix)
    call()
    return try await heard(prefix, after: before)
  }

  /// The loud failure of a not-supported member: `call` makes its own callback (`prefix`)
  /// arrive, or `onCommonMsgChannel(-1, -1, why)` when `prefix` is nil, and `lastError` names
  /// `member` with "not supported by RecorderKit". What was heard and the reason.
  func refusal(_ member: String, heard prefix: String?, _ call: () -> Void) async throws
    -> SeenStatus
  {
    let entry = try await self.call(call, heard: prefix ?? "onCommonMsgChannel -1 -1 ")
    if prefix == nil {
      #expect(entry.contains(member) && entry.contains("not supported by RecorderKit"), "\(entry)")
    }
    let error = try #require(agent.lastError, "\(member): no lastError")
    guard case .notSupported = error else {
      Issue.record("\(member): lastError is not .notSupported: \(error)")
      return .answered("lastError \(error)")
    }
    #expect(error.description.contains(member), "\(error)")
    return .refused("\(entry.prefix(60)); lastError: \(error)")
  }

  /// `lastError` after a not-supported call that has no callback: it must name `member`.
  func lastErrorRefusal(_ member: String, _ what: String) throws -> SeenStatus {
    let error = try #require(agent.lastError, "\(member): no lastError")
    guard case .notSupported = error, error.description.contains(member) else {
      Issue.record("\(member): lastError is not its .notSupported: \(error)")
      return .answered("\(what); lastError \(error)")
    }
    return .refused("\(what); lastError: \(error)")
  }

  /// A callback RecorderKit never fires: after everything this bench ran (`ran` says what
  /// would have made the vendor's SDK fire it), the log holds no entry of `name`.
  func neverFired(_ name: String, _ ran: String) -> SeenStatus {
    let fired = log.all.filter { $0 == name || $0.hasPrefix(name + " ") }
    guard fired.isEmpty else { return .answered("fired: \(fired.prefix(3))") }
    return .refused("never fired after \(ran)")
  }
}

/// One doc row and the check that calls its member.
struct MemberCheck: Sendable {
  let type: String
  let member: String
  let bench: MemberBenchKind
  let run: @Sendable (MemberContext) async throws -> SeenStatus

  var key: String { "\(type) \(member)" }
}

/// The checks, keyed by the doc's row (type and member text exactly as in the table).
enum MemberStatusRegistry {
  static let all: [MemberCheck] =
    device + wifi + cloud + offline + types + logConfigReads + decode

  /// Builds one bench of `kind`, runs its checks in order, and compares what each saw with
  /// the doc's status: a row whose check saw the other kind of answer is a failure.
  static func run(_ kind: MemberBenchKind) async throws {
    let log = MemberStatusLog()
    if kind == .cloud {
      let bench = try FacadeCloudBench(seed: 41)
      defer { bench.cleanUp() }
      let image = EmulatedFirmwareImage.make(
        version: FirmwareVersion(type: 0x56, code: 96), size: 8192, seed: 41)
      bench.cloud.publishFirmware(
        type: "note", version: FirmwareVersion(type: 0x56, code: 96), image: image,
        notes: "fixes", force: true)
      let published = try bench.write(image, name: "published.bin")
      let next = try bench.write(
        EmulatedFirmwareImage.make(
          version: FirmwareVersion(type: 0x56, code: 97), size: 4096, seed: 42),
        name: "local-V0097.bin")
      bench.agent.delegate = log
      bench.agent.initSDK(userAccessToken: bench.userToken, customDomain: bench.domain)
      bench.agent.connectBySN(bench.serial)
      try await eventually("bound") { log.count("bleStorage") == 1 }
      let context = MemberContext(
        agent: bench.agent, device: bench.device, log: log, recordings: [],
        scratch: bench.directory + "/checks", clock: bench.clock,
        facts: [
          "published": published, "md5": try FirmwareFile(path: published, version: "V0096").md5,
          "local": next,
        ])
      try await check(kind, context)
      return
    }
    let bench = try FacadeBench(seed: 41, wifi: kind == .wifi)
    defer { bench.cleanUp() }
    var recordings: [Int] = []
    if kind != .offline {
      // A long recording (longer over Wi-Fi, whose loopback stream is fast). Session ids are
      // start times, so sorted it comes first (`recordings[0]`): `recordings[2]` is the
      // 20 s one (80,000 bytes), which the stop checks stop midway with a pause fault.
      for seconds in [20, 30, kind == .wifi ? 1800 : 600] {
        recordings.append(
          Int(try await bench.device.addRecording(duration: .seconds(seconds)).sessionId.rawValue))
      }
      recordings.sort()
      bench.agent.wifiAgent.delegate = log
      bench.connect(log)
      try await eventually("bound") {
        log.count("bleBind") == 1 && log.count("bleStorage") == 1
      }
    } else {
      bench.agent.delegate = log
      bench.agent.wifiAgent.delegate = log
    }
    let context = MemberContext(
      agent: bench.agent, device: bench.device, log: log, recordings: recordings,
      scratch: bench.directory + "/checks", clock: bench.clock)
    try await check(kind, context)
  }

  /// Runs the checks of `kind` on `context` in order and compares what each saw with the
  /// doc's status.
  static func check(_ kind: MemberBenchKind, _ context: MemberContext) async throws {
    let status = Dictionary(
      try MigrationDocTests.documentedRows().map { ("\($0.type) \($0.member)", $0.status) },
      uniquingKeysWith: { first, _ in first })
    let agent = context.agent
    defer { context.hold.withLock { $0 }?.end() }
    try FileManager.default.createDirectory(
      atPath: context.scratch, withIntermediateDirectories: true)
    var tally: [String: Int] = [:]
    defer {
      print(
        "the \(kind) bench: \(tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" })")
    }
    for check in all where check.bench == kind {
      guard let documented = status[check.key] else {
        Issue.record("no doc row for the check \(check.key)")
        continue
      }
      let before = agent.lastError
      let seen: SeenStatus
      do {
        seen = try await check.run(context)
      } catch {
        Issue.record("\(check.key) [\(documented)]: the check failed: \(error)")
        continue
      }
      // A works row whose call raised a not-supported failure did not work, whatever the
      // check saw besides.
      var verdict = seen
      if documented != "not supported", case .answered(let what) = seen,
        let after = agent.lastError, after != before, case .notSupported = after
      {
        verdict = .refused("\(what), but lastError became \(after)")
      }
      switch verdict {
      case .answered: tally["answered", default: 0] += 1
      case .refused: tally["refused", default: 0] += 1
      }
      switch (documented, verdict) {
      case ("not supported", .refused), ("works", .answered), ("works differently", .answered):
        break
      default:
        Issue.record("\(check.key): the doc says '\(documented)', the check saw \(verdict)")
      }
    }
  }
}
