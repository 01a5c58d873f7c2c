import Foundation
import RecorderAudio
import RecorderConcurrency
import RecorderProtocol

/// A recorder's mounted USB volume as a ``RecordingTransport``: the sync engine moves its
/// recordings through the same pipeline as BLE and Wi-Fi (durable, verified, exported,
/// journaled, exactly once, deleted only when safe).
///
/// - Each WAV+ASR pair is one ``Recording``: its id the files' unix-seconds name, its size
///   the ASR's, its scene 1 (NOTES) or 7 (CALLS), one channel (the ASR is mono).
/// - The "device copy" is the `.ASR` (the same 80-byte Opus frames BLE moves), streamed in
///   pieces, so the engine's resume, framing checks and ``DeviceCopyProof`` re-reads work
///   on the file. There is no device CRC (``tailCarriesDeviceCRC`` is false).
/// - The `.WAV` is a companion (``USBWAVCopy``): copied beside the raw copy, with the serial
///   zeroed when asked; with ``Options/wavExport`` the sync's export is made from it too
///   (the WAV itself for stereo `wav`, else its samples encoded), so the engine makes none
///   from the ASR.
/// - A pair whose WAV header, ASR frames or durations fail ``USBVolume/check(_:)`` is
///   damaged: ``damage(of:)`` gives it up for the run, the rest sync.
/// - ``delete(sessionId:)`` unlinks both files, then fsyncs their folder; the engine calls it
///   only under its delete rule, never with `--keep-on-device`.
package struct USBTransport: RecordingTransport {
  /// How the WAVs leave the volume.
  package struct Options: Sendable {
    /// Zero `SN:<serial>` in every WAV copied off the volume.
    package var scrubSerial = false
    /// Make the sync's export from the WAV in this format and channel count (the
    /// `--usb-source wav` choice), not from the ASR. Opus is refused (``USBWAVCopy``): it
    /// comes from the device's own frames.
    package var wavExport: ExportOptions?
    package init() {}
  }

  /// Bytes per streamed piece: 50 frames, one second of audio.
  static let pieceBytes = 4_000

  package let volume: USBVolume
  package let options: Options
  /// Each pair by id, with why it is damaged (nil: it passed every check).
  private let pairs: [SessionID: (pair: USBVolume.Pair, damage: String?)]

  package var name: String { "usb" }
  package var serial: String { get async { volume.model.serial } }
  package var audioChannels: Int { get async { 1 } }
  package var firmware: String? { get async { volume.model.firmware } }
  package var tailCarriesDeviceCRC: Bool { false }

  /// Opens the volume at `root` and checks every pair on it.
  /// - Throws: what ``USBVolume/init(root:)`` and ``USBVolume/pairs()`` throw.
  package init(root: String, options: Options = Options()) throws(USBVolumeError) {
    volume = try USBVolume(root: root)
    self.options = options
    var pairs: [SessionID: (USBVolume.Pair, String?)] = [:]
    for pair in try volume.pairs() {
      do throws(USBVolumeError) {
        _ = try USBVolume.check(pair)
        pairs[pair.sessionId] = (pair, nil)
      } catch {
        pairs[pair.sessionId] = (pair, "\(error)")
      }
    }
    self.pairs = pairs
  }

  package func listRecordings() async throws(DeviceError) -> [Recording] {
    pairs.values.map(\.pair).sorted { $0.sessionId < $1.sessionId }.map { pair in
      Recording(
        sessionId: pair.sessionId, size: UInt32(clamping: pair.asrSize), scene: pair.scene,
        attribute: nil, channels: 1)
    }
  }

  package func recordingInProgress() async throws(DeviceError) -> SessionID? { nil }

  package func damage(of sessionId: SessionID) async -> String? { pairs[sessionId]?.damage }

  package var companions: [any RecordingCompanion] {
    var list: [any RecordingCompanion] = [
      USBWAVCopy(transport: self, destination: .besideRaw, scrub: options.scrubSerial)
    ]
    if let export = options.wavExport {
      list.append(
        USBWAVCopy(transport: self, destination: .export(export), scrub: options.scrubSerial))
    }
    return list
  }

  /// The pair of `sessionId`.
  func pair(_ sessionId: SessionID) throws(USBVolumeError) -> USBVolume.Pair {
    guard let pair = pairs[sessionId]?.pair else { throw .noSuchRecording("\(sessionId)") }
    return pair
  }

  package func stream(
    sessionId: SessionID, start: UInt32, end: UInt32,
    receive: @Sendable (BulkFrame) async -> StreamDecision
  ) async throws(DeviceError) -> SyncTail? {
    let path: String
    do { path = try pair(sessionId).asrPath } catch { throw Self.deviceError(error) }
    var offset = Int64(start)
    while offset < Int64(end) {
      let count = Int(min(Int64(Self.pieceBytes), Int64(end) - offset))
      let bytes: [UInt8]
      do { bytes = try USBVolume.read(path, offset: offset, count: count) } catch {
        throw Self.deviceError(error)
      }
      // A file shorter than listed: the stream ends there (the engine re-issues, then gives
      // the recording up).
      guard !bytes.isEmpty else { return nil }
      let frame = BulkFrame(sessionId: sessionId, offset: UInt32(offset), data: bytes)
      if await receive(frame) == .stop { return nil }
      offset += Int64(bytes.count)
    }
    return SyncTail(sessionId: sessionId, crc: 0)
  }

  package func delete(sessionId: SessionID) async throws(DeviceError) {
    do { try USBVolume.remove(try pair(sessionId)) } catch { throw Self.deviceError(error) }
  }

  /// A volume failure as the engine's transport error: the run stops, as on a lost link.
  static func deviceError(_ error: USBVolumeError) -> DeviceError {
    .malformedReply(operation: "USB volume", reason: "\(error)")
  }
}

