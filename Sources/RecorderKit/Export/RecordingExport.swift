import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderProtocol
import RecorderStore

/// One recording moved off the device and exported, with its own progress: what an app's
/// "export this recording" button needs, over BLE or Wi-Fi.
///
/// The transfer goes through the sync engine (resume from the durable offset, verify,
/// fsync, atomic rename, journal), narrowed to the one recording; nothing is deleted from
/// the device. The export honours the format and the folder asked for: a recording already
/// exported elsewhere or in another format is exported again from the stored raw bytes,
/// while the same export asked twice is served from the file already in place. A recording
/// the journal already holds verified is exported without asking the device anything.
///
/// Start one with ``SyncWorkspace/export(_:over:stopWhen:)``; its events are
/// ``Event/progress(_:)`` (the first at 0 before the device is asked), optionally
/// ``Event/data(sessionId:offset:bytes:)`` as frames arrive, ``Event/transferred(sessionId:)``
/// when the device's last byte arrived, then exactly one ``Event/finished(_:)``.
public enum RecordingExport {
  /// What to export, how and where.
  public struct Request: Sendable, Equatable {
    /// The recording (its session id, as LIST reports it).
    public var sessionId: SessionID
    /// The format of the exported file.
    public var format: ExportFormat
    /// Output channels (nil: as recorded).
    public var channels: Int?
    /// The folder of the exported file (nil: `<root>/exports`).
    public var directory: String?
    /// Report every frame's bytes as ``Event/data(sessionId:offset:bytes:)`` (off by
    /// default: the bytes are on disk anyway; the vendor facade mirrors them to its app).
    public var reportsData: Bool
    /// When the conversion runs: at once (the default), or deferred
    /// (``ExportPolicy/deferConversion``): the recording is stored and verified, the
    /// conversion journaled as owed, and the export finishes with
    /// ``ExportedRecording/conversionPending`` true.
    public var policy: ExportPolicy

    /// - Parameters:
    ///   - sessionId: the recording.
    ///   - format: the format of the exported file.
    ///   - channels: output channels (nil: as recorded).
    ///   - directory: the folder of the exported file (nil: `<root>/exports`).
    ///   - reportsData: report every frame's bytes.
    ///   - policy: convert at once, or defer the conversion.
    public init(
      sessionId: SessionID, format: ExportFormat, channels: Int? = nil, directory: String? = nil,
      reportsData: Bool = false, policy: ExportPolicy = .convertImmediately
    ) {
      self.sessionId = sessionId
      self.format = format
      self.channels = channels
      self.directory = directory
      self.reportsData = reportsData
      self.policy = policy
    }
  }

  /// How far the transfer of one recording is.
  public struct Progress: Sendable, Equatable {
    public var sessionId: SessionID
    /// Bytes of the recording held locally (a resumed transfer starts above 0).
    public var bytes: Int64
    /// The recording's size; 0 until the device listed it.
    public var totalBytes: Int64

    package init(sessionId: SessionID, bytes: Int64, totalBytes: Int64) {
      self.sessionId = sessionId
      self.bytes = bytes
      self.totalBytes = totalBytes
    }

    /// The export's whole percentage, 0–99 while bytes move: 100 is ``Event/finished(_:)``.
    public var percent: Int {
      guard totalBytes > 0 else { return 0 }
      return Int(min(99, bytes * 100 / totalBytes))
    }
  }

  /// What an export reports, in order.
  public enum Event: Sendable, Equatable {
    /// Reported at 0 first, then whenever ``Progress/percent`` grows.
    case progress(Progress)
    /// A frame the engine accepted (only with ``Request/reportsData``).
    case data(sessionId: SessionID, offset: Int, bytes: [UInt8])
    /// The device's last byte of the recording arrived (not reported when nothing had to
    /// move).
    case transferred(sessionId: SessionID)
    /// The last event: the exported file, or why there is none.
    case finished(Result<ExportedRecording, RecordingExportError>)
  }
}

