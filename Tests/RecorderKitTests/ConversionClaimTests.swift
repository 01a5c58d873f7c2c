import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 39, item 9c: two deferred converters on one root (two processes, or two workspaces
/// in one) each encode a conversion only if no other converter holds it. A converter holds a
/// conversion through an exclusive lock on `<root>/.converting-<final name>`, taken
/// before it encodes and let go (the file removed) once the conversion is journaled or given
/// up; the other one skips it and leaves it to the holder.
extension ExportPolicyTests {
  @Test("a conversion another converter holds is skipped, not encoded twice; made once let go")
  func heldConversionIsSkipped() async throws {
    let template = try await SyncFlashTemplate.make(seed: Self.seed, durations: Self.durations)
    defer { template.cleanUp() }
    let reference = try await Self.referenceExports(template: template)
    let bench = try SyncBench(seed: Self.seed, template: template)
    defer { bench.cleanUp() }
    _ = try await bench.syncOnce(try bench.makeEngine(options: Self.options(.deferConversion)))
    let workspace = try SyncWorkspace(root: bench.root)
    let owed = try workspace.pendingConversions()
    #expect(owed.count == Self.durations.count)
    let held = try #require(owed.first)

    // Another converter's hold, as it takes it: the lock on the claim file.
    let claim = bench.root + "/.converting-" + (held.path as NSString).lastPathComponent
    let holder = open(claim, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    #expect(holder >= 0)
    #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
    let first = await workspace.convertPending()
    #expect(first.converted.map(\.sessionId) == owed.dropFirst().map(\.sessionId))
    #expect(first.failed.isEmpty && !first.stopped)
    #expect(first.remaining == [held], "left owed to its holder")
    #expect(first.heldElsewhere == [held])
    #expect(!FileManager.default.fileExists(atPath: held.path), "not encoded beside its holder")

    // The holder goes away without making it (a crash leaves the file, unlocked).
    close(holder)
    let second = await workspace.convertPending()
    #expect(second.converted == [held] && second.remaining.isEmpty && second.heldElsewhere.isEmpty)
    #expect(!FileManager.default.fileExists(atPath: claim), "the claim goes with its conversion")
    #expect(Self.exports(bench) == reference)
  }

  @Test("two converters started at once on one root encode each conversion once between them")
  func concurrentConvertersShareTheWork() async throws {
    let template = try await SyncFlashTemplate.make(seed: Self.seed, durations: Self.durations)
    defer { template.cleanUp() }
    let reference = try await Self.referenceExports(template: template)
    let bench = try SyncBench(seed: Self.seed, template: template)
    defer { bench.cleanUp() }
    _ = try await bench.syncOnce(try bench.makeEngine(options: Self.options(.deferConversion)))
    // Two workspaces: what two processes on one root have in common is the folder.
    let one = try SyncWorkspace(root: bench.root)
    let two = try SyncWorkspace(root: bench.root)
    async let first = one.convertPending()
    async let second = two.convertPending()
    let (a, b) = await (first, second)
    #expect(a.converted.count + b.converted.count == Self.durations.count, "each encoded once")
    #expect(Set(a.converted).isDisjoint(with: Set(b.converted)))
    #expect(a.failed.isEmpty && b.failed.isEmpty)
    #expect(
      try one.pendingConversions().allSatisfy { c in
        a.heldElsewhere.contains(c) || b.heldElsewhere.contains(c)
      })
    // Whatever one left to the other is made by the next call, once.
    let rest = await one.convertPending()
    #expect(rest.remaining.isEmpty)
    #expect(Self.exports(bench) == reference)
  }
}
