import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import TestSupport
import Testing

@Suite("RecordingExport: one recording with its own progress, in the format and folder asked")
struct RecordingExportTests {
  @Test(
    "progress from 0, the bytes, the tail, then the file; another format or folder is exported anew"
  )
  func exportHonoursFormatAndFolder() async throws {
    let bench = try SyncBench(seed: 51)
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(20))
    let id = recording.sessionId
    let session = try await bench.connect()
    let workspace = try SyncWorkspace(root: bench.root)
    let ble = BLETransport(session: session)
    var events: [RecordingExport.Event] = []
    let request = RecordingExport.Request(sessionId: id, format: .mp3, reportsData: true)
    for await event in workspace.export(request, over: ble, clock: bench.sessionClock) {
      events.append(event)
    }
    let mp3 = bench.exportDirectory + "/\(bench.device.serial)-\(id).mp3"
    #expect(
      events.first == .progress(.init(sessionId: id, bytes: 0, totalBytes: 0)))
    #expect(events.last == .finished(.success(.init(sessionId: id, path: mp3, transport: "ble"))))
    let percents = events.compactMap { if case .progress(let p) = $0 { p.percent } else { nil } }
    #expect(percents == percents.sorted() && Set(percents).count == percents.count)
    #expect(percents.last == 99)
    let bytes = events.reduce(into: 0) { total, event in
      if case .data(_, _, let data) = event { total += data.count }
    }
    #expect(bytes == recording.size)
    #expect(events.filter { $0 == .transferred(sessionId: id) }.count == 1)

    // Another format in another folder: that file, from the stored bytes (no radio).
    let sent = await bench.device.counters.dataBytesSent
    let other = bench.directory + "/other"
    // What a crashed export left there (a decrypted scratch, say) is swept first.
    try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
    let stale = other + "/.partial-\(bench.device.serial)-\(id).wav.plain"
    _ = FileManager.default.createFile(atPath: stale, contents: Data([1, 2, 3]))
    let wav = try await workspace.exportRecording(
      .init(sessionId: id, format: .wav, directory: other), over: ble, clock: bench.sessionClock)
    #expect(wav.path == other + "/\(bench.device.serial)-\(id).wav")
    #expect(!FileManager.default.fileExists(atPath: stale))
    let header = try #require(FileManager.default.contents(atPath: wav.path)).prefix(4)
    #expect(Array(header) == Array("RIFF".utf8))
    #expect(FileManager.default.fileExists(atPath: mp3))
    let again = try await workspace.exportRecording(
      .init(sessionId: id, format: .wav, directory: other), over: ble, clock: bench.sessionClock)
    #expect(again == wav)
    #expect(await bench.device.counters.dataBytesSent == sent)
    await session.close()
  }

  @Test(
    "a folder given relative to the working directory: the same export asked again is served in place"
  )
  func relativeFolderServedInPlace() async throws {
    let bench = try SyncBench(seed: 52)
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(5))
    let session = try await bench.connect()
    let workspace = try SyncWorkspace(root: bench.root)
    let ble = BLETransport(session: session)
    // `bench.directory/relative`, spelled from the working directory.
    let cwd = FileManager.default.currentDirectoryPath.split(separator: "/")
    let relative =
      String(repeating: "../", count: cwd.count) + bench.directory.dropFirst() + "/relative"
    let request = RecordingExport.Request(
      sessionId: recording.sessionId, format: .wav, directory: relative)
    let first = try await workspace.exportRecording(request, over: ble, clock: bench.sessionClock)
    let inode = { (path: String) in
      (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber]) as? Int
    }
    let made = inode(first.path)
    #expect(made != nil)
    let again = try await workspace.exportRecording(request, over: ble, clock: bench.sessionClock)
    #expect(again.path == first.path)
    #expect(inode(again.path) == made, "encoded again instead of served in place")
    await session.close()
  }

  @Test("an app's path: list, export and delete over a session, on the session's own clock")
  func sessionForms() async throws {
    let bench = try SyncBench(seed: 52)
    defer { bench.cleanUp() }
    let first = try await bench.device.addRecording(duration: .seconds(10))
    let second = try await bench.device.addRecording(duration: .seconds(5))
    let session = try await bench.connect()
    let workspace = try SyncWorkspace(root: bench.root)
    let listed = try await workspace.listRecordings(over: session)
    #expect(listed.map(\.recording.sessionId) == [first.sessionId, second.sessionId])
    #expect(listed.map(\.heldBytes) == [0, 0])
    #expect(try await workspace.listRecordings(over: session, after: first.sessionId).count == 1)

    var events: [RecordingExport.Event] = []
    for await event in workspace.export(
      .init(sessionId: first.sessionId, format: .wav), over: session)
    {
      events.append(event)
    }
    let wav = bench.exportDirectory + "/\(bench.device.serial)-\(first.sessionId).wav"
    #expect(
      events.last
        == .finished(.success(.init(sessionId: first.sessionId, path: wav, transport: "ble"))))
    #expect(try await workspace.listRecordings(over: session).first?.heldBytes == Int64(first.size))
    let mp3 = try await workspace.exportRecording(
      .init(sessionId: second.sessionId, format: .mp3), over: session)
    #expect(FileManager.default.fileExists(atPath: mp3.path))

    try await workspace.deleteRecording(first.sessionId, over: session)
    #expect(try await session.listRecordings().map(\.sessionId) == [second.sessionId])
    await session.close()
  }

  /// Issue 12, finding 15: two exports of one recording at once (an app's BLE export and
  /// Wi-Fi export) must not both write its partial file.
  @Test("a second export of a recording in transfer is refused; asked again, it is served")
  func concurrentExportsOfOneRecording() async throws {
    let bench = try SyncBench(seed: 53)
    defer { bench.cleanUp() }
    let recording = try await bench.device.addRecording(duration: .seconds(20))
    let id = recording.sessionId
    let session = try await bench.connect()
    let workspace = try SyncWorkspace(root: bench.root)
    let request = RecordingExport.Request(sessionId: id, format: .wav, reportsData: true)
    var first = workspace.export(
      request, over: BLETransport(session: session), clock: bench.sessionClock
    ).makeAsyncIterator()
    // The first is moving bytes when the second asks.
    while let event = await first.next() {
      if case .data = event { break }
    }
    await #expect(throws: RecordingExportError.alreadyTransferring(sessionId: id)) {
      try await workspace.exportRecording(
        request, over: BLETransport(session: session), clock: bench.sessionClock)
    }
    var outcome: Result<ExportedRecording, RecordingExportError>?
    while let event = await first.next() {
      if case .finished(let result) = event { outcome = result }
    }
    let exported = try #require(try outcome?.get())
    let raw = try FileManager.default.attributesOfItem(atPath: bench.rawPath(id))
    #expect((raw[.size] as? Int) == recording.size)
    let sent = await bench.device.counters.dataBytesSent
    let again = try await workspace.exportRecording(
      request, over: BLETransport(session: session), clock: bench.sessionClock)
    #expect(again.path == exported.path)
    #expect(await bench.device.counters.dataBytesSent == sent, "served from the stored copy")
    await session.close()
  }

  /// Two exports into one folder at once (the facade's BLE and Wi-Fi agents share a
  /// workspace and, usually, an output folder): one export's start must not sweep away the
  /// other's temporary as if a crash had left it.
  @Test("an export starting in a folder leaves another export's temporary there alone")
  func concurrentExportsIntoOneFolder() async throws {
    let bench = try SyncBench(seed: 54)
    defer { bench.cleanUp() }
    let long = try await bench.device.addRecording(duration: .seconds(900))
    let short = try await bench.device.addRecording(duration: .seconds(4))
    let session = try await bench.connect()
    let workspace = try SyncWorkspace(root: bench.root)
    let ble = BLETransport(session: session)
    let folder = bench.directory + "/shared"
    // Both are stored first, so each export below is an encode from the stored copy: the
    // long one takes seconds of CPU, the short one milliseconds, with no transfer that a busy
    // machine could stretch past the long encode.
    for recording in [long, short] {
      _ = try await workspace.exportRecording(
        .init(sessionId: recording.sessionId, format: .opus), over: ble, clock: bench.sessionClock)
    }
    let encoding = Task {
      try await workspace.exportRecording(
        .init(sessionId: long.sessionId, format: .mp3, directory: folder), over: ble,
        clock: bench.sessionClock)
    }
    // (A fail-fast: the test means nothing unless the other export is mid-write.)
    try await waitUntil("the long export's temporary") {
      ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).contains {
        $0.hasPrefix(".partial-")
      }
    }
    // While it encodes, another export into the same folder starts a sync there.
    let other = try await workspace.exportRecording(
      .init(sessionId: short.sessionId, format: .mp3, directory: folder), over: ble,
      clock: bench.sessionClock)
    let first = try await encoding.value
    #expect(FileManager.default.fileExists(atPath: first.path))
    // Still encoding when the other one was done, or the overlap proved nothing.
    #expect(
      (try FileManager.default.attributesOfItem(atPath: first.path)[.modificationDate] as? Date)
        ?? .distantPast
        >= (try FileManager.default.attributesOfItem(atPath: other.path)[.modificationDate]
          as? Date) ?? .distantFuture)
    #expect(FileManager.default.fileExists(atPath: other.path))
    let left = try FileManager.default.contentsOfDirectory(atPath: folder)
    #expect(!left.contains { $0.hasPrefix(".partial-") }, "\(left)")
    await session.close()
  }

  @Test("a recording the device does not have is notOnDevice")
  func missing() async throws {
    let bench = try SyncBench(seed: 52)
    defer { bench.cleanUp() }
    _ = try await bench.device.addRecording(duration: .seconds(3))
    let session = try await bench.connect()
    let workspace = try SyncWorkspace(root: bench.root)
    await #expect(throws: RecordingExportError.notOnDevice(sessionId: 7)) {
      try await workspace.exportRecording(
        .init(sessionId: 7, format: .mp3), over: BLETransport(session: session),
        clock: bench.sessionClock)
    }
    await session.close()
  }
}
