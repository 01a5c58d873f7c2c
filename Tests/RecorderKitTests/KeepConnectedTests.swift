import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

/// The front door's keeping of a remembered recorder (`Recorders.keepConnected`), over the
/// in-process emulator on virtual time: the reconnect after a loss, its mark in the known
/// recorders, the restore a later launch makes, and every way it is withdrawn.
@Suite("Keep connected", .timeLimit(.minutes(2)))
struct KeepConnectedTests {
  /// A recorder, a front door remembering recorders in a file, and the door's events.
  final class Rig: Sendable {
    let bench: RecorderBench
    let knownPath: String

    init(_ name: String, seed: UInt64) throws {
      bench = try RecorderBench(name, seed: seed)
      knownPath = bench.directory + "/known.json"
      bench.clock.startAutoAdvance()
    }

    /// A door as a launch makes it: a fresh read of the known recorders' file.
    func door() -> Recorders {
      var session = DeviceSession.Configuration(token: bench.device.configuration.token)
      session.clock = bench.anyClock
      return Recorders(
        radio: .shared(bench.central),
        configuration: .init(
          session: session, findTimeout: .seconds(30), known: KnownRecorders(path: knownPath)))
    }

    var serial: String { bench.device.serial }
    /// The serials owed a pending connect, as the file says now.
    var awaited: [String] { KnownRecorders(path: knownPath).awaited }

    /// True when the stream finished (no further event).
    func finishes(_ iterator: inout AsyncStream<KeptConnection.Event>.Iterator) async -> Bool {
      if case .none = await iterator.next() { return true }
      return false
    }

    func cleanUp() { bench.cleanUp() }
  }

  @Test("a loss nobody asked for: a pending connect stands, marked, until the recorder is back")
  func reconnectsWhenBack() async throws {
    let rig = try Rig("keep-back", seed: 61)
    defer { rig.cleanUp() }
    let door = rig.door()
    let first = try await door.connect(serial: rig.serial)
    let kept = door.keepConnected(first)
    var events = kept.events.makeAsyncIterator()
    guard case .connected(let given)? = await events.next() else {
      Issue.record("the first event is not the connection kept")
      return
    }
    #expect(given.session === first.session)
    #expect(rig.awaited.isEmpty, "nothing owed while connected")

    await rig.bench.device.goOutOfRange()
    guard case .disconnected(let reason, let reconnecting)? = await events.next() else {
      Issue.record("no loss reported")
      return
    }
    #expect(reason != nil && reason != .localRequest)
    #expect(reconnecting)
    #expect(rig.awaited == [rig.serial], "owed while waiting, in the file")
    let connections = await rig.bench.device.counters.connections
    try await rig.bench.clock.sleep(for: .seconds(900))
    #expect(await rig.bench.device.counters.connections == connections, "nobody there yet")

    await rig.bench.device.comeBackInRange()
    guard case .connected(let again)? = await events.next() else {
      Issue.record("not connected again")
      return
    }
    #expect(again.session !== first.session)
    #expect(await again.session.info.serial == rig.serial)
    #expect(rig.awaited.isEmpty, "no longer owed once back")
    // A request over the connection made again works.
    _ = try await again.session.battery()

    // Withdrawn, then closed by the app: the loss is the last event.
    kept.withdraw()
    await again.close()
    guard case .disconnected(_, let more)? = await events.next() else {
      Issue.record("the end of the connection is not reported")
      return
    }
    #expect(!more)
    #expect(await rig.finishes(&events), "the events finish")
  }

  @Test(
    "withdrawn while waiting, or its iteration ended: no connection is made, nothing stays owed",
    arguments: ["withdraw", "end the iteration"])
  func withdrawnWhileWaiting(how: String) async throws {
    let rig = try Rig("keep-withdraw", seed: 62)
    defer { rig.cleanUp() }
    let door = rig.door()
    let kept = door.keepConnected(try await door.connect(serial: rig.serial))
    let losses = Locked(0)
    let finished = Locked(false)
    let watching = Task {
      for await event in kept.events {
        if case .disconnected(_, true) = event { losses.withLock { $0 += 1 } }
      }
      finished.withLock { $0 = true }
    }
    await rig.bench.device.goOutOfRange()
    #expect(try await within(rig, .seconds(600)) { losses.current == 1 })
    #expect(rig.awaited == [rig.serial])
    if how == "withdraw" {
      kept.withdraw()
      #expect(try await within(rig, .seconds(60)) { finished.current }, "the events finish")
    } else {
      watching.cancel()
      #expect(try await within(rig, .seconds(60)) { kept.isWithdrawn })
    }
    #expect(rig.awaited.isEmpty)
    let connections = await rig.bench.device.counters.connections
    await rig.bench.device.comeBackInRange()
    try await rig.bench.clock.sleep(for: .seconds(600))
    #expect(await rig.bench.device.counters.connections == connections, "withdrawn: no connect")
  }

