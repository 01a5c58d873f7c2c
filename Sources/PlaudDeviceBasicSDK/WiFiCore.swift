import Foundation
import RecorderKit

/// A callback to deliver to the Wi-Fi delegate on the callback queue.
typealias WiFiDelegateEvent = @Sendable (any PlaudWiFiAgentProtocol) -> Void

/// What ``PlaudWiFiAgent``'s properties read while commands run.
struct WiFiAgentState: Sendable {
  var connected = false
  var downloading = false
  var downloadingAll = false
  var currentSessionId = 0
}

/// The Wi-Fi half of the facade: the joined ``WiFiLink`` and everything done over it.
/// Commands reach it one at a time, in call order, from ``PlaudWiFiAgent``'s command stream;
/// callbacks leave through `emit`, which queues them on the facade's callback queue in the
/// order they are emitted. Stopping is the one thing that does not wait its turn: it bumps
/// ``stopGeneration`` from the caller's thread, and the transfer running under an older
/// generation refuses its next frame (Wi-Fi STOP, the session stays up).
actor WiFiCore {
  private let configuration: PlaudSDKConfiguration
  private let core: AgentCore
  private let emit: @Sendable (@escaping WiFiDelegateEvent) -> Void
  /// Read by the agent's properties from any thread.
  nonisolated let state = Guarded(WiFiAgentState())
  /// Bumped by every stop; a transfer stops when it differs from the value it started with.
  nonisolated let stopGeneration = Guarded(0)
  private var link: WiFiLink?
  /// The last LIST, for sizes (`syncFile` with `end` 0) and for knowing a recording.
  private var listing: [Recording] = []

  init(
    configuration: PlaudSDKConfiguration, core: AgentCore,
    emit: @escaping @Sendable (@escaping WiFiDelegateEvent) -> Void
  ) {
    self.configuration = configuration
    self.core = core
    self.emit = emit
  }

  private var clock: RecorderClock { configuration.wifiClock ?? configuration.clock }

  nonisolated func requestStop() { stopGeneration.withLock { $0 += 1 } }

  // MARK: - Connecting

  /// Joins `ssid` and runs HELLO and the handshake, retrying within `timeout` seconds:
  /// `wifiConnectionStatus(ssid, true)` → `wifiHandshake(0)`, or `wifiHandshake(status)` →
  /// `wifiCommonErr(1, status)` (status: the device's refusal, else -1). A handshake the
  /// device refused, or a device that is not the one BLE knows, is not retried.
  func connect(ssid: String, password: String, timeout: Int, serial: String?) async {
    if link != nil { await endLink(status: 0) }
    guard let joiner = configuration.hotspotJoiner else {
      return connectFailed(.noHotspotJoiner, status: -1)
    }
    let session: WiFiTransport.Configuration
    do {
      session = try await core.wifiSession(serial: serial)
    } catch {
      return connectFailed(error, status: -1)
    }
    let hotspot = DeviceHotspot(ssid: ssid, password: password)
    let clock = self.clock
    let limit = Duration.seconds(max(1, timeout))
    let started = clock.elapsed
    var last = DeviceError.timeout(operation: "Wi-Fi connect")
    while true {
      let remaining = limit - (clock.elapsed - started)
      guard remaining > .zero else { break }
      var server = configuration.wifiServer
      server.connectTimeout = min(server.connectTimeout, remaining)
      do {
        let joined = try await WiFiLink.connect(
          to: hotspot, joiner: joiner, session: session, configuration: server, clock: clock)
        link = joined
        state.withLock { $0.connected = true }
        emit { $0.wifiConnectionStatus(ssid, true) }
        emit { $0.wifiHandshake(0) }
        return
      } catch {
        last = error
      }
      guard Self.worthRetrying(last) else { break }
      let pause = min(configuration.wifiRetryInterval, limit - (clock.elapsed - started))
      guard pause > .zero, (try? await clock.sleep(for: pause)) != nil else { break }
    }
    let status: Int = if case .handshakeRefused(let code) = last { Int(code) } else { -1 }
    connectFailed(.operationFailed(last.description), status: status)
  }

  /// Joining or the device's connection may work on another try; a refusal will not.
  private static func worthRetrying(_ error: DeviceError) -> Bool {
    switch error {
    case .handshakeRefused, .tokenRejected, .malformedReply, .cancelled: false
    default: true
    }
  }

  private func connectFailed(_ error: PlaudSDKError, status: Int) {
    core.fail(error)
    emit { $0.wifiHandshake(status) }
    emit { $0.wifiCommonErr(PlaudWiFiAgent.Command.handshake.rawValue, status) }
  }

  // MARK: - Listing

  /// LIST: `wifiFileList(files)` (all when `sessionId` is 0; with `single` just that one;
  /// else those after it, like `getFileList(startSessionId:)`), or `wifiFileListFail(status)`
  /// → `wifiCommonErr(11, status)`.
  func list(sessionId: Int, single: Bool) async {
    guard let transport = link?.transport else {
      return refused(.wifiNotConnected, .fileList) { status in { $0.wifiFileListFail(status) } }
    }
    do {
      let all = try await transport.listRecordings()
      listing = all
      let chosen = all.filter { recording in
        let id = Int(recording.sessionId)
        return single ? id == sessionId : id > sessionId
      }
      let durable = await core.durableOffsets(serial: transport.serial)
      emit { delegate in
        delegate.wifiFileList(chosen.map { BleFile($0, offset: durable[$0.sessionId] ?? 0) })
      }
    } catch {
      await failed(error, .fileList) { status in { $0.wifiFileListFail(status) } }
    }
  }

  // MARK: - Transfers

  /// SYNC of `[start, end)` (`end` 0: to the end of the file): `wifiSyncFile(id, 0)` →
  /// `wifiSyncFileData`… → `wifiDataComplete()`; stopped: the data so far, then the stop's
  /// own `wifiSyncFileStop`; refused: `wifiSyncFile(id, status)` → `wifiCommonErr(12, status)`.
  /// The scene sent is the one the device listed (`scene` is accepted for compatibility).
  func sync(sessionId: Int, start: Int, end: Int) async {
    let refuse: (Int) -> WiFiDelegateEvent = { status in { $0.wifiSyncFile(sessionId, status) } }
    guard let transport = link?.transport else {
      return refused(.wifiNotConnected, .syncFile, first: refuse)
    }
    guard let id = UInt32(exactly: sessionId), let from = UInt32(exactly: start),
      let to = UInt32(exactly: end)
    else {
      return refused(.operationFailed("no recording \(sessionId)"), .syncFile, first: refuse)
    }
    let generation = stopGeneration.current
    begin(sessionId: sessionId, all: false)
    defer { finish(all: false) }
    let hooks = transferHooks(generation: generation)
    do throws(DeviceError) {
      if !listing.contains(where: { $0.sessionId == id }) {
        listing = try await transport.listRecordings()
      }
      guard let recording = listing.first(where: { $0.sessionId == id }) else {
        return refused(.operationFailed("no recording \(sessionId)"), .syncFile, first: refuse)
      }
      let size = UInt32(clamping: recording.size)
      let upper = to == 0 ? size : min(to, size)
      let reporting = ReportingTransport(base: transport, only: id, hooks: hooks.hooks)
      _ = try await reporting.stream(sessionId: id, start: from, end: upper) { _ in .continue }
    } catch .cancelled {
      // Stopped: the data received so far, then the stop's own wifiSyncFileStop.
      hooks.flush()
    } catch {
      hooks.flush()
      if hooks.announced(id) {
        await failed(error, .syncFile)
      } else {
        await failed(error, .syncFile, first: refuse)
      }
    }
  }

  /// The export path of `exportAudio`, over Wi-Fi: the sync engine resumes, verifies, stores
  /// and exports; the callback hears `onProgress(0)` … `onProgress(100)` → `onComplete`, or
  /// `onError`; the delegate hears the transfer as for `syncFile`.
  func export(
    sessionId: Int, outputDir: String, format: AudioExportFormat, channels: Int,
    report: @escaping ExportReporter
  ) async {
    guard let transport = link?.transport else {
      core.fail(.wifiNotConnected)
      report { $0.onError(PlaudSDKError.wifiNotConnected.description) }
      return
    }
    let generation = stopGeneration.current
    begin(sessionId: sessionId, all: false)
    defer { finish(all: false) }
    let hooks = transferHooks(generation: generation)
    let outcome = await core.export(
      sessionId: sessionId, outputDir: outputDir, format: format, channels: channels,
      over: transport, hooks: hooks.hooks, report: report)
    hooks.flush()
    if case .failed(_, let error?) = outcome, error != .cancelled {
      await failed(error, .syncFile)
    }
  }

  /// Every recording on the device, oldest first, each stored and exported like
  /// `exportAudioViaWiFi` (nothing is deleted: delete after the batch).
  /// `wifiDownloadAllProgress(total, index, file, 0…1)` at each file's start and whenever the
  /// whole percentage grows, then `wifiDownloadAllCompleted(completed, failed)` where
  /// `failed` counts every file of the batch not downloaded (failed, or left by a stop).
  func downloadAll(outputDir: String, format: AudioExportFormat, channels: Int) async {
    guard let transport = link?.transport else {
      core.fail(.wifiNotConnected)
      emit { $0.wifiCommonErr(PlaudWiFiAgent.Command.fileList.rawValue, -1) }
      emit { $0.wifiDownloadAllCompleted(0, 0) }
      return
    }
    let generation = stopGeneration.current
    begin(sessionId: 0, all: true)
    defer { finish(all: true) }
    let recordings: [Recording]
    do {
      recordings = try await transport.listRecordings().sorted { $0.sessionId < $1.sessionId }
      listing = recordings
    } catch {
      await failed(error, .fileList)
      emit { $0.wifiDownloadAllCompleted(0, 0) }
      return
    }
    let total = recordings.count
    let totalBytes = max(1, recordings.reduce(0) { $0 + Int($1.size) })
    let durable = await core.durableOffsets(serial: transport.serial)
    var completed = 0
    var bytesBefore = 0
    batch: for (index, recording) in recordings.enumerated() {
      guard stopGeneration.current == generation, link?.transport === transport else { break }
      state.withLock { $0.currentSessionId = Int(recording.sessionId) }
      let offset = durable[recording.sessionId] ?? 0
      let position = index + 1
      let before = bytesBefore
      let lastPercent = Guarded(before * 100 / totalBytes)
      let emit = self.emit
      emit { delegate in
        delegate.wifiDownloadAllProgress(
          total, position, BleFile(recording, offset: offset), Double(before) / Double(totalBytes))
      }
      let transfer = transferHooks(generation: generation)
      var hooks = transfer.hooks
      hooks.frame = { id, at, data in
        transfer.hooks.frame(id, at, data)
        let done = before + at + data.count
        let percent = done * 100 / totalBytes
        let grew = lastPercent.withLock { last in
          defer { last = max(last, percent) }
          return percent > last
        }
        if grew {
          emit { delegate in
            delegate.wifiDownloadAllProgress(
              total, position, BleFile(recording, offset: done - before),
              Double(done) / Double(totalBytes))
          }
        }
      }
      let outcome = await core.export(
        sessionId: Int(recording.sessionId), outputDir: outputDir, format: format,
        channels: channels, over: transport, hooks: hooks, report: { _ in })
      transfer.flush()
      bytesBefore += Int(recording.size)
      switch outcome {
      case .exported: completed += 1
      case .failed(_, .cancelled?): break batch
      case .failed(_, let error?): await failed(error, .syncFile)
      case .failed(_, nil): continue batch
      }
    }
    if completed == total {
      emit { $0.wifiDownloadAllProgress(total, total, nil, 1) }
    }
    let done = completed
    emit { $0.wifiDownloadAllCompleted(done, total - done) }
  }

  // MARK: - Deleting

  /// DELETE (with the scene the device listed): `wifiFileDelete(id, 0)`, or
  /// `wifiFileDelete(id, status)` → `wifiCommonErr(14, status)`. Deleting between downloads
  /// stalls the device [sdk]: commands run in call order, so a delete called while a batch
  /// runs waits for the batch.
  func delete(sessionId: Int) async {
    let refuse: (Int) -> WiFiDelegateEvent = { status in { $0.wifiFileDelete(sessionId, status) } }
    guard let transport = link?.transport else {
      return refused(.wifiNotConnected, .deleteFile, first: refuse)
    }
    guard let id = UInt32(exactly: sessionId) else {
      return refused(.operationFailed("no recording \(sessionId)"), .deleteFile, first: refuse)
    }
    do {
      if !listing.contains(where: { $0.sessionId == id }) {
        listing = try await transport.listRecordings()
      }
      try await transport.delete(sessionId: id)
      listing.removeAll { $0.sessionId == id }
      await core.noteDeleted(serial: transport.serial, sessionId: id)
      emit { $0.wifiFileDelete(sessionId, 0) }
    } catch {
      await failed(error, .deleteFile, first: refuse)
    }
  }

  // MARK: - Closing

  /// Ends the Wi-Fi session (STOP, close 1000, server stopped, hotspot left):
  /// `wifiConnectionStatus(ssid, false)` → `wifiClose(0)`. With no session, `wifiClose(-1)`
  /// when `reportIdle`. Then, with `closeHotspot`, WIFI_CLOSE over BLE.
  func close(reportIdle: Bool, closeHotspot: Bool) async {
    if link != nil {
      await endLink(status: 0)
    } else if reportIdle {
      core.fail(.wifiNotConnected)
      emit { $0.wifiClose(-1) }
    }
    if closeHotspot { await core.closeHotspot() }
  }

  private func endLink(status: Int) async {
    guard let ending = link else { return }
    link = nil
    await ending.close()
    state.withLock { $0.connected = false }
    let ssid = ending.hotspot.ssid
    emit { $0.wifiConnectionStatus(ssid, false) }
    emit { $0.wifiClose(status) }
  }

  // MARK: - Reporting

  private func begin(sessionId: Int, all: Bool) {
    state.withLock { state in
      state.currentSessionId = sessionId
      if all { state.downloadingAll = true } else { state.downloading = true }
    }
  }

  private func finish(all: Bool) {
    state.withLock { state in
      if all { state.downloadingAll = false } else { state.downloading = false }
    }
  }

  /// A call that could not start: `first(-1)` → `wifiCommonErr(cmd, -1)`.
  private func refused(
    _ error: PlaudSDKError, _ command: PlaudWiFiAgent.Command,
    first: ((Int) -> WiFiDelegateEvent)? = nil
  ) {
    core.fail(error)
    if let first { emit(first(-1)) }
    emit { $0.wifiCommonErr(command.rawValue, -1) }
  }

  /// A Wi-Fi request failed: `first(status)` → `wifiCommonErr(cmd, status)` (the device's
  /// status when it answered one, else -1). A session the failure closed is ended:
  /// `wifiConnectionStatus(ssid, false)` → `wifiClose(0 when the device ended it, else -1)`.
  private func failed(
    _ error: DeviceError, _ command: PlaudWiFiAgent.Command,
    first: ((Int) -> WiFiDelegateEvent)? = nil
  ) async {
    let status: Int = if case .rejected(_, let code) = error { Int(code) } else { -1 }
    core.fail(.operationFailed(error.description))
    if let first { emit(first(status)) }
    emit { $0.wifiCommonErr(command.rawValue, status) }
    guard let link, link.transport.connection.isClosed else { return }
    await endLink(status: error == .disconnected(.remoteTerminated) ? 0 : -1)
  }

  /// Hooks that report a transfer to the delegate: `wifiSyncFile(id, 0)` before a
  /// recording's first data, `wifiSyncFileData` in contiguous chunks of up to
  /// ``DataChunks/limit`` bytes, `wifiDataComplete()` at the device's tail; they stop the
  /// transfer once ``stopGeneration`` moves past `generation`.
  private func transferHooks(generation: Int) -> TransferHooks {
    TransferHooks(emit: emit, stops: stopGeneration, generation: generation)
  }
}