/// A recording exported: its file is in place (fsync'd, atomically renamed), unless
/// ``conversionPending`` says the conversion was deferred.
public struct ExportedRecording: Sendable, Equatable {
  public var sessionId: SessionID
  /// The exported file; with ``conversionPending``, where it will be once converted.
  public var path: String
  /// The transports that carried the recording's bytes ("ble", "wifi", "ble+wifi"); nil
  /// when unknown.
  public var transport: String?
  /// True when the conversion was deferred (``ExportPolicy/deferConversion``): the recording
  /// is stored and verified and the journal owes its conversion
  /// (``SyncWorkspace/pendingConversions()``); nothing is at ``path`` until
  /// ``SyncWorkspace/convertPending(shouldStop:converted:)`` made it.
  public var conversionPending: Bool

  /// - Parameters:
  ///   - sessionId: the recording.
  ///   - path: the exported file (or where it will be).
  ///   - transport: the transports that carried its bytes.
  ///   - conversionPending: whether the conversion is still owed.
  package init(
    sessionId: SessionID, path: String, transport: String?, conversionPending: Bool = false
  ) {
    self.sessionId = sessionId
    self.path = path
    self.transport = transport
    self.conversionPending = conversionPending
  }
}

/// Why an export has no file. Every case leaves what was made durable in place: the next
/// export resumes.
public enum RecordingExportError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The device does not list the recording and the journal holds no stored copy.
  case notOnDevice(sessionId: SessionID)
  /// The recording is still being recorded: it is left alone until it stops.
  case stillRecording(sessionId: SessionID)
  /// Every byte arrived and is kept at `rawPath`, but the device's checksum never matched
  /// (read twice, identical bytes): not exported, and never deleted from the device on
  /// this copy's word (PROTOCOL.md §10).
  case unverified(sessionId: SessionID, rawPath: String)
  /// `WiFiSession/stopTransfer()` or the export's `shouldStop` stopped it; the link stays
  /// up and the bytes that arrived are kept for the next export to resume from.
  case stopped(sessionId: SessionID)
  /// Another export of this workspace is moving the same recording right now (say one over
  /// BLE and one over Wi-Fi): two transfers never share its partial file. Ask again when
  /// that one finished; it will be served from the stored copy.
  case alreadyTransferring(sessionId: SessionID)
  /// The transfer, the storage, the journal or the encoder failed.
  case sync(SyncError)

  public var description: String {
    switch self {
    case .notOnDevice(let id): "no recording \(id) on the device"
    case .stillRecording(let id): "recording \(id) is still being recorded"
    case .unverified(let id, let rawPath):
      "recording \(id) was transferred and kept at \(rawPath), but its checksum never matched"
        + " the device's: it is not exported and stays on the device"
    case .stopped(let id): "the transfer of recording \(id) was stopped"
    case .alreadyTransferring(let id):
      "recording \(id) is being transferred by another export; ask again when it finished"
    case .sync(let error): error.description
    }
  }
}

extension SyncWorkspace {
  /// Exports one recording (see ``RecordingExport``) over `transport`. Cancelling the
  /// consuming task cancels the export, and the stream ends without its `.finished` event
  /// (over Wi-Fi that also ends the session; use `WiFiSession/export(_:into:stopWhen:)` and
  /// `WiFiSession/stopTransfer()` to keep it). To stop a transfer and still hear how it
  /// ended, answer true from `shouldStop` instead: the next frame is refused, the link stays
  /// up, the bytes so far are kept (the next export resumes from them) and the stream ends
  /// with ``RecordingExportError/stopped(sessionId:)``.
  /// - Parameters:
  ///   - request: the recording, format and folder.
  ///   - transport: BLE or Wi-Fi, to the device that holds it.
  ///   - clock: the sync engine's clock (speed, checkpoints).
  ///   - shouldStop: asked before each frame; true stops the transfer. Must not block.
  package func export(
    _ request: RecordingExport.Request, over transport: any RecordingTransport,
    clock: AnyClock = .continuous, stopWhen shouldStop: @escaping @Sendable () -> Bool = { false }
  ) -> AsyncStream<RecordingExport.Event> {
    exportEvents(request, over: transport, clock: clock, shouldStop: shouldStop)
  }