  @Test(
    "a loss that was asked for, or with reconnects off, ends the keeping",
    arguments: ["closed by the app", "reconnects off"])
  func endsWithTheLoss(ending: String) async throws {
    let rig = try Rig("keep-end", seed: 63)
    defer { rig.cleanUp() }
    let door = rig.door()
    let connection = try await door.connect(serial: rig.serial)
    let kept = door.keepConnected(connection, reconnectsWhenInRange: ending != "reconnects off")
    var events = kept.events.makeAsyncIterator()
    guard case .connected? = await events.next() else {
      Issue.record("not connected")
      return
    }
    if ending == "closed by the app" {
      await connection.close()
    } else {
      await rig.bench.device.goOutOfRange()
    }
    guard case .disconnected(let reason, let reconnecting)? = await events.next() else {
      Issue.record("no loss reported")
      return
    }
    #expect(!reconnecting)
    #expect((reason == nil || reason == .localRequest) == (ending == "closed by the app"))
    #expect(await rig.finishes(&events), "the events finish")
    #expect(rig.awaited.isEmpty)
  }

  @Test(
    "a later launch restores the pending connect an earlier one owed; nothing owed, nothing kept")
  func restoresAcrossLaunches() async throws {
    let rig = try Rig("keep-restore", seed: 64)
    defer { rig.cleanUp() }
    let door = rig.door()
    #expect(door.restoreKeptConnection() == nil, "nothing remembered, nothing owed")
    #expect(throws: DeviceError.deviceNotFound(serial: "8880000000000000")) {
      try door.keepConnected(serial: "8880000000000000")
    }
    let connection = try await door.connect(serial: rig.serial)
    let kept = door.keepConnected(connection)
    let lost = Locked(false)
    let watching = Task {
      for await event in kept.events {
        if case .disconnected(_, true) = event { lost.withLock { $0 = true } }
      }
    }
    #expect(door.restoreKeptConnection() == nil, "connected: nothing owed")
    await rig.bench.device.goOutOfRange()
    #expect(try await within(rig, .seconds(600)) { lost.current })
    #expect(rig.awaited == [rig.serial])
    // The system ends the app here: its pending connect goes, its mark stays in the file. (In
    // one process the first keeping must be stopped, which clears the mark: set it again, as
    // an app that runs no more code leaves it.)
    watching.cancel()
    _ = await watching.value
    KnownRecorders(path: rig.knownPath).setAwaited(true, serial: rig.serial)

    // The next launch: a new door over the same file.
    let later = rig.door()
    guard let restored = later.restoreKeptConnection() else {
      Issue.record("the owed connect was not restored")
      return
    }
    var events = restored.events.makeAsyncIterator()
    await rig.bench.device.comeBackInRange()
    guard case .connected(let again)? = await events.next() else {
      Issue.record("not connected")
      return
    }
    #expect(await again.session.info.serial == rig.serial)
    #expect(rig.awaited.isEmpty)
    restored.withdraw()
    await again.close()
  }

  @Test("a remembered recorder kept from a pending connect, and withdrawn before it is back")
  func keptBySerial() async throws {
    let rig = try Rig("keep-serial", seed: 65)
    defer { rig.cleanUp() }
    let door = rig.door()
    try await door.connect(serial: rig.serial).close()
    await rig.bench.device.goOutOfRange()
    let kept = try door.keepConnected(serial: rig.serial)
    #expect(rig.awaited == [rig.serial], "owed from the start")
    var events = kept.events.makeAsyncIterator()
    await rig.bench.device.comeBackInRange()
    guard case .connected(let connection)? = await events.next() else {
      Issue.record("not connected")
      return
    }
    #expect(rig.awaited.isEmpty)
    // Lost again: waits again.
    await rig.bench.device.goOutOfRange()
    guard case .disconnected(_, true)? = await events.next() else {
      Issue.record("no reconnect after the loss")
      return
    }
    #expect(rig.awaited == [rig.serial])
    kept.withdraw()
    #expect(rig.awaited.isEmpty)
    #expect(await rig.finishes(&events))
    await connection.close()
  }

  /// Waits (virtual time, a second at a time, up to `limit`) for `condition`.
  private func within(
    _ rig: Rig, _ limit: Duration, _ condition: () async throws -> Bool
  ) async throws -> Bool {
    var waited = Duration.zero
    while waited < limit {
      if try await condition() { return true }
      try await rig.bench.clock.sleep(for: .seconds(1))
      waited += .seconds(1)
    }
    return try await condition()
  }
}
