import Foundation
import RecorderProtocol

/// A recorder's USB volume, read (PROTOCOL.md §5, USB variant): `/MODEL.txt` and
/// `/{NOTES,CALLS}/<YYYYMMDD>/<unix>.{WAV,ASR}` pairs.
///
/// Reading is defensive (DESIGN.md invariant 6): names that are not the device's are passed
/// over (they never become paths of ours), a file of a pair that fails a check makes that
/// pair damaged, never the volume. Only ``remove(_:)`` writes.
public struct USBVolume: Sendable {
  /// The two top folders and the scene each one's recordings carry (REC_START's scene:
  /// 1 normal, 7 call [sdk]).
  public static let folders: [(name: String, scene: UInt8)] = [("NOTES", 1), ("CALLS", 7)]
  /// Bytes of one device Opus frame in an `.ASR` file (mono) [device].
  public static let asrFrameBytes = Int64(ProtocolDefaults.opusPacketBytes)

  /// One WAV+ASR pair.
  public struct Pair: Sendable, Equatable {
    /// The recording's id: the files' unix-seconds name.
    public var sessionId: SessionID
    /// 1 for NOTES, 7 for CALLS.
    public var scene: UInt8
    /// `<volume>/<NOTES|CALLS>/<YYYYMMDD>/<id>.WAV`.
    public var wavPath: String
    /// `<volume>/<NOTES|CALLS>/<YYYYMMDD>/<id>.ASR`.
    public var asrPath: String
    /// nil: the `.WAV` is gone, the `.ASR` left (see ``pairs()``).
    public var wavSize: Int64?
    /// Bytes of the ASR: the recording's size as the sync lists it.
    public var asrSize: Int64
  }

  /// What a checked pair holds.
  public struct Checked: Sendable, Equatable {
    /// The pair checked.
    public var pair: Pair
    /// Its WAV's header, every field checked.
    public var header: DeviceWAVHeader
    /// The ASR's length: 20 ms per frame.
    public var asrDurationMs: Int { Int(pair.asrSize / USBVolume.asrFrameBytes) * 20 }
  }

  /// The volume's root.
  public let root: String
  /// Its `/MODEL.txt`.
  public let model: DeviceModelFile

  /// Opens the volume at `root` and reads its `/MODEL.txt`.
  /// - Throws: ``USBVolumeError/modelFileUnreadable(path:)`` or
  ///   ``USBVolumeError/malformedModelFile(reason:)``.
  public init(root: String) throws(USBVolumeError) {
    self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    let path = self.root + "/" + DeviceModelFile.fileName
    guard let size = Self.size(of: path), size <= Int64(DeviceModelFile.maximumLength) else {
      throw .modelFileUnreadable(path: path)
    }
    let bytes = try Self.read(path, offset: 0, count: Int(size))
    model = try DeviceModelFile(bytes)
  }

