import Foundation
import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency
import RecorderStore

/// What the passive reader did, in order (an `AsyncStream` for the app or the CLI).
public enum PassiveEvent: Sendable, Equatable {
  /// The registered set was restored from the journal at start (as after an OS relaunch).
  case restored([PassivePeripheral])
  /// A registered peripheral that needs pairing was heard: show these instructions.
  case pairingInstructions(identifier: String, instructions: String)
  case paired(identifier: String)
  /// A measurement was read and committed to the outbox.
  case recorded(HealthRecord)
  /// A registered recorder appeared and its new recordings were synced.
  case recorderSynced(serial: String, files: Int)
  /// An operation failed; the peripheral is tried again when heard after
  /// ``PassiveReader/Options/retryDelay``.
  case failed(identifier: String, PassiveError)
}

/// Reads registered peripherals whenever they appear, in the foreground or the background:
/// the SDK's passive manager.
///
/// - **Registered set**: kept in the journal (``PassiveRegistry``); a new reader on the same
///   journal restores it, as an OS relaunch after state restoration would.
/// - **Scanning**: ``run()`` owns the one scan of its `Central` and fans advertisements out
///   to the registered peripherals.
/// - **One operation at a time**: reads, pairings and recorder syncs go through
///   ``controller``; the app may use the same controller (and gets
///   ``PassiveError/busy(running:)`` while the reader works, or cancels it).
/// - **Pair, then read**: a registered peripheral that requires pairing and is not paired is
///   paired when heard (``PassiveEvent/pairingInstructions(identifier:instructions:)``
///   first), then read.
/// - **Cooldown**: after a successful read the peripheral is ignored by the `Cooldown`
///   rule, so one measurement is never read twice.
/// - **Records**: each goes into the journal's outbox (in the same step as the read is
///   reported), for ``RecordUploader``.
/// - **Discovery**: ``discover()`` reports the health peripherals around, registered or not,
///   from the same scan (see there).
public actor PassiveReader {
  public struct Options: Sendable {
    /// What the scan listens for.
    public enum Scope: Sendable, Equatable {
      /// Every advertisement (a scan naming no service): health peripherals and recorders,
      /// which advertise no service UUID. Finds nothing in the iOS background.
      case everything
      /// The four SIG health services (0x1809, 0x181D, 0x1810, 0x1822): what an iOS app in
      /// the background can scan for. Registered recorders are not heard this way (reach
      /// them with `Recorders.connectWhenInRange(to:session:)`).
      case healthServices
    }

    /// What the scan listens for: ``Scope/everything`` (default).
    public var scope: Scope = .everything
    /// Restart the scan this often (nil: never). A platform that reports a peripheral once
    /// per scan (iOS coalesces discoveries; always in the background, and in the foreground
    /// too without the allow-duplicates option) then still tells the reader, once per
    /// interval, that a peripheral goes on advertising, which the `Cooldown` needs. Keep it
    /// below ``quietPeriod``.
    public var rescanInterval: Duration? = nil
    /// While a discovery runs, the scan restarts at least this often, so a platform that
    /// reports a peripheral once per scan (iOS) still tells discovery that it goes on
    /// advertising. Keep it below ``discoveryAbsence``.
    public var discoveryRescanInterval: Duration = .seconds(5)
    /// A discovered peripheral that was silent this long and is heard again is reported
    /// again (it stopped advertising and came back).
    public var discoveryAbsence: Duration = .seconds(12)
    /// The cooldown's quiet period (see `Cooldown`).
    public var quietPeriod: Duration = .seconds(15)
    /// After a failed operation, the peripheral is not tried again for this long.
    public var retryDelay: Duration = .seconds(5)
    public var controller = PeripheralController.Options()
    /// How many of the newest ``PassiveReader/events`` are kept for a consumer that falls
    /// behind or never listens; older ones are dropped (the records are in the outbox
    /// regardless). Bounds what a long run holds when nobody reads the events.
    public var eventBuffer = 1024
    public init() {}
  }

  public nonisolated let controller: PeripheralController
  public nonisolated let registry: PassiveRegistry
  /// What the reader did; the newest ``Options/eventBuffer`` are kept for a consumer that
  /// falls behind or never listens.
  public nonisolated let events: AsyncStream<PassiveEvent>
  private let eventContinuation: AsyncStream<PassiveEvent>.Continuation
  private let central: any Central
  private let clock: AnyClock
  private let options: Options
  private let recorderSync: (any PassiveRecorderSync)?
  /// Called after a record is committed to the outbox (the uploader's ``RecordUploader/poke()``).
  private let onRecord: @Sendable (HealthRecord) -> Void

  private var registered: [String: PassivePeripheral] = [:]
  /// In a lock so a read the app makes through ``controller`` starts its cooldown before
  /// that read returns. An entry per peripheral read, or heard while registered; an
  /// unregistered one's goes with it.
  private nonisolated let cooldown: Locked<Cooldown>
  /// Peripherals whose last operation failed, until when they are not tried again; an entry
  /// goes once its time has passed and it is heard, or when it is unregistered.
  private var retryAfter: [String: Duration] = [:]

  /// The discoveries listening, each with what it reported.
  private var discoveries: [Int: DiscoveryListener] = [:]
  private var nextDiscovery = 0
  /// How many ``run()`` calls are scanning (they own the scan and feed the discoveries).
  private var runs = 0
  /// Child tasks the ``run()`` calls' task groups hold: two per run (see ``run()``).
  private var runTasks = 0
  /// The scan discoveries run while no ``run()`` does; when stopped, it is kept until it
  /// ended so the next scan starts after it (one scan at a time).
  private var discoveryScan: Task<Void, Never>?
  private var stoppedDiscoveryScan: Task<Void, Never>?
  /// Ends the scan window under way, so the next one starts with the services and the
  /// rescan interval of the discoveries now listening.
  private var restartWindow: AsyncStream<Void>.Continuation?

  private struct DiscoveryListener {
    var continuation: AsyncStream<DiscoveredHealthPeripheral>.Continuation
    var session: DiscoverySession
  }

  /// Discoveries buffered for a consumer that does not keep up; older ones are dropped.
  static let discoveryBuffer = 256

  /// Restores the registered set from `journal` and reports it as the first event.
  /// - Parameters:
  ///   - central: the radio to listen on.
  ///   - journal: where registrations and records are kept.
  ///   - clock: every timeout runs on it.
  ///   - now: the wall clock that stamps records.
  ///   - options: scan and read limits.
  ///   - recorderSync: how a registered recorder is synced when it appears (nil: recorders
  ///     are not synced).
  ///   - onRecord: called after each record is committed to the outbox.
  /// - Throws: ``PassiveError/journal(_:)`` when the registrations cannot be read.
  public init(
    journal: Journal, central: any Central, clock: AnyClock = .continuous,
    options: Options = Options(), now: @escaping @Sendable () -> Date = { Date() },
    recorderSync: (any PassiveRecorderSync)? = nil,
    onRecord: @escaping @Sendable (HealthRecord) -> Void = { _ in }
  ) throws(PassiveError) {
    let registry = PassiveRegistry(journal: journal)
    self.registry = registry
    self.central = central
    self.clock = clock
    self.options = options
    self.recorderSync = recorderSync
    self.onRecord = onRecord
    // A read the app makes through the controller is a read for the cooldown too.
    let appRead = Locked<(@Sendable (String) -> Void)?>(nil)
    controller = PeripheralController(
      central: central, clock: clock, options: options.controller, now: now, registry: registry,
      onRecord: { record in
        onRecord(record)
        appRead.withLock { $0 }?(record.peripheral)
      })
    cooldown = Locked(Cooldown(quietPeriod: options.quietPeriod))
    (events, eventContinuation) = AsyncStream.makeStream(
      of: PassiveEvent.self, bufferingPolicy: .bufferingNewest(max(options.eventBuffer, 1)))
    let restored = try registry.peripherals()
    registered = Dictionary(restored.map { ($0.identifier, $0) }) { $1 }
    eventContinuation.yield(.restored(restored))
    let (cooldown, readerClock) = (self.cooldown, clock)
    appRead.withLock { hook in
      hook = { identifier in
        cooldown.withLock { $0.didRead(identifier, at: readerClock.elapsed) }
      }
    }
  }

  deinit { eventContinuation.finish() }

  /// What the reader holds now (see ``PassiveHoldings``).
  package var holdings: PassiveHoldings {
    PassiveHoldings(
      runTasks: runTasks, cooldownEntries: cooldown.withLock { $0.trackedCount },
      retryEntries: retryAfter.count, discoveries: discoveries.count)
  }

  /// The registered peripherals.
  public var registeredPeripherals: [PassivePeripheral] {
    registered.values.sorted { $0.identifier < $1.identifier }
  }

  /// Registers `peripheral` (kept in the journal); ``run()`` reads it from the next
  /// advertisement on.
  public func register(_ peripheral: PassivePeripheral) throws(PassiveError) {
    try registry.register(peripheral)
    registered[peripheral.identifier] = peripheral
  }

  /// Stops reading `identifier` and forgets it.
  public func unregister(_ identifier: String) throws(PassiveError) {
    try registry.unregister(identifier)
    registered[identifier] = nil
    cooldown.withLock { $0.remove(identifier) }
    retryAfter[identifier] = nil
  }

  /// Scans until the calling task is cancelled, reading registered peripherals as they
  /// appear. Operations run one at a time on a worker task; the scan never waits for them.
  /// The scan covers ``Options/scope`` and restarts every ``Options/rescanInterval``; while
  /// a ``discover()`` listens, it covers the four health services instead.
  ///
  /// **Bounded for months**: a run holds two child tasks, its scan and its worker, however
  /// many readings it makes, and at most one operation queued or running (one is queued only
  /// once it reserved the controller, which runs one at a time; so one worker delays nothing).
  public func run() async {
    runs += 1
    if let standalone = discoveryScan {
      discoveryScan = nil
      standalone.cancel()
      await standalone.value
    }
    await stoppedDiscoveryScan?.value
    let (work, queue) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self)
    await withTaskGroup(of: Void.self) { group in
      // Both end when the calling task is cancelled (the worker also when the scan ends the
      // queue). One worker, not a child task per operation: a task group keeps each finished
      // child until it is awaited, and nothing awaited those: one task, about 5 KB of RSS,
      // kept per reading for the life of the run (issue 39).
      group.addTask { await self.scanWindows(into: queue) }
      group.addTask {
        for await operation in work { await operation() }
      }
      runTasks += 2
      await group.waitForAll()
    }
    runTasks -= 2
    runs -= 1
    scanDemandChanged()
  }

  // MARK: Discovery

  /// Health peripherals as they are heard, registered or not, until the consumer stops
  /// iterating (cancelling the iterating task ends the discovery).
  ///
  /// - **What**: an advertisement naming the Health Thermometer (0x1809), Weight Scale
  ///   (0x181D), Blood Pressure (0x1810) or Pulse Oximeter (0x1822) service; anything else
  ///   is not reported. ``DiscoveredHealthPeripheral/isRegistered`` tells whether it is
  ///   registered; register one with ``register(_:)`` and its
  ///   ``DiscoveredHealthPeripheral/registration``.
  /// - **Once per session**: each peripheral is reported once per discovery, and again only
  ///   after it was silent for ``Options/discoveryAbsence`` and is heard again.
  /// - **The scan**: the reader's one scan names the four health services while any
  ///   discovery listens (never no service: that finds nothing in the iOS background), and
  ///   restarts at once and then every ``Options/discoveryRescanInterval``. Under
  ///   ``Options/Scope/everything`` registered recorders, which advertise no service, are
  ///   therefore not heard until the last discovery ends. With ``run()`` running its scan is
  ///   used; without, discovery runs a scan of its own (reading nothing).
  /// - **Back pressure**: the newest 256 reports are kept for a consumer that falls behind.
  public func discover() -> AsyncStream<DiscoveredHealthPeripheral> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: DiscoveredHealthPeripheral.self, bufferingPolicy: .bufferingNewest(Self.discoveryBuffer))
    let key = nextDiscovery
    nextDiscovery += 1
    discoveries[key] = DiscoveryListener(
      continuation: continuation, session: DiscoverySession(absence: options.discoveryAbsence))
    // The stream holds the reader until it ends; the cycle ends with the stream.
    continuation.onTermination = { _ in Task { await self.endDiscovery(key) } }
    scanDemandChanged()
    return stream
  }

  /// Whether a ``discover()`` is listening.
  public var isDiscovering: Bool { !discoveries.isEmpty }

  private func endDiscovery(_ key: Int) {
    guard discoveries.removeValue(forKey: key) != nil else { return }
    scanDemandChanged()
  }

  /// A discovery began or ended, or a ``run()`` ended: the scan follows.
  private func scanDemandChanged() {
    if runs > 0 || discoveryScan != nil {
      if runs == 0, discoveries.isEmpty, let standalone = discoveryScan {
        discoveryScan = nil
        standalone.cancel()
        stoppedDiscoveryScan = standalone
      } else {
        restartWindow?.yield()
      }
      return
    }
    guard !discoveries.isEmpty else { return }
    let previous = stoppedDiscoveryScan
    discoveryScan = Task {
      await previous?.value
      await self.scanWindows(into: nil)
    }
  }

  /// Reports `advertisement` to each discovery that has not reported its peripheral yet.
  private func reportDiscovery(_ advertisement: Advertisement, at now: Duration) {
    guard !discoveries.isEmpty,
      let found = DiscoveredHealthPeripheral(
        advertisement: advertisement,
        isRegistered: registered[advertisement.peripheral.rawValue] != nil)
    else { return }
    for (key, var listener) in discoveries {
      let reports = listener.session.heard(found.identifier, at: now)
      discoveries[key] = listener
      if reports { listener.continuation.yield(found) }
    }
  }

  /// The services the scan names for ``Options/scope`` (nil: every advertisement).
  nonisolated var scanServices: [BluetoothUUID]? {
    switch options.scope {
    case .everything: nil
    case .healthServices: DiscoveredHealthPeripheral.scanServices
    }
  }

  /// The services the next scan window names: the health services while discovering.
  var windowServices: [BluetoothUUID]? {
    discoveries.isEmpty ? scanServices : DiscoveredHealthPeripheral.scanServices
  }

  /// How long the next scan window lasts (nil: until the radio ends it or it is restarted).
  var windowLength: Duration? {
    guard !discoveries.isEmpty else { return options.rescanInterval }
    return min(
      options.rescanInterval ?? options.discoveryRescanInterval, options.discoveryRescanInterval)
  }

  /// One scan window after another until cancelled, each operation heard handed to `queue`
  /// (nil: a discovery's own scan, which starts no operation).
  private func scanWindows(into queue: AsyncStream<@Sendable () async -> Void>.Continuation?)
    async
  {
    defer { queue?.finish() }
    let clock = self.clock
    let startsWork = queue != nil
    while !Task.isCancelled {
      let (restarts, restart) = AsyncStream.makeStream(of: Void.self)
      restartWindow?.finish()
      restartWindow = restart
      let interval = windowLength
      let advertisements = central.scan(services: windowServices)
      await withTaskGroup(of: Void.self) { window in
        window.addTask {
          for await advertisement in advertisements {
            if Task.isCancelled { break }
            if let operation = await self.heard(advertisement, startsWork: startsWork) {
              queue?.yield(operation)
            }
          }
        }
        window.addTask {
          for await _ in restarts { return }
        }
        if let interval { window.addTask { try? await clock.sleep(for: interval) } }
        await window.next()
        window.cancelAll()
      }
    }
  }

  /// Reports an advertisement to the discoveries and decides what it starts, if anything
  /// (nothing unless `startsWork`).
  private func heard(_ advertisement: Advertisement, startsWork: Bool)
    -> (@Sendable () async -> Void)?
  {
    let now = clock.elapsed
    reportDiscovery(advertisement, at: now)
    guard startsWork else { return nil }
    if let recorder = RecorderScanner.recognise(advertisement) {
      // Registered recorders are known by serial; one heard by name only is not matched
      // before a connection would tell its serial (PROTOCOL.md §1).
      guard let serial = recorder.serial, let peripheral = registered[serial],
        peripheral.kind == .recorder
      else { return nil }
      guard mayStart(peripheral.identifier, at: now), let sync = recorderSync else { return nil }
      return reservingWork(.syncRecorder(serial: serial)) { ticket in
        await self.syncRecorder(recorder, sync: sync, ticket: ticket)
      }
    }
    guard let peripheral = registered[advertisement.peripheral.rawValue],
      case .health = peripheral.kind
    else { return nil }
    guard mayStart(peripheral.identifier, at: now) else { return nil }
    let operation: PeripheralOperation =
      peripheral.requiresPairing && !peripheral.isPaired
      ? .pair(identifier: peripheral.identifier) : .read(identifier: peripheral.identifier)
    return reservingWork(operation) { ticket in
      await self.pairIfNeededThenRead(peripheral, ticket: ticket)
    }
  }

  /// The cooldown and the retry delay together.
  private func mayStart(_ identifier: String, at now: Duration) -> Bool {
    guard cooldown.withLock({ $0.heard(identifier, at: now) }) else { return false }
    if let after = retryAfter[identifier] {
      if now < after { return false }
      retryAfter[identifier] = nil
    }
    return true
  }

  /// Claims the controller now (so the next advertisement sees it busy), or nil when it is.
  private func reservingWork(
    _ operation: PeripheralOperation, _ work: @escaping @Sendable (Int) async -> Void
  ) -> (@Sendable () async -> Void)? {
    guard let ticket = try? controller.reserve(operation) else { return nil }
    return { await work(ticket) }
  }

  private func pairIfNeededThenRead(_ peripheral: PassivePeripheral, ticket: Int) async {
    let identifier = peripheral.identifier
    let (cooldown, clock) = (self.cooldown, self.clock)
    do throws(PassiveError) {
      let record = try await controller.perform(ticket) { () async throws(PassiveError) in
        var current = peripheral
        if current.requiresPairing && !current.isPaired {
          try await self.pairStep(current)
          current.isPaired = true
        }
        let record = try await self.controller.readBodyForReader(current)
        // Before the controller is free again: an advertisement heard the moment the link
        // ended must already meet the cooldown.
        cooldown.withLock { $0.didRead(identifier, at: clock.elapsed) }
        return record
      }
      do throws(PassiveError) {
        try registry.enqueue(record)
      } catch {
        // Not kept: the reading may be read again once the retry delay has passed.
        cooldown.withLock { $0.forget(identifier) }
        throw error
      }
      eventContinuation.yield(.recorded(record))
      onRecord(record)
    } catch {
      failed(identifier, error)
    }
  }

  private func pairStep(_ peripheral: PassivePeripheral) async throws(PassiveError) {
    let identifier = peripheral.identifier
    let events = eventContinuation
    try await controller.pairBodyForReader(peripheral) { stage in
      if case .pairingInstructions(let text) = stage {
        events.yield(.pairingInstructions(identifier: identifier, instructions: text))
      }
    }
    registered[identifier]?.isPaired = true
    eventContinuation.yield(.paired(identifier: identifier))
  }

  private func syncRecorder(_ device: DiscoveredDevice, sync: any PassiveRecorderSync, ticket: Int)
    async
  {
    do throws(PassiveError) {
      let (cooldown, clock) = (self.cooldown, self.clock)
      let files = try await controller.perform(ticket) { () async throws(PassiveError) in
        let files: Int
        do { files = try await sync.syncRecorder(device) } catch {
          throw Task.isCancelled ? .cancelled : .recorderSync("\(error)")
        }
        // Before the controller is free again (as for a read).
        cooldown.withLock { $0.didRead(device.identity, at: clock.elapsed) }
        return files
      }
      eventContinuation.yield(.recorderSynced(serial: device.identity, files: files))
    } catch {
      failed(device.identity, error)
    }
  }

  private func failed(_ identifier: String, _ error: PassiveError) {
    retryAfter[identifier] = clock.elapsed + options.retryDelay
    eventContinuation.yield(.failed(identifier: identifier, error))
  }
}