/// The delegate-facing side of one transfer (see ``WiFiCore``'s `transferHooks`).
struct TransferHooks: Sendable {
  let hooks: ReportingTransport.Hooks
  private let chunks: DataChunks
  private let started: Guarded<Set<UInt32>>
  private let emit: @Sendable (@escaping WiFiDelegateEvent) -> Void

  init(
    emit: @escaping @Sendable (@escaping WiFiDelegateEvent) -> Void, stops: Guarded<Int>,
    generation: Int
  ) {
    let chunks = DataChunks()
    let started = Guarded<Set<UInt32>>([])
    self.chunks = chunks
    self.started = started
    self.emit = emit
    var hooks = ReportingTransport.Hooks()
    hooks.shouldStop = { stops.current != generation }
    hooks.frame = { id, offset, data in
      let first = started.withLock { $0.insert(id).inserted }
      if first { emit { $0.wifiSyncFile(Int(id), 0) } }
      if let full = chunks.append(id, offset, data) { Self.deliver(full, emit) }
    }
    hooks.finished = { id in
      let first = started.withLock { $0.insert(id).inserted }
      if first { emit { $0.wifiSyncFile(Int(id), 0) } }
      if let rest = chunks.flush() { Self.deliver(rest, emit) }
      emit { $0.wifiDataComplete() }
    }
    self.hooks = hooks
  }