  /// Every pair, oldest first, and every `.ASR` whose `.WAV` is gone (``Pair/wavSize`` nil):
  /// ``remove(_:)`` unlinks the WAV first, so a removal cut short leaves the ASR, which the
  /// sync then recognises by its bytes and removes again; the device itself writes both at
  /// once, so a lone ASR it wrote is damage (``check(_:)`` says so). A lone `.WAV` and
  /// names that are not the device's are left alone.
  public func pairs() throws(USBVolumeError) -> [Pair] {
    var pairs: [Pair] = []
    for folder in Self.folders {
      let top = root + "/" + folder.name
      guard let days = try? FileManager.default.contentsOfDirectory(atPath: top) else { continue }
      for day in days.sorted() where day.count == 8 && day.allSatisfy({ $0.isASCII && $0.isNumber })
      {
        let directory = top + "/" + day
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
          continue
        }
        let set = Set(names)
        for name in names.sorted() {
          guard let id = Self.sessionId(name, extension: "ASR") else { continue }
          let stem = String(name.dropLast(4))
          let wav = directory + "/" + stem + ".WAV"
          let asr = directory + "/" + name
          guard let asrSize = Self.size(of: asr) else { continue }
          let wavSize = set.contains(stem + ".WAV") ? Self.size(of: wav) : nil
          pairs.append(
            Pair(
              sessionId: id, scene: folder.scene, wavPath: wav, asrPath: asr, wavSize: wavSize,
              asrSize: asrSize))
        }
      }
    }
    return pairs.sorted { $0.sessionId < $1.sessionId }
  }

  /// Checks `pair`: its WAV header (every field), its ASR (whole 80-byte frames, each with
  /// the device's TOC byte `0xB8`) and that both last as long, within one 20 ms frame.
  /// Reads the whole ASR, in 64 KiB pieces.
  public static func check(_ pair: Pair) throws(USBVolumeError) -> Checked {
    guard let wavSize = pair.wavSize else { throw .wavMissing(path: pair.wavPath) }
    let header = try DeviceWAVHeader(
      read(pair.wavPath, offset: 0, count: DeviceWAVHeader.length), fileSize: wavSize,
      path: pair.wavPath)
    try checkFrames(pair.asrPath, size: pair.asrSize)
    let checked = Checked(pair: pair, header: header)
    guard abs(header.durationMs - checked.asrDurationMs) <= 20 else {
      throw .durationsDisagree(wavMs: header.durationMs, asrMs: checked.asrDurationMs)
    }
    return checked
  }

  /// Unlinks both files of `pair`, the WAV first, then fsyncs their folder, so the removal
  /// survives a power cut. A file already gone counts as removed.
  public static func remove(_ pair: Pair) throws(USBVolumeError) {
    for path in [pair.wavPath, pair.asrPath] where unlink(path) != 0 && errno != ENOENT {
      throw .removeFailed(path: path, errno: errno)
    }
    let directory = String(
      pair.wavPath[..<(pair.wavPath.lastIndex(of: "/") ?? pair.wavPath.endIndex)])
    let descriptor = open(directory, O_RDONLY | O_DIRECTORY)
    guard descriptor >= 0 else { throw .removeFailed(path: directory, errno: errno) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw .removeFailed(path: directory, errno: errno) }
  }

  /// Bytes `[offset, offset + count)` of `path` (fewer at its end).
  public static func read(_ path: String, offset: Int64, count: Int) throws(USBVolumeError)
    -> [UInt8]
  {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw .unreadable(path: path, errno: errno) }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let got = buffer.withUnsafeMutableBytes { raw in
        pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
      }
      if got < 0, errno == EINTR { continue }
      guard got >= 0 else { throw .unreadable(path: path, errno: errno) }
      if got == 0 { break }
      filled += got
    }
    return Array(buffer[0..<filled])
  }

  /// The size of the regular file at `path`.
  static func size(of path: String) -> Int64? {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int64(info.st_size)
  }

  /// The id of `<unix>.<EXT>`: 1 to 10 digits, a value a u32 holds.
  static func sessionId(_ name: String, extension ext: String) -> SessionID? {
    guard name.hasSuffix("." + ext) else { return nil }
    let stem = name.dropLast(ext.count + 1)
    guard (1...10).contains(stem.count), stem.allSatisfy({ $0.isASCII && $0.isNumber }),
      let value = UInt32(stem), value > 0
    else { return nil }
    return SessionID(value)
  }

  private static func checkFrames(_ path: String, size: Int64) throws(USBVolumeError) {
    guard size > 0 else { throw .malformedASR(path: path, reason: "empty") }
    guard size % asrFrameBytes == 0 else {
      throw .malformedASR(path: path, reason: "\(size) bytes is not whole 80-byte frames")
    }
    let piece = Int(asrFrameBytes) * 800
    var offset: Int64 = 0
    while offset < size {
      let bytes = try read(path, offset: offset, count: piece)
      guard !bytes.isEmpty else {
        throw .malformedASR(path: path, reason: "ends at \(offset) of \(size) bytes")
      }
      for start in stride(from: 0, to: bytes.count, by: Int(asrFrameBytes))
      where bytes[start] != ProtocolDefaults.opusTOCByte {
        throw .malformedASR(
          path: path, reason: "the frame at \(offset + Int64(start)) does not start with 0xB8")
      }
      offset += Int64(bytes.count)
    }
  }
}
