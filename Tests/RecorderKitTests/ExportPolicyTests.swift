import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import RecorderTesting
import TestSupport
import Testing

/// Issue 27, "where the conversion runs": the export policy. A deferred sync keeps the
/// verified raw copy, deletes the device copy as usual and leaves the conversion owed in the
/// journal; `convertPending` (the app asking, or a processing task on external power) makes
/// each owed conversion once, and a power cut or a kill at any step loses nothing.
@Suite("Export policy: convert at once or defer", .timeLimit(.minutes(5)))
struct ExportPolicyTests {
  static let seed: UInt64 = 0x4558_504F_5254_0027
  static let durations: [Duration] = [3, 2, 4].map { .seconds($0) }

  /// WAV exports: a deterministic conversion (same bytes each time), cheap on small files.
  static func options(_ policy: ExportPolicy) -> SyncEngine.Options {
    var options = SyncEngine.Options.fast
    options.format = .wav
    options.exportPolicy = policy
    return options
  }

  /// The exports of an immediate sync of the same recordings: name → SHA-256.
  static func referenceExports(template: SyncFlashTemplate) async throws -> [String: String] {
    let bench = try SyncBench(seed: seed, template: template)
    defer { bench.cleanUp() }
    let report = try await bench.syncOnce(
      try bench.makeEngine(options: options(.convertImmediately)))
    #expect(report.files.allSatisfy { $0.exportPath != nil && !$0.conversionPending })
    return Dictionary(
      uniqueKeysWithValues: bench.exportNames().map {
        ($0, sha256(ofFile: bench.exportDirectory + "/" + $0) ?? "")
      })
  }

  static func exports(_ bench: SyncBench) -> [String: String] {
    Dictionary(
      uniqueKeysWithValues: bench.exportNames().map {
        ($0, sha256(ofFile: bench.exportDirectory + "/" + $0) ?? "")
      })
  }

  @Test(
    "the default converts at once; deferred, the device is emptied, nothing converted, each conversion owed"
  )
  func deferredSyncOwesEachConversion() async throws {
    #expect(SyncEngine.Options().exportPolicy == .convertImmediately)
    let template = try await SyncFlashTemplate.make(seed: Self.seed, durations: Self.durations)
    defer { template.cleanUp() }
    let reference = try await Self.referenceExports(template: template)
    #expect(reference.count == Self.durations.count)

    let bench = try SyncBench(seed: Self.seed, template: template)
    defer { bench.cleanUp() }
    let report = try await bench.syncOnce(
      try bench.makeEngine(options: Self.options(.deferConversion)))
    #expect(report.files.count == Self.durations.count)
    #expect(report.files.allSatisfy { $0.deletedFromDevice && $0.verified })
    #expect(report.files.allSatisfy { $0.exportPath == nil && $0.conversionPending })
    #expect(try await bench.device.recordings().isEmpty, "deleted from the device as usual")
    #expect(bench.exportNames().isEmpty, "nothing converted yet")
    for (id, digest) in template.digests {
      #expect(sha256(ofFile: bench.rawPath(id)) == digest, "raw \(id) kept, verified")
    }
    let workspace = try SyncWorkspace(root: bench.root)
    let owed = try workspace.pendingConversions()
    #expect(Set(owed.map { ($0.path as NSString).lastPathComponent }) == Set(reference.keys))
    #expect(owed.allSatisfy { $0.format == .wav && $0.serial == bench.device.serial })

    // The app asks: each owed conversion is made, the same file an immediate sync makes.
    let seen = Locked<[SessionID]>([])
    let done = await workspace.convertPending(converted: { c in
      seen.withLock { $0.append(c.sessionId) }
    })
    #expect(done.converted.count == Self.durations.count && done.failed.isEmpty && !done.stopped)
    #expect(done.remaining.isEmpty)
    #expect(seen.withLock { $0 }.sorted() == template.digests.keys.sorted())
    #expect(Self.exports(bench) == reference)
    #expect(try workspace.pendingConversions().isEmpty)
    // Asked again: nothing owed, nothing converted.
    let again = await workspace.convertPending()
    #expect(again.converted.isEmpty && again.alreadyMade.isEmpty)
  }

  @Test("owed conversions survive a restart: a new workspace on the root lists and makes them")
  func pendingSurvivesRestart() async throws {
    let template = try await SyncFlashTemplate.make(seed: Self.seed, durations: Self.durations)
    defer { template.cleanUp() }
    let bench = try SyncBench(seed: Self.seed, template: template)
    defer { bench.cleanUp() }
    do {
      let engine = try bench.makeEngine(options: Self.options(.deferConversion))
      _ = try await bench.syncOnce(engine)
    }
    // A new process: nothing in memory, only the root.
    let reopened = try SyncWorkspace(root: bench.root)
    let owed = try reopened.pendingConversions()
    #expect(owed.count == Self.durations.count)
    #expect(owed.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
    let done = await reopened.convertPending()
    #expect(done.converted.count == Self.durations.count)
    #expect(owed.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
    // A sync that converts at once later finds every export in place: nothing made again.
    let later = try await bench.syncOnce(
      try bench.makeEngine(options: Self.options(.convertImmediately)))
    #expect(later.files.isEmpty)
    #expect(try reopened.pendingConversions().isEmpty)
  }

