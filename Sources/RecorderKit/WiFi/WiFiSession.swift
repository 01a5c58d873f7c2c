import RecorderConcurrency
import RecorderProtocol

/// A Wi-Fi Fast Transfer session (PROTOCOL.md §6) with the policy an app needs around the
/// bare ``WiFiLink``: joining with retries inside one timeout, raw range reads, exports and
/// a batch download through the sync engine, deletes that the journal hears about, and
/// stopping the transfer running without ending the session.
///
/// Calls run one at a time (the device serves one Wi-Fi request at a time); only
/// ``stopTransfer()`` acts at once, from any thread. The hotspot itself is raised and
/// dropped over BLE (``DeviceSession/openWiFi(password:)``, ``DeviceSession/closeWiFi()``).
package actor WiFiSession {
  /// How to join and how patient to be.
  public struct Configuration: Sendable {
    /// Where our WebSocket server listens; its `connectTimeout` bounds each attempt.
    public var link: WiFiLink.Configuration
    /// The pause between attempts (the join or the device's connection may work on another
    /// try; a refusal will not, and is not retried).
    public var retryInterval: Duration
    /// The clock of the session's waits and of its sync engine runs: the app's one clock,
    /// the one its BLE session runs on.
    public var clock: AnyClock

    public init(
      link: WiFiLink.Configuration = WiFiLink.Configuration(),
      retryInterval: Duration = .seconds(3), clock: AnyClock = .continuous
    ) {
      self.link = link
      self.retryInterval = retryInterval
      self.clock = clock
    }
  }

  /// How a raw read ended.
  public enum ReadEnd: Sendable, Equatable {
    /// Every byte of the range arrived.
    case complete
    /// ``stopTransfer()`` stopped it; the session stays up.
    case stopped
    /// The device does not list the recording.
    case notOnDevice(sessionId: SessionID)
    /// The request failed (a refusal, a timeout, the link lost: see ``isClosed``).
    case failed(DeviceError)
  }

  /// What ``read(sessionId:from:to:stopWhen:)`` reports: the bytes in order, then how it ended.
  public enum ReadEvent: Sendable, Equatable {
    case data(sessionId: SessionID, offset: Int, bytes: [UInt8])
    case finished(ReadEnd)
  }

  /// The joined hotspot, our server and the device's §6 session.
  public nonisolated let link: WiFiLink
  /// The device's serial (its HELLO proved it).
  public nonisolated let serial: String
  let clock: AnyClock
  /// Bumped by every ``stopTransfer()``; a transfer stops once it differs from the value it
  /// started with.
  let stops = Locked(0)
  /// The last LIST: sizes for reads, and the scenes DELETE must repeat.
  private var listing: [Recording] = []

  private init(link: WiFiLink, serial: String, clock: AnyClock) {
    self.link = link
    self.serial = serial
    self.clock = clock
  }

  /// Joins `hotspot`, waits for the device and runs HELLO and the handshake, trying again
  /// every ``Configuration/retryInterval`` until it works or `timeout` of the session's
  /// clock has passed. A failure no retry mends (``DeviceError/isRetryable``: a handshake the
  /// device refused for good, a token it rejected, a cancelled task) ends it at once.
  ///
  /// The first attempt is bounded by the device's connect
  /// (``WiFiLink/Configuration/connectTimeout``), never cut short by `timeout`: once joined,
  /// the device it let in is waited for, however long the join took on a busy machine (a
  /// retry started meanwhile would meet that device's session still alive). `timeout`
  /// bounds when a retry may start, and how long a retry waits.
  /// - Throws: the last attempt's error.
  public static func connect(
    to hotspot: DeviceHotspot, joiner: any HotspotJoiner, session: WiFiTransport.Configuration,
    timeout: Duration, configuration: Configuration = Configuration()
  ) async throws(DeviceError) -> WiFiSession {
    let clock = configuration.clock
    let retry = RetryPolicy.within(timeout, delay: configuration.retryInterval)
    return try await retry.run(on: clock, cancelled: .cancelled) {
      attempt throws(DeviceError) -> RetryOutcome<WiFiSession, DeviceError> in
      var server = configuration.link
      if attempt.number > 1, let remaining = attempt.remaining {
        server.connectTimeout = min(server.connectTimeout, remaining)
      }
      do throws(DeviceError) {
        let joined = try await WiFiLink.connect(
          to: hotspot, joiner: joiner, session: session, configuration: server, clock: clock)
        return .success(WiFiSession(link: joined, serial: session.serial, clock: clock))
      } catch {
        guard error.isRetryable else { throw error }
        return .failed(error)
      }
    }
  }

  /// The hotspot that was joined.
  public nonisolated var hotspot: DeviceHotspot { link.hotspot }

  /// Whether the device's connection is gone (the device ended it, or it was lost).
  public nonisolated var isClosed: Bool { link.transport.connection.isClosed }

  /// Stops the transfer running now (a read, an export, a batch): it refuses its next
  /// frame, the device is told STOP and the session stays usable. Callable from any
  /// thread; a transfer started after this call is not affected.
  public nonisolated func stopTransfer() { stops.withLock { $0 += 1 } }

  /// A check that answers true once ``stopTransfer()`` was called after this moment, or
  /// once `also` does.
  func stopCheck(or also: @escaping @Sendable () -> Bool = { false }) -> @Sendable () -> Bool {
    let stops = self.stops
    let generation = stops.withLock { $0 }
    return { stops.withLock { $0 } != generation || also() }
  }

  /// LIST: the device's recordings (remembered for reads and deletes).
  public func listRecordings() async throws(DeviceError) -> [Recording] {
    listing = try await link.transport.listRecordings()
    return listing
  }

  /// Streams bytes `[start, end)` of one recording (`end` nil: to its end), storing
  /// nothing: the caller keeps the bytes. Lists first when the recording is not known yet,
  /// for its size and scene. Stopped by ``stopTransfer()``, or before any frame for which
  /// `shouldStop` answers true.
  public func read(
    sessionId: SessionID, from start: UInt32, to end: UInt32? = nil,
    stopWhen shouldStop: @escaping @Sendable () -> Bool = { false }
  ) -> AsyncStream<ReadEvent> {
    let (events, continuation) = AsyncStream.makeStream(of: ReadEvent.self)
    let shouldStop = stopCheck(or: shouldStop)
    let task = Task {
      let ending = await self.runRead(
        sessionId: sessionId, start: start, end: end, shouldStop: shouldStop,
        events: continuation)
      continuation.yield(.finished(ending))
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return events
  }

  private func runRead(
    sessionId: SessionID, start: UInt32, end: UInt32?, shouldStop: @escaping @Sendable () -> Bool,
    events: AsyncStream<ReadEvent>.Continuation
  ) async -> ReadEnd {
    do throws(DeviceError) {
      if !listing.contains(where: { $0.sessionId == sessionId }) {
        listing = try await link.transport.listRecordings()
      }
      guard let recording = listing.first(where: { $0.sessionId == sessionId }) else {
        return .notOnDevice(sessionId: sessionId)
      }
      let size = UInt32(clamping: recording.size)
      var observer = ObservedTransport.Observer()
      observer.frame = { id, frame in
        events.yield(.data(sessionId: id, offset: Int(frame.offset), bytes: frame.data))
      }
      observer.shouldStop = shouldStop
      let observed = ObservedTransport(base: link.transport, only: sessionId, observer: observer)
      _ = try await observed.stream(
        sessionId: sessionId, start: start, end: end.map { min($0, size) } ?? size
      ) { _ in .continue }
      return .complete
    } catch .cancelled {
      return .stopped
    } catch {
      return .failed(error)
    }
  }

  /// Exports one recording over this session into `workspace` (see ``RecordingExport``):
  /// journalled and resumable like a BLE export, and stoppable with ``stopTransfer()`` or
  /// `shouldStop`, asked before each frame (``RecordingExportError/stopped(sessionId:)``;
  /// the session stays up).
  public func export(
    _ request: RecordingExport.Request, into workspace: SyncWorkspace,
    stopWhen shouldStop: @escaping @Sendable () -> Bool = { false }
  ) -> AsyncStream<RecordingExport.Event> {
    workspace.exportEvents(
      request, over: link.transport, clock: clock, shouldStop: stopCheck(or: shouldStop))
  }

  /// DELETE of one recording (with the scene the device listed; lists first when it is not
  /// known), then the journal of `workspace` records it. Delete only after a batch: a delete
  /// between downloads stalls the device [sdk].
  public func delete(sessionId: SessionID, journal workspace: SyncWorkspace)
    async throws(DeviceError)
  {
    if !listing.contains(where: { $0.sessionId == sessionId }) {
      listing = try await link.transport.listRecordings()
    }
    try await workspace.deleteRecording(sessionId, over: link.transport)
    listing.removeAll { $0.sessionId == sessionId }
  }

  /// Ends the session: STOP, close 1000, our server stopped, the hotspot left. Idempotent.
  /// (WIFI_CLOSE over BLE is the caller's, when BLE is up.)
  public func close() async {
    stopTransfer()
    await link.close()
  }
}

extension DeviceHotspot {
  /// A fresh hotspot password: eight random letters and digits (no look-alikes), for
  /// ``DeviceSession/openWiFi(password:)``, so each session's network has its own key.
  package static func makePassword() -> String {
    let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
    var generator = SystemRandomNumberGenerator()
    return String(
      (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
  }
}