  /// The export over `transport` for a caller that needs only the outcome.
  package func exportRecording(
    _ request: RecordingExport.Request, over transport: any RecordingTransport,
    clock: AnyClock = .continuous
  ) async throws(RecordingExportError) -> ExportedRecording {
    for await event in export(request, over: transport, clock: clock) {
      if case .finished(let result) = event { return try result.get() }
    }
    throw .sync(.cancelled)
  }

  /// Exports one recording (see ``RecordingExport``) over the BLE session `session`, every
  /// wait and rate on the session's clock. Cancelling the consuming task cancels the export,
  /// and the stream ends without its `.finished` event. To stop a transfer and still hear
  /// how it ended, answer true from `shouldStop` instead: the next frame is refused, the
  /// link stays up, the bytes so far are kept (the next export resumes from them) and the
  /// stream ends with ``RecordingExportError/stopped(sessionId:)``. Over the device's Wi-Fi,
  /// export through ``Recorders/export(_:from:into:stopWhen:)``.
  /// - Parameters:
  ///   - request: the recording, format and folder.
  ///   - session: a connected session to the device that holds it.
  ///   - shouldStop: asked before each frame; true stops the transfer. Must not block.
  public func export(
    _ request: RecordingExport.Request, over session: DeviceSession,
    stopWhen shouldStop: @escaping @Sendable () -> Bool = { false }
  ) -> AsyncStream<RecordingExport.Event> {
    export(
      request, over: BLETransport(session: session), clock: session.configuration.clock,
      stopWhen: shouldStop)
  }

  /// ``export(_:over:stopWhen:)`` for a caller that needs only the outcome.
  /// - Throws: the export's failure, or ``RecordingExportError/sync(_:)`` with
  ///   ``SyncError/cancelled`` when the calling task was cancelled first.
  public func exportRecording(_ request: RecordingExport.Request, over session: DeviceSession)
    async throws(RecordingExportError) -> ExportedRecording
  {
    try await exportRecording(
      request, over: BLETransport(session: session), clock: session.configuration.clock)
  }

