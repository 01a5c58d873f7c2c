import RecorderConcurrency
import RecorderProtocol

/// What a sync through ``Recorders/sync(serial:into:options:)`` reports as it goes: its
/// attempts, and the pipeline's own events of the run (``pipeline(_:)``: bytes, rates, each
/// recording's steps), so a door reads one stream.
public enum SyncRunEvent: Sendable {
  /// An event of the pipeline (``SyncEngine``) during this run: the same events
  /// ``SyncEngine/events`` carries.
  case pipeline(SyncEvent)
  /// Attempt `attempt` (from 1) could not connect; another attempt follows.
  case connectFailed(attempt: Int, error: any Error)
  /// Attempt `attempt` connected to the recorder with `serial`.
  case connected(attempt: Int, serial: String)
  /// Attempt `attempt` lost the link or the device mid-sync; the next attempt resumes from
  /// the journal.
  case interrupted(attempt: Int, error: any Error)
  /// Wi-Fi was asked for but BLE carried (some of) the sync, for this reason.
  case overBLE(DeviceError)
  /// A WIFI_CLOSE owed to the recorder (its BLE was down when a Wi-Fi sync ended,
  /// `OwedWiFiCloses`) was sent over a later BLE connection (`sent`), or could not be and
  /// stays owed to the next connection.
  case owedWiFiClose(sent: Bool)
  /// The sync completed: every file of every attempt, the last word on each winning, and
  /// files the journal finished although no attempt reported them (a DELETE whose reply a
  /// drop lost).
  case finished(SyncReport)
}

/// How ``Recorders/sync(serial:into:options:)`` runs.
public struct SyncRunOptions: Sendable {
  /// Attempts in all, the first included (≥ 1): each connects anew and resumes.
  public var maximumAttempts: Int
  /// Wi-Fi for a large backlog (BLE for the rest and whenever Wi-Fi fails), or nil for BLE
  /// only.
  public var wifi: WiFiSyncPlan?

  /// - Parameters:
  ///   - maximumAttempts: attempts in all (default 20; at least 1).
  ///   - wifi: the Wi-Fi plan, or nil for BLE only.
  public init(maximumAttempts: Int = 20, wifi: WiFiSyncPlan? = nil) {
    self.maximumAttempts = max(1, maximumAttempts)
    self.wifi = wifi
  }
}

/// Why a sync through the front door ended without completing, when no single failure was
/// final: every attempt hit a failure that may pass. A later sync may still succeed
/// (``isRetryable`` is true): a watch waits for the recorder again.
public struct SyncAttemptsExhausted: RetryableError, Sendable, CustomStringConvertible {
  /// The attempts made.
  public let attempts: Int
  /// The last attempt's failure.
  public let lastError: any Error

  public var description: String { "gave up after \(attempts) attempts: \(lastError)" }

  /// True: the recorder may be back for a later sync.
  public var isRetryable: Bool { true }
}

/// What a watch (``Recorders/watch(serial:into:options:pause:runs:)``) reports.
public enum WatchEvent: Sendable {
  /// The radio is powered off or not ready: waiting for it.
  case waitingForRadio
  /// The radio cannot be opened, for this reason (each new reason once); retrying.
  case radioUnavailable(String)
  /// The recorder was heard: a sync starts.
  case heard(DiscoveredDevice)
  /// An event of the sync running now.
  case run(SyncRunEvent)
  /// Sync number `count` (from 1) completed; waiting for the recorder again.
  case synced(count: Int)
  /// This sync stopped for a failure that may pass; waiting for the recorder again.
  case runStopped(any Error)
}

