import RecorderAudio
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderStore

/// A conversion the journal owes (``ExportPolicy/deferConversion``): the recording is stored
/// and verified, its export not made yet.
public struct PendingConversion: Sendable, Hashable {
  public var serial: String
  public var sessionId: SessionID
  public var format: ExportFormat
  /// Output channels (nil: as recorded).
  public var channels: Int?
  /// Where the exported file will be once the conversion ran; nothing is there before.
  public var path: String

  package init(
    serial: String, sessionId: SessionID, format: ExportFormat, channels: Int?, path: String
  ) {
    self.serial = serial
    self.sessionId = sessionId
    self.format = format
    self.channels = channels
    self.path = path
  }
}

/// What one ``SyncWorkspace/convertPending(shouldStop:converted:)`` did.
public struct ConversionReport: Sendable, Equatable {
  /// A conversion that failed; it stays owed.
  public struct Failure: Sendable, Equatable {
    public var conversion: PendingConversion
    public var error: SyncError
  }
  /// Conversions that ran the encoder in this call; each file is now at its path.
  public var converted: [PendingConversion] = []
  /// Conversions whose export an earlier call had already made and journaled (a kill before
  /// its pending entry was cleared): the file was in place, nothing was encoded again.
  public var alreadyMade: [PendingConversion] = []
  /// Conversions that failed (the raw copy changed, the disk is full); they stay owed.
  public var failed: [Failure] = []
  /// Conversions still owed when the call returned.
  public var remaining: [PendingConversion] = []
  /// Conversions another converter (another process, or another call in this one) was
  /// making when this call reached them: left to it, not encoded twice. Each stays in
  /// `remaining` until its holder journals it.
  public var heldElsewhere: [PendingConversion] = []
  /// True when `shouldStop` or the task's cancellation ended the call before the list did.
  public var stopped = false

  package init() {}
}

extension SyncWorkspace {
  /// The conversions the journal owes, oldest first, each with the path its file will have.
  public func pendingConversions() throws(SyncError) -> [PendingConversion] {
    let rows: [PendingConversionRow]
    do {
      rows = try journal.read { try $0.pendingConversions() }
    } catch {
      throw .journal("\(error)")
    }
    return rows.compactMap(conversion)
  }

  /// Makes every conversion the journal owes, oldest first: each from the stored raw copy
  /// (its size and SHA-256 checked against the journal first), through a temporary name,
  /// fsync, atomic rename and a directory fsync, then one journal transaction that records
  /// the export and clears the entry. A kill at any point loses nothing: the entry stays
  /// owed until that transaction commits, and a later call finds an export the journal
  /// already holds in place and only clears the entry. A conversion whose rename reached the
  /// disk but whose transaction did not is made again under the same name (one file).
  ///
  /// Cancelling the calling task (the processing task's expiration handler) stops the
  /// conversion running within about a second of audio, removes its partial output, and
  /// leaves it and the rest owed. `shouldStop` is asked before each conversion.
  /// - Parameters:
  ///   - shouldStop: asked before each conversion; true leaves the rest owed. Must not block.
  ///   - converted: told of each conversion whose file is in place (made now or earlier).
  /// - Returns: what was converted, what failed and what is still owed.
  public func convertPending(
    shouldStop: @escaping @Sendable () -> Bool = { false },
    converted: @Sendable (PendingConversion) -> Void = { _ in }
  ) async -> ConversionReport {
    var report = ConversionReport()
    let owed: [PendingConversion]
    do {
      owed = try pendingConversions()
    } catch {
      report.stopped = true
      return report
    }
    for conversion in owed {
      if Task.isCancelled || shouldStop() {
        report.stopped = true
        break
      }
      await Task.yield()
      switch convert(conversion) {
      case .made:
        report.converted.append(conversion)
        converted(conversion)
      case .inPlace:
        report.alreadyMade.append(conversion)
        converted(conversion)
      case .dropped: break
      case .heldElsewhere: report.heldElsewhere.append(conversion)
      case .failed(let error):
        // A conversion cancelled mid-way (the task's expiry) is not a failure: it stays owed.
        if Task.isCancelled {
          report.stopped = true
        } else {
          report.failed.append(ConversionReport.Failure(conversion: conversion, error: error))
        }
      }
      if report.stopped { break }
    }
    report.remaining = (try? pendingConversions()) ?? []
    return report
  }

  private enum ConversionOutcome {
    case made, inPlace
    /// Nothing stored to convert any more (the recording started over): the entry went.
    case dropped
    /// Another converter holds its claim (``ExportTemporary/claim(_:in:)``): left to it.
    case heldElsewhere
    case failed(SyncError)
  }

  /// One owed conversion, under its claim (a second converter skips it); the entry is
  /// cleared in the export's own transaction.
  private func convert(_ conversion: PendingConversion) -> ConversionOutcome {
    do throws(SyncError) {
      let record: RecordingRecord?
      do {
        record = try journal.read {
          try $0.recording(serial: conversion.serial, sessionId: conversion.sessionId.rawValue)
        }
      } catch {
        throw .journal("\(error)")
      }
      // The recording started over (it changed on the device): nothing stored to convert.
      guard let record, record.stage >= .stored, record.rawPath != nil else {
        try forget(conversion)
        return .dropped
      }
      // In the root, which exists (the export folder may not yet): the conversion's
      // name is unique there, one owed entry per recording and format.
      let claim: ExportTemporary?
      do {
        claim = try ExportTemporary.claim(fileName(of: conversion.path), in: root)
      } catch {
        throw .storage(error)
      }
      guard let claim else { return .heldElsewhere }
      defer { claim.release() }
      let writer = ExportWriter(
        journal: journal, fileSystem: fileSystem, layout: layout, userKey: userKey)
      guard writer.holdsRawCopy(record) else {
        throw .export(
          sessionId: conversion.sessionId,
          reason: "the raw copy differs from the journal's size and SHA-256; kept owed")
      }
      let directory = parentDirectory(of: conversion.path)
      let outcome = try writer.ensure(
        record, format: conversion.format, channels: conversion.channels, directory: directory)
      if !outcome.encoded {
        // Made by an earlier call whose entry a kill kept: clear it now.
        try forget(conversion)
        return .inPlace
      }
      return .made
    } catch {
      return .failed(error)
    }
  }

  private func forget(_ conversion: PendingConversion) throws(SyncError) {
    do {
      _ = try journal.write { tx in
        try tx.removePendingConversion(
          serial: conversion.serial, sessionId: conversion.sessionId.rawValue,
          format: conversion.format.rawValue)
      }
    } catch {
      throw .journal("\(error)")
    }
  }

  private func conversion(_ row: PendingConversionRow) -> PendingConversion? {
    guard let format = ExportFormat(rawValue: row.format) else { return nil }
    let directory = layout.resolved(row.directory)
    // A later recording under the same session id has names of its own.
    let generation =
      (try? journal.read { try $0.recording(serial: row.serial, sessionId: row.sessionId) })??
      .generation ?? 0
    let name = StorageLayout.exportName(
      serial: row.serial, sessionId: row.sessionId, generation: generation,
      fileExtension: format.fileExtension)
    return PendingConversion(
      serial: row.serial, sessionId: SessionID(row.sessionId), format: format,
      channels: row.channels, path: directory + "/" + name)
  }

  private func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
  }

  private func fileName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
  }
}