/// A USB pair's `.WAV` delivered off the volume: beside the raw copy
/// (`<root>/<serial>/<id>.wav`) or as the sync's export. A copy (beside the raw one, or a
/// stereo `wav` export) is the device's bytes, or with the bytes of `SN:<serial>` in its
/// `pad ` chunk zeroed (found by parsing the header, never at a fixed offset; the samples
/// and every other byte unchanged). Another export is the WAV's samples encoded
/// (``PCMExporter``): it carries no pad chunk, so no serial.
struct USBWAVCopy: RecordingCompanion {
  enum Destination: Sendable {
    case besideRaw
    case export(ExportOptions)
  }
  /// The journal's key of the copy beside the raw file.
  static let rawKey = "usb-wav"

  let transport: USBTransport
  let destination: Destination
  let scrub: Bool

  var journalKey: String {
    switch destination {
    case .besideRaw: Self.rawKey
    case .export(let options): options.format.rawValue
    }
  }

  func destination(of place: CompanionPlace) -> String {
    switch destination {
    case .besideRaw:
      return StorageLayout.besideRaw(place.raw, fileExtension: "wav")
    case .export(let options):
      return place.exports + "/" + place.exportStem + "." + options.format.fileExtension
    }
  }

  func write(sessionId: SessionID, to temporaryPath: String) throws(SyncError) {
    let pair: USBVolume.Pair
    do { pair = try transport.pair(sessionId) } catch {
      throw .export(sessionId: sessionId, reason: "\(error)")
    }
    if case .export(let options) = destination,
      options.format != .wav || (options.channels ?? 2) != 2
    {
      return try USBWAVCopy.encode(pair, to: temporaryPath, options: options, sessionId: sessionId)
    }
    do throws(USBVolumeError) {
      try USBWAVCopy.copy(pair, to: temporaryPath, scrub: scrub)
    } catch .writeFailed(let path, let code) {
      throw .storage(.from(errno: code, path: path))
    } catch {
      throw .export(sessionId: sessionId, reason: "\(error)")
    }
  }

  /// `pair`'s samples encoded to `path` as `options` say.
  static func encode(
    _ pair: USBVolume.Pair, to path: String, options: ExportOptions, sessionId: SessionID
  ) throws(SyncError) {
    let header: DeviceWAVHeader
    do { header = try USBVolume.check(pair).header } catch {
      throw .export(sessionId: sessionId, reason: "\(error)")
    }
    do {
      _ = try PCMExporter.export(
        from: pair.wavPath, offset: Int64(DeviceWAVHeader.length), length: header.dataBytes,
        channels: DeviceWAVHeader.channels, to: path, options: options)
    } catch {
      if case .io(let failed, _, let code, _) = error, failed == path {
        throw .storage(.from(errno: code, path: path))
      }
      if case .cancelled = error { throw .cancelled }
      throw .export(sessionId: sessionId, reason: "\(error)")
    }
  }

  /// Copies `pair`'s WAV to `path` (truncated first), its header checked again and scrubbed
  /// when `scrub`.
  static func copy(_ pair: USBVolume.Pair, to path: String, scrub: Bool) throws(USBVolumeError) {
    guard let wavSize = pair.wavSize else { throw .wavMissing(path: pair.wavPath) }
    var header = try USBVolume.read(pair.wavPath, offset: 0, count: DeviceWAVHeader.length)
    let parsed = try DeviceWAVHeader(header, fileSize: wavSize, path: pair.wavPath)
    if scrub { header = parsed.scrubbed(header) }
    let output = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard output >= 0 else { throw .writeFailed(path: path, errno: errno) }
    defer { close(output) }
    try writeAll(output, header, path: path)
    var offset = Int64(DeviceWAVHeader.length)
    while offset < wavSize {
      let bytes = try USBVolume.read(
        pair.wavPath, offset: offset, count: Int(min(1 << 16, wavSize - offset)))
      guard !bytes.isEmpty else { throw .unreadable(path: pair.wavPath, errno: EIO) }
      try writeAll(output, bytes, path: path)
      offset += Int64(bytes.count)
    }
  }

  private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String)
    throws(USBVolumeError)
  {
    var written = 0
    while written < bytes.count {
      let result = bytes.withUnsafeBytes { raw in
        Foundation.write(descriptor, raw.baseAddress! + written, bytes.count - written)
      }
      if result < 0, errno == EINTR { continue }
      guard result > 0 else { throw .writeFailed(path: path, errno: result < 0 ? errno : ENOSPC) }
      written += result
    }
  }
}