  /// The events of one export whose transfer stops once `shouldStop` answers true.
  func exportEvents(
    _ request: RecordingExport.Request, over transport: any RecordingTransport,
    clock: AnyClock, shouldStop: @escaping @Sendable () -> Bool
  ) -> AsyncStream<RecordingExport.Event> {
    let (events, continuation) = AsyncStream.makeStream(of: RecordingExport.Event.self)
    let task = Task {
      let result = await runExport(
        request, over: transport, clock: clock, shouldStop: shouldStop, events: continuation)
      continuation.yield(.finished(result))
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return events
  }

  /// One recording through the pipeline (``SyncEngine``), narrowed to it: its transfer if
  /// the journal holds no stored copy, then the export step as `request` asks; nothing is
  /// deleted from the device.
  private func runExport(
    _ request: RecordingExport.Request, over transport: any RecordingTransport,
    clock: AnyClock, shouldStop: @escaping @Sendable () -> Bool,
    events: AsyncStream<RecordingExport.Event>.Continuation
  ) async -> Result<ExportedRecording, RecordingExportError> {
    let id = request.sessionId
    let serial = await transport.serial
    let directory = request.directory ?? StorageLayout(root: root).exports
    let engine = makeEngine(
      format: request.format, channels: request.channels, exportDirectory: directory,
      deleteFromDevice: false, exportPolicy: request.policy, clock: clock)
    events.yield(.progress(RecordingExport.Progress(sessionId: id, bytes: 0, totalBytes: 0)))
    do throws(RecordingExportError) {
      // Held already: no need to ask the device anything.
      if let held = try storedRecord(serial: serial, sessionId: id) {
        guard held.verification.permitsExport else {
          throw .unverified(sessionId: id, rawPath: held.rawPath ?? "")
        }
        let file: SyncReport.File?
        do { file = try await engine.finishStored(serial: serial, sessionId: id) } catch {
          throw .sync(error)
        }
        guard let file else { throw .notOnDevice(sessionId: id) }
        return .success(exported(file, serial: serial, request: request, directory: directory))
      }
      // One transfer per recording: its `.part` has one writer.
      guard claimTransfer(serial: serial, sessionId: id) else {
        throw .alreadyTransferring(sessionId: id)
      }
      defer { releaseTransfer(serial: serial, sessionId: id) }
      let meter = ProgressMeter(sessionId: id)
      var observer = ObservedTransport.Observer()
      observer.listed = { meter.setTotal(Int64($0.first?.size ?? 0)) }
      observer.frame = { id, frame in
        if request.reportsData {
          events.yield(.data(sessionId: id, offset: Int(frame.offset), bytes: frame.data))
        }
        if let progress = meter.advance(to: Int64(frame.offset) + Int64(frame.data.count)) {
          events.yield(.progress(progress))
        }
      }
      observer.finished = { events.yield(.transferred(sessionId: $0)) }
      observer.shouldStop = shouldStop
      let report: SyncReport
      do {
        report = try await engine.sync(
          using: ObservedTransport(base: transport, only: id, observer: observer))
      } catch .device(.cancelled) where shouldStop() {
        throw .stopped(sessionId: id)
      } catch {
        throw .sync(error)
      }
      if let givenUp = report.givenUp.first(where: { $0.sessionId == id }) {
        throw .sync(.export(sessionId: id, reason: givenUp.reason))
      }
      guard let file = report.files.first(where: { $0.sessionId == id }) else {
        throw report.skippedInProgress.contains(id)
          ? .stillRecording(sessionId: id) : .notOnDevice(sessionId: id)
      }
      guard file.verified else {
        let raw = try storedRecord(serial: serial, sessionId: id)?.rawPath
        throw .unverified(sessionId: id, rawPath: raw.map(layout.resolved) ?? "")
      }
      return .success(exported(file, serial: serial, request: request, directory: directory))
    } catch {
      return .failure(error)
    }
  }

  /// The export a pipeline's report says `file` has: its file, or where the deferred
  /// conversion will put it.
  private func exported(
    _ file: SyncReport.File, serial: String, request: RecordingExport.Request, directory: String
  ) -> ExportedRecording {
    let planned =
      directory + "/"
      + StorageLayout.exportName(
        serial: serial, sessionId: file.sessionId, generation: file.generation,
        fileExtension: request.format.fileExtension)
    return ExportedRecording(
      sessionId: file.sessionId, path: file.exportPath ?? planned, transport: file.transport,
      conversionPending: file.exportPath == nil && file.conversionPending)
  }

  /// The journal's record of `sessionId` once it is stored (verified or not), else nil.
  private func storedRecord(serial: String, sessionId: SessionID) throws(RecordingExportError)
    -> RecordingRecord?
  {
    do {
      let record = try journal.read { try $0.recording(serial: serial, sessionId: sessionId) }
      guard let record, record.stage >= .stored else { return nil }
      return record
    } catch {
      throw .sync(.journal("\(error)"))
    }
  }
}

/// Progress of one transfer from the bytes received, reported only when the whole
/// percentage grows (so a long recording makes at most 100 events, not one per frame).
final class ProgressMeter: Sendable {
  private struct State {
    var total: Int64 = 0
    var lastPercent = 0
  }
  private let sessionId: SessionID
  private let state = Locked(State())

  init(sessionId: SessionID) { self.sessionId = sessionId }

  /// Sets the recording's size once it is listed.
  func setTotal(_ bytes: Int64) { state.withLock { $0.total = max(0, bytes) } }

  /// The progress at `end` bytes held if its percentage grew, else nil.
  func advance(to end: Int64) -> RecordingExport.Progress? {
    state.withLock { state in
      let progress = RecordingExport.Progress(
        sessionId: sessionId, bytes: end, totalBytes: state.total)
      guard progress.percent > state.lastPercent else { return nil }
      state.lastPercent = progress.percent
      return progress
    }
  }
}
