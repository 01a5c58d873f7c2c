import RecorderProtocol

extension Recorders {
  /// The door for recorders mounted as USB volumes ("Access via USB"): every recording of
  /// each volume at `roots`, volume after volume, through the same pipeline as a radio sync
  /// (``SyncEngine``), as one run; the pipeline's events go to `report` as
  /// ``SyncRunEvent/pipeline(_:)``. Nothing is retried: a volume does not drop as a link
  /// does, so a volume that cannot be read or a run that stops ends it.
  /// - Throws: `USBVolumeError` for a volume that cannot be read, ``SyncError`` for a run
  ///   that stopped (what the earlier volumes did stays in the journal).
  package static func syncVolumes(
    _ roots: [String], options: USBTransport.Options, into engine: SyncEngine,
    report: @escaping @Sendable (SyncRunEvent) -> Void = { _ in }
  ) async throws -> SyncReport {
    let tap = engine.eventSink.addTap { report(.pipeline($0)) }
    defer { engine.eventSink.removeTap(tap) }
    await engine.beginRun()
    var total = SyncReport()
    for root in roots {
      let transport = try USBTransport(root: root, options: options)
      total.absorb(try await engine.sync(using: transport))
    }
    return total
  }
}