  @Test(
    "a power cut at every file operation of a deferred sync and its conversion loses nothing and converts nothing twice"
  )
  func powerLossAtEveryStep() async throws {
    let template = try await SyncFlashTemplate.make(seed: Self.seed, durations: Self.durations)
    defer { template.cleanUp() }
    let reference = try await Self.referenceExports(template: template)

    // How many file operations the two steps take, uninterrupted.
    let counting = try SyncBench(seed: Self.seed, template: template)
    let fileSystem = PowerLossFileSystem()
    _ = try await counting.syncOnce(
      try counting.makeEngine(fileSystem: fileSystem, options: Self.options(.deferConversion)))
    let syncOperations = fileSystem.operationCount
    _ = await (try SyncWorkspace(root: counting.root, fileSystem: fileSystem)).convertPending()
    let operations = fileSystem.operationCount
    #expect(Self.exports(counting) == reference)
    counting.cleanUp()
    #expect(operations > syncOperations + Self.durations.count * 3)

    // Every conversion operation, and a seeded spread over the sync's.
    var random = SplitMix64(seed: Self.seed)
    let syncPoints = (0..<24).map { index -> Int in
      let low = syncOperations * index / 24
      return random.next(in: low...max(low, syncOperations * (index + 1) / 24 - 1))
    }
    let points = Set(syncPoints).union(syncOperations..<operations).sorted()
    var crashedInConversion = 0
    for point in points {
      let context = "crash after \(point) of \(operations) operations (sync: \(syncOperations))"
      let bench = try SyncBench(seed: Self.seed, template: template)
      defer { bench.cleanUp() }
      let cut = PowerLossFileSystem(crashAfter: point)
      do {
        _ = try await bench.syncOnce(
          try bench.makeEngine(fileSystem: cut, options: Self.options(.deferConversion)))
        let report = await (try SyncWorkspace(root: bench.root, fileSystem: cut)).convertPending()
        if cut.hasCrashed { crashedInConversion += 1 }
        #expect(cut.hasCrashed == !report.failed.isEmpty || report.remaining.isEmpty, "\(context)")
      } catch {
        // The sync lost power (or creating the root did).
      }
      try cut.recoverFromPowerLoss()
      // What the journal holds as made survived the cut: its file is there, intact.
      let workspace = try SyncWorkspace(root: bench.root)
      let serial = bench.device.serial
      let journal = try Journal(path: bench.journalPath)
      let madeBefore = Set(
        try journal.read { tx in
          try tx.recordings(serial: serial).filter {
            try tx.exportPath(serial: serial, sessionId: $0.sessionId, format: "wav") != nil
          }
        }.map { SessionID($0.sessionId) })
      for id in madeBefore {
        let name = "\(bench.device.serial)-\(id).wav"
        #expect(
          sha256(ofFile: bench.exportDirectory + "/" + name) == reference[name],
          "\(context): \(name)")
      }
      // Power is back: the sync resumes (deferred), then the owed conversions are made.
      _ = try await bench.syncOnce(try bench.makeEngine(options: Self.options(.deferConversion)))
      let resumed = await workspace.convertPending()
      #expect(resumed.failed.isEmpty && resumed.remaining.isEmpty, "\(context)")
      #expect(
        Set(resumed.converted.map(\.sessionId)).isDisjoint(with: madeBefore),
        "\(context): converted twice")
      #expect(Self.exports(bench) == reference, "\(context): exactly once, intact")
      #expect(try await bench.device.recordings().isEmpty, "\(context)")
      for (id, digest) in template.digests {
        #expect(sha256(ofFile: bench.rawPath(id)) == digest, "\(context): raw \(id)")
      }
    }
    print(
      "export policy power loss: \(points.count) crash points over \(operations) operations, "
        + "\(crashedInConversion) in the conversion")
    #expect(crashedInConversion >= Self.durations.count * 3)
  }

  @Test(
    "a processing task on external power: expiry mid-conversion cancels it cleanly, the rest stay owed"
  )
  func expirationMidConversion() async throws {
    let template = try await SyncFlashTemplate.make(seed: Self.seed, durations: Self.durations)
    defer { template.cleanUp() }
    let reference = try await Self.referenceExports(template: template)
    let bench = try SyncBench(seed: Self.seed, template: template)
    defer { bench.cleanUp() }
    _ = try await bench.syncOnce(try bench.makeEngine(options: Self.options(.deferConversion)))

    let scheduler = ScriptedIOS.ProcessingScheduler(appState: { .suspended })
    // The expiration arrives as the second conversion starts (its folder is made, the
    // encoder about to run): that one is cancelled mid-way.
    let task = Locked<ScriptedIOS.ScriptedProcessingTask?>(nil)
    let starts = Locked(0)
    let hooked = HookedFileSystem { path in
      guard path.hasSuffix("/exports") else { return }
      if starts.withLock({
        $0 += 1; return $0
      }) == 2 {
        task.withLock { $0 }?.expire()
      }
    }
    let workspace = try SyncWorkspace(root: bench.root, fileSystem: hooked)
    let processor = ConversionProcessor(
      scheduler: scheduler, identifier: "conversions", clock: bench.sessionClock)
    let (reports, reported) = AsyncStream.makeStream(of: ConversionReport.self)
    let registered = processor.register(workspace: workspace, finished: { reported.yield($0) })
    #expect(registered)
    var launches = reports.makeAsyncIterator()
    #expect(processor.schedule())
    #expect(
      scheduler.submissions == [.init(identifier: "conversions", requiresExternalPower: true)])

    // On battery nothing launches.
    #expect(scheduler.runEligible().isEmpty)
    scheduler.plugIn()
    let launched = scheduler.runEligible()
    #expect(launched.count == 1)
    task.withLock { $0 = launched.first }
    let first = try #require(await launches.next())
    #expect(first.stopped)
    #expect(first.converted.count == 1)
    #expect(first.remaining.count == Self.durations.count - 1, "the cancelled one and the rest")
    #expect(launched.first?.completedWithSuccess == false)
    #expect(bench.exportNames().count == 1, "no partial output: \(bench.exportNames())")
    #expect(scheduler.waiting == [.init(identifier: "conversions", requiresExternalPower: true)])

    // The next launch (still charging) makes the rest.
    let second = scheduler.runEligible()
    #expect(second.count == 1)
    let last = try #require(await launches.next())
    #expect(last.converted.count == Self.durations.count - 1 && last.remaining.isEmpty)
    #expect(second.first?.completedWithSuccess == true)
    #expect(Self.exports(bench) == reference)
    #expect(scheduler.waiting.isEmpty)
  }

  @Test(
    "the scripted processing rule: a task that requires power waits for it and expires when unplugged"
  )
  func externalPowerRule() async throws {
    let app = Locked(ScriptedIOS.AppState.suspended)
    let scheduler = ScriptedIOS.ProcessingScheduler(appState: { app.withLock { $0 } })
    let launched = Locked(0)
    _ = scheduler.register(identifier: "t") { _ in launched.withLock { $0 += 1 } }
    _ = scheduler.submitProcessingRequest(identifier: "t", requiresExternalPower: true)
    #expect(scheduler.runEligible().isEmpty, "on battery")
    scheduler.plugIn()
    let tasks = scheduler.runEligible()
    #expect(tasks.count == 1 && launched.withLock { $0 } == 1)
    let expired = Locked(false)
    tasks.first?.setExpirationHandler { expired.withLock { $0 = true } }
    scheduler.unplug()
    #expect(expired.withLock { $0 }, "unplugging ends it")
    #expect(scheduler.runEligible().isEmpty, "launched once per submission")
    app.withLock { $0 = .forceQuit }
    _ = scheduler.submitProcessingRequest(identifier: "t", requiresExternalPower: false)
    #expect(scheduler.runEligible().isEmpty, "nothing launches a force-quit app")
  }
}

/// The real file system, with a hook before each directory creation.
struct HookedFileSystem: DurableFileSystem {
  let base = PosixFileSystem()
  let beforeCreateDirectory: @Sendable (String) -> Void

  init(beforeCreateDirectory: @escaping @Sendable (String) -> Void) {
    self.beforeCreateDirectory = beforeCreateDirectory
  }

  func createDirectory(_ path: String) throws(StorageError) {
    beforeCreateDirectory(path)
    try base.createDirectory(path)
  }
  func openForAppend(_ path: String, truncatingTo length: Int64) throws(StorageError)
    -> any DurableFile
  { try base.openForAppend(path, truncatingTo: length) }
  func syncFile(_ path: String) throws(StorageError) { try base.syncFile(path) }
  func rename(_ source: String, to destination: String) throws(StorageError) {
    try base.rename(source, to: destination)
  }
  func syncDirectory(_ path: String) throws(StorageError) { try base.syncDirectory(path) }
  func remove(_ path: String) throws(StorageError) { try base.remove(path) }
  func size(of path: String) -> Int64? { base.size(of: path) }
  func contents(of directory: String) -> [String] { base.contents(of: directory) }
}
