import Foundation
import HealthProfiles
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

/// Issue 17, the cooldown rule, in virtual time: after a successful read a peripheral is
/// ignored until it stops advertising and stays quiet for the quiet period (15 s).
@Suite("Passive: cooldown")
struct CooldownTests {
  /// A reader on `bench` running until the returned task is cancelled.
  static func startReader(_ bench: PassiveBench) async throws -> (PassiveReader, Task<Void, Never>)
  {
    let reader = try PassiveReader(
      journal: try bench.journal(), central: bench.central, clock: bench.anyClock)
    try await reader.register(await bench.registration())
    let task = Task { await reader.run() }
    return (reader, task)
  }

  @Test func aDeviceThatKeepsAdvertisingAfterAReadIsNotReadAgain() async throws {
    let bench = try PassiveBench([.thermometer])  // stays on until told
    let thermometer = bench.peripherals[0]
    let (_, task) = try await Self.startReader(bench)
    defer { task.cancel() }
    await thermometer.powerOn()
    #expect(try await bench.within(.seconds(30)) { await thermometer.deliveredReadings.count == 1 })
    // A minute of advertising after the read: every advertisement is heard and ignored.
    try await bench.pass(.seconds(60))
    #expect(await thermometer.isPoweredOn)
    #expect(await thermometer.connectionCount == 1)
    #expect(try bench.pendingOutbox().count == 1)
  }

  @Test func aDeviceQuietForLessThanThePeriodIsNotReadAgain() async throws {
    let bench = try PassiveBench([.thermometer])
    let thermometer = bench.peripherals[0]
    let (_, task) = try await Self.startReader(bench)
    defer { task.cancel() }
    await thermometer.powerOn()
    #expect(try await bench.within(.seconds(30)) { await thermometer.deliveredReadings.count == 1 })
    await thermometer.powerOff()
    try await bench.pass(.seconds(10))  // quiet for 10 s < 15 s
    await thermometer.powerOn()  // a second measurement, too soon
    try await bench.pass(.seconds(40))
    #expect(await thermometer.connectionCount == 1)
    #expect(await thermometer.hasPendingReading, "the second reading was taken")
    #expect(try bench.pendingOutbox().count == 1)
  }

  @Test func afterTheFullQuietPeriodANewPowerOnIsRead() async throws {
    let bench = try PassiveBench([.thermometer])
    let thermometer = bench.peripherals[0]
    let (_, task) = try await Self.startReader(bench)
    defer { task.cancel() }
    await thermometer.powerOn()
    #expect(try await bench.within(.seconds(30)) { await thermometer.deliveredReadings.count == 1 })
    await thermometer.powerOff()
    try await bench.pass(.seconds(20))  // quiet for 20 s ≥ 15 s
    await thermometer.powerOn()
    #expect(try await bench.within(.seconds(30)) { await thermometer.deliveredReadings.count == 2 })
    // Indicated is not yet committed: the reader decodes and commits after the link ends.
    #expect(try await bench.within(.seconds(5)) { try bench.pendingOutbox().count == 2 })
    let outbox = try bench.pendingOutbox()
    #expect(outbox.count == 2)
    #expect(Set(outbox.map(\.idempotencyKey)).count == 2)
    #expect(await thermometer.connectionCount == 2)
  }

  /// The rule itself, at its boundary: silence of exactly the quiet period ends it.
  @Test func theRuleAtItsBoundary() {
    var cooldown = Cooldown(quietPeriod: .seconds(15))
    var answers: [Bool] = []
    answers.append(cooldown.heard("a", at: .seconds(0)))
    cooldown.didRead("a", at: .seconds(1))
    answers.append(cooldown.heard("a", at: .seconds(2)))
    answers.append(cooldown.heard("a", at: .seconds(16.999)))  // 14.999 s after the last
    answers.append(cooldown.heard("a", at: .seconds(31.999)))  // exactly 15 s after the last
    #expect(answers == [true, false, false, true])
    #expect(!cooldown.isCoolingDown("a"))
    let other = cooldown.heard("b", at: .seconds(2))
    #expect(other, "another peripheral is not affected")
  }
}

/// Seed 001: a record the app reads through the reader's controller is uploaded like the
/// reader's own (into the outbox, once) and cools the peripheral down for the reader.
@Suite("Passive: the app's own reads")
struct AppReadTests {
  @Test func aReadThroughTheControllerGoesToTheOutboxOnceAndCoolsDown() async throws {
    let bench = try PassiveBench([.thermometer])
    let thermometer = bench.peripherals[0]
    let poked = Locked(0)
    let reader = try PassiveReader(
      journal: try bench.journal(), central: bench.central, clock: bench.anyClock,
      onRecord: { _ in poked.withLock { $0 += 1 } })
    let registration = await bench.registration()
    try await reader.register(registration)
    await thermometer.powerOn()
    let record = try await reader.controller.read(registration)
    let outbox = try bench.pendingOutbox()
    #expect(outbox.map(\.idempotencyKey) == [record.idempotencyKey])
    #expect(poked.withLock { $0 } == 1, "the uploader is told")
    // The reader starts while the thermometer still advertises: it is cooling down.
    let task = Task { await reader.run() }
    defer { task.cancel() }
    try await bench.pass(.seconds(30))
    #expect(await thermometer.connectionCount == 1)
    #expect(try bench.pendingOutbox().count == 1)
  }
}
