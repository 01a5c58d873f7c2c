import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport

/// Issue 18, "battery cost": CPU seconds per hour of audio for the whole BLE pipeline, by
/// stage, beside ffmpeg's CPU for transcoding the same hour (Ogg Opus → mp3 with the same
/// LAME settings, as `RecorderBench audio` compares), and fsyncs per hour of audio.
///
/// One 60-minute mono recording on the in-process emulator:
/// - whole: one BLE sync with mp3 export, CPU of this process (the emulated device's own
///   work included: the phone's share is smaller).
/// - by stage, each on the same hour of bytes, measured alone:
///   receive: a SYNC_START of the whole recording whose frames are dropped (link model,
///   device side, frame decoding, the session's demultiplexing);
///   framing checks: CRC-16 and the Opus TOC check of every 255-byte frame (what the
///   engine's receiver checks);
///   fsync: the engine's fsyncs during the whole sync (counted, CPU of the calling thread);
///   SHA-256: of the stored file; journal: the sync's journal writes for this file,
///   replayed; mp3 export: of the stored file.
enum BatteryBenchmarks {
  static let minutes = 60.0

  static func run() throws {
    say("== battery: one \(Int(minutes))-minute mono recording, CPU seconds per hour of audio")
    let rig = try blocking { try await EmulatorRig(recordings: [.seconds(minutes * 60)]) }
    defer { rig.cleanUp() }
    rig.manual.startAutoAdvance()
    defer { rig.manual.stopAutoAdvance() }
    let perHour = 60.0 / minutes

    let receive = try blocking { try await receiveOnly(rig) }
    let whole = try blocking { try await wholeSync(rig) }
    let fsyncs = rig.fileSystem.counts.withLock { $0 }
    let raw = whole.rawPath
    let bytes = Array(FileManager.default.contents(atPath: raw) ?? Data())
    let framing = framingChecks(bytes)
    let sha = try threadCPU { _ = try FileDigest.sha256Hex(ofFile: raw) }
    let journal = try journalWrites(size: Int64(bytes.count))
    let mp3 = rig.scratch.path + "/again.mp3"
    let export = try threadCPU {
      _ = try AudioExporter.export(
        from: raw, recordedChannels: 1, to: mp3, options: ExportOptions(format: .mp3))
    }
    let ffmpeg = try ffmpegTranscode(raw, folder: rig.scratch.path)

    let stages: [(String, Double)] = [
      ("receive (emulated device included)", receive), ("framing checks", framing),
      ("fsync", fsyncs.cpuSeconds), ("SHA-256", sha), ("journal", journal.cpu),
      ("mp3 export", export),
    ]
    for (name, cpu) in stages {
      say(
        "  \(name.padding(toLength: 36, withPad: " ", startingAt: 0)) \(seconds(cpu * perHour)) s")
    }
    let sum = stages.reduce(0) { $0 + $1.1 }
    say("  sum of stages                        \(seconds(sum * perHour)) s")
    say(
      "  whole sync + export, one run         \(seconds(whole.cpu * perHour)) s (real \(seconds(whole.wall)) s)"
    )
    say("  ffmpeg opus → mp3, same hour         \(seconds(ffmpeg * perHour)) s")
    say(
      "ratio BLE sync + mp3 export ÷ ffmpeg: sum of stages \(ratio(sum, ffmpeg)), "
        + "whole run \(ratio(whole.cpu, ffmpeg)) (target ≤ 0.6)")
    let fsyncCount = fsyncs.fileSyncs + fsyncs.directorySyncs
    say(
      "fsyncs per hour of audio: \(Int((Double(fsyncCount + journal.commits) * perHour).rounded())) "
        + "(files \(fsyncs.fileSyncs), directories \(fsyncs.directorySyncs), "
        + "journal commits \(journal.commits), one WAL fsync each; writes \(fsyncs.writes))")
  }

