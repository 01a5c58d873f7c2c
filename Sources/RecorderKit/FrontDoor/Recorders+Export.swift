extension Recorders {
  /// Exports one recording of the recorder behind `connection` into `workspace`
  /// (``SyncWorkspace/export(_:over:stopWhen:)``): the transfer resumes from what the
  /// workspace already holds, is verified and converted; the device copy stays. The events
  /// end with ``RecordingExport/Event/finished(_:)``; a transfer stops at its next frame once
  /// `stopWhen` answers true (the system's background time ran out, say), its bytes kept.
  public func export(
    _ request: RecordingExport.Request, from connection: RecorderConnection,
    into workspace: SyncWorkspace, stopWhen: @escaping @Sendable () -> Bool = { false }
  ) -> AsyncStream<RecordingExport.Event> {
    workspace.export(
      request, over: BLETransport(session: connection.session), clock: clock, stopWhen: stopWhen)
  }
}