  /// Whether `wifiSyncFile(id, 0)` went out.
  func announced(_ id: UInt32) -> Bool { started.current.contains(id) }

  /// Delivers the data held back (a stopped transfer).
  func flush() {
    if let rest = chunks.flush() { Self.deliver(rest, emit) }
  }

  private static func deliver(
    _ chunk: DataChunks.Chunk, _ emit: @Sendable (@escaping WiFiDelegateEvent) -> Void
  ) {
    emit { $0.wifiSyncFileData(Int(chunk.sessionId), chunk.offset, chunk.data.count, chunk.data) }
  }
}

/// Joins contiguous frames (at most 255 bytes each) into chunks for `wifiSyncFileData`.
final class DataChunks: Sendable {
  struct Chunk: Sendable {
    var sessionId: UInt32
    var offset: Int
    var data: Data
  }
  /// Largest chunk handed to the delegate.
  static let limit = 16 * 1024
  private let pending = Guarded<Chunk?>(nil)

  /// Adds a frame; returns a chunk to deliver when it filled up or the frame does not follow
  /// on (then the frame starts the next chunk).
  func append(_ sessionId: UInt32, _ offset: Int, _ data: Data) -> Chunk? {
    pending.withLock { pending in
      if var current = pending, current.sessionId == sessionId,
        current.offset + current.data.count == offset
      {
        current.data.append(data)
        if current.data.count >= Self.limit {
          pending = nil
          return current
        }
        pending = current
        return nil
      }
      let previous = pending
      pending = Chunk(sessionId: sessionId, offset: offset, data: data)
      return previous
    }
  }

  /// The chunk held back, if any.
  func flush() -> Chunk? {
    pending.withLock { pending in
      defer { pending = nil }
      return pending
    }
  }
}