extension Recorders {
  /// Syncs every recording of the recorder with `serial` (any recorder when nil, then the
  /// one first reached for every later attempt) into `engine`, exactly once, verified,
  /// deleted from the device as `engine`'s options say.
  ///
  /// Each attempt connects (``connect(serial:heard:session:)``), sends a WIFI_CLOSE still owed
  /// to the recorder (`SyncEngine/owedWiFiCloses`: one an earlier sync, in this process or
  /// another, could not send), and runs the engine's sync, over Wi-Fi when `options.wifi`
  /// says so. A Wi-Fi sync that ends with BLE down (a recorder that drops BLE while its
  /// hotspot is up) is complete; the recorder is then reached over BLE again for its
  /// WIFI_CLOSE, which otherwise waits for the next connection. An attempt that fails for a
  /// reason that may pass (``RetryableError/isRetryable``) is followed by another, which
  /// resumes from the journal, up to ``SyncRunOptions/maximumAttempts``; a final failure ends
  /// the sync at once.
  /// - Returns: events ending with ``SyncRunEvent/finished(_:)``; the stream throws the
  ///   final failure, or ``SyncAttemptsExhausted``. Ending the iteration cancels the sync.
  public func sync(
    serial: String?, into engine: SyncEngine, options: SyncRunOptions = SyncRunOptions()
  ) -> AsyncThrowingStream<SyncRunEvent, any Error> {
    let (events, continuation) = AsyncThrowingStream.makeStream(of: SyncRunEvent.self)
    let task = Task {
      do {
        let report = try await runSync(
          serial: serial, into: engine, options: options, report: { continuation.yield($0) })
        continuation.yield(.finished(report))
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return events
  }

  /// ``sync(serial:into:options:)`` as one call: its events go to `report`.
  /// - Returns: the merged report (``SyncRunEvent/finished(_:)``).
  /// - Throws: the final failure, or ``SyncAttemptsExhausted``.
  public func runSync(
    serial: String?, into engine: SyncEngine, options: SyncRunOptions = SyncRunOptions(),
    report: @escaping @Sendable (SyncRunEvent) -> Void = { _ in }
  ) async throws -> SyncReport {
    // The pipeline's events of this run go to `report` too, in order with the attempts'.
    let tap = engine.eventSink.addTap { report(.pipeline($0)) }
    defer { engine.eventSink.removeTap(tap) }
    return try await runAttempts(serial: serial, into: engine, options: options, report: report)
  }

  /// ``runSync(serial:into:options:report:)`` without the pipeline's events (a watch taps
  /// them for its whole life, its finish steps between runs included).
  private func runAttempts(
    serial: String?, into engine: SyncEngine, options: SyncRunOptions,
    report: @escaping @Sendable (SyncRunEvent) -> Void
  ) async throws -> SyncReport {
    var serial = serial
    var total = SyncReport()
    await engine.beginRun()
    let retry = RetryPolicy.attempts(options.maximumAttempts)
    return try await retry.run(on: clock, cancelled: SyncError.cancelled) {
      attempt async throws -> RetryOutcome<SyncReport, any Error> in
      if Task.isCancelled { throw SyncError.cancelled }
      let exhausted = { (error: any Error) in
        RetryOutcome<SyncReport, any Error>.failed(
          SyncAttemptsExhausted(attempts: attempt.number, lastError: error))
      }
      let connection: RecorderConnection
      do {
        connection = try await connect(serial: serial)
      } catch {
        guard Self.isRetryable(error) else { throw error }
        report(.connectFailed(attempt: attempt.number, error: error))
        return exhausted(error)
      }
      let found = await connection.session.info.serial
      serial = found
      report(.connected(attempt: attempt.number, serial: found))
      if await engine.owedWiFiCloses.sendIfOwed(over: connection.session) {
        report(.owedWiFiClose(sent: true))
      }
      do throws(SyncError) {
        let done = try await Self.sync(engine, over: connection.session, wifi: options.wifi)
        await connection.close()
        await sendOwedWiFiClose(serial: found, owed: engine.owedWiFiCloses, report: report)
        if options.wifi != nil, let reason = done.wifiFallback { report(.overBLE(reason)) }
        total.absorb(done)
        // The journal is the record of the run: a file whose DELETE reply was lost to a drop
        // is in it, though no attempt reported it.
        return .success(try await engine.summary(of: total, serial: found))
      } catch {
        await connection.close()
        // Files this attempt finished (and perhaps deleted) before it stopped.
        if let partial = await engine.interruptedReport { total.absorb(files: partial) }
        guard error.isRetryable, !Task.isCancelled else { throw error }
        report(.interrupted(attempt: attempt.number, error: error))
        return exhausted(error)
      }
    }
  }

  /// A gateway: waits for the recorder with `serial` (any recorder when nil) to be heard,
  /// syncs it (``sync(serial:into:options:)``), waits `pause`, and again, until `runs`
  /// syncs have completed (nil: until the iteration ends). A radio switched off or out of
  /// reach, the recorder gone or any failure that may pass ends one sync, never the watch;
  /// only a final failure (a rejected token, a full disk, a hostile device) ends it.
  /// - Returns: events; the stream finishes after `runs` syncs, or throws the final failure.
  public func watch(
    serial: String?, into engine: SyncEngine, options: SyncRunOptions = SyncRunOptions(),
    pause: Duration = .seconds(30), runs: Int? = nil
  ) -> AsyncThrowingStream<WatchEvent, any Error> {
    let (events, continuation) = AsyncThrowingStream.makeStream(of: WatchEvent.self)
    let task = Task {
      // The pipeline's events, for the watch's whole life: its finish steps go on between
      // runs.
      let tap = engine.eventSink.addTap { continuation.yield(.run(.pipeline($0))) }
      defer { engine.eventSink.removeTap(tap) }
      let serial = Locked(serial)
      var completed = 0
      while !Task.isCancelled {
        let wanted = serial.withLock { $0 }
        guard let heard = await waitUntilHeard(serial: wanted, report: { continuation.yield($0) })
        else { break }
        continuation.yield(.heard(heard))
        do {
          let report = try await runAttempts(
            serial: wanted, into: engine, options: options,
            report: { event in
              // The recorder first reached is the one watched from then on.
              if case .connected(_, let found) = event { serial.withLock { $0 = $0 ?? found } }
              continuation.yield(.run(event))
            })
          continuation.yield(.run(.finished(report)))
          completed += 1
          continuation.yield(.synced(count: completed))
          if let runs, completed >= runs { break }
        } catch let error where Self.isRetryable(error) {
          continuation.yield(.runStopped(error))
        } catch {
          continuation.finish(throwing: error)
          return
        }
        guard (try? await clock.sleep(for: pause)) != nil else { break }
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return events
  }

  /// ``RetryableError/isRetryable`` of `error`, true when it does not say.
  package static func isRetryable(_ error: any Error) -> Bool {
    (error as? any RetryableError)?.isRetryable ?? true
  }
}
