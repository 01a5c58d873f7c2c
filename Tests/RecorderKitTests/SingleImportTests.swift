import RecorderKit
import Testing

/// The README's main flows need `import RecorderKit` alone: this file imports nothing else,
/// so a name the flows use that RecorderKit does not bring fails to compile here.
struct SingleImportTests {
  @Test("the README's flows name only what `import RecorderKit` brings")
  func readmeFlows() {
    // Compiled, not run: the flows as the README writes them.
    let flows: @Sendable (any Central, DeviceToken, String, String, String) async throws -> Void = {
      central, token, root, serial, raw in
      let recorders = Recorders(
        radio: .shared(central), configuration: .init(session: .init(token: token)))
      let connection = try await recorders.connect(serial: serial)
      for recording in try await connection.session.listRecordings() {
        _ = (recording.sessionId, recording.durationMs)
      }
      await connection.close()
      let journal = try Journal(path: StorageLayout(root: root).journal)
      let engine = SyncEngine(journal: journal, root: root)
      for try await event in recorders.sync(serial: serial, into: engine) { _ = event }
      for try await event in recorders.watch(serial: serial, into: engine) { _ = event }
      _ = try AudioExporter.export(
        from: raw, recordedChannels: 1, to: "talk.mp3", options: ExportOptions(format: .mp3))
      let clock: AnyClock = .continuous
      _ = (clock.elapsed, SessionID(1), CentralState.poweredOn)
    }
    _ = flows
    #expect(ExportFormat.allCases.contains(.mp3))
    // Where a recording stands (`SyncWorkspace.checkpoints(serial:)`): one stage type.
    #expect(RecordingStage.stored < .deletedFromDevice)
  }
}