  /// CPU of streaming the whole recording with every frame dropped.
  static func receiveOnly(_ rig: EmulatorRig) async throws -> Double {
    let session = try await rig.connect()
    let recordings = try await session.listRecordings()
    guard let recording = recordings.first else { throw BenchError("no recording") }
    let frames = Locked(0)
    let before = CPUTime.process()
    let tail = try await session.streamRange(
      sessionId: recording.sessionId, start: 0, end: recording.size
    ) { _ in
      frames.withLock { $0 += 1 }
      return .continue
    }
    let cpu = CPUTime.process() - before
    await session.close()
    guard tail != nil else { throw BenchError("the stream ended without its tail") }
    return cpu
  }

  /// The real thing: one BLE sync with mp3 export, deleting the device copy.
  static func wholeSync(_ rig: EmulatorRig) async throws -> (
    cpu: Double, wall: Double, rawPath: String
  ) {
    let engine = rig.makeEngine(format: .mp3)
    let draining = Task { for await _ in engine.events {} }
    defer { draining.cancel() }
    let session = try await rig.connect()
    let before = CPUTime.process()
    let started = ContinuousClock.now
    let report = try await engine.sync(using: BLETransport(session: session))
    let cpu = CPUTime.process() - before
    let wall = (ContinuousClock.now - started).seconds
    await session.close()
    guard let file = report.files.first, file.deletedFromDevice,
      let record = try rig.journal.read({
        try $0.recording(serial: rig.device.serial, sessionId: file.sessionId.rawValue)
      }),
      let stored = record.rawPath
    else { throw BenchError("the hour did not sync") }
    // The journal keeps paths under the root relative to it.
    return (cpu, wall, stored.hasPrefix("/") ? stored : rig.root + "/" + stored)
  }

  /// CRC-16 and the TOC check of every 255-byte frame, as the engine's receiver does them.
  static func framingChecks(_ bytes: [UInt8]) -> Double {
    let start = CPUTime.thread()
    var crc = CRC16()
    var offset = 0
    var good = true
    while offset < bytes.count {
      let frame = Array(bytes[offset..<min(bytes.count, offset + BulkFrame.maximumDataLength)])
      var position = (80 - offset % 80) % 80
      while position < frame.count {
        good = good && frame[position] == 0xB8
        position += 80
      }
      crc.update(frame)
      offset += frame.count
    }
    let cpu = CPUTime.thread() - start
    if !good { say("  (framing check failed at CRC \(crc.value))") }
    return cpu
  }

  static func journalWrites(size: Int64) throws -> (cpu: Double, commits: Int) {
    let scratch = try Scratch("battery-journal")
    defer { scratch.cleanUp() }
    let journal = try Journal(path: scratch.path + "/journal.sqlite")
    var commits = 0
    let cpu = try threadCPU {
      commits = try JournalReplay.syncOneFile(
        journal, serial: "HOUR", sessionId: 1_700_000_000, size: size, exported: true)
    }
    return (cpu, commits)
  }

  /// ffmpeg's CPU (its own process) for the hour as Ogg Opus → mp3, the audio section's settings.
  static func ffmpegTranscode(_ raw: String, folder: String) throws -> Double {
    let ogg = folder + "/hour.opus"
    _ = try AudioExporter.export(
      from: raw, recordedChannels: 1, to: ogg, options: ExportOptions(format: .opus))
    let run = try AudioBenchmarks.timeTool(
      "ffmpeg",
      [
        "-v", "error", "-y", "-c:a", "libopus", "-i", ogg, "-c:a", "libmp3lame", "-b:a", "40k",
        "-compression_level", "5", "-ac", "1", "-ar", "16000", folder + "/ff.mp3",
      ])
    return run.cpuSeconds
  }

  static func threadCPU(_ body: () throws -> Void) rethrows -> Double {
    let start = CPUTime.thread()
    try body()
    return CPUTime.thread() - start
  }

  static func seconds(_ value: Double) -> String { String(format: "%7.2f", value) }
  static func ratio(_ ours: Double, _ theirs: Double) -> String {
    String(format: "%.2f", ours / theirs)
  }
}
