import Foundation
import RecorderProtocol

/// Mounted file systems from `/proc/self/mountinfo` (proc(5)), and which of them are a
/// recorder's USB volume.
///
/// Each line: mount id, parent id, `major:minor`, root, mount point, mount options, zero or
/// more optional fields, `-`, file system type, source, super options. Paths escape space,
/// tab, newline and backslash as `\040`, `\011`, `\012`, `\134`. A malformed line is skipped
/// and reported, never trusted.
public struct MountTable: Sendable, Equatable {
  /// The volume label a recorder's USB file system carries: the capability table's
  /// (`ModelCapabilities/usbVolumeLabel`, `PLAUD_NOTE` [device]).
  public static let recorderLabel = ModelCapabilities.usbVolumeLabel
  /// Where the kernel lists this process's mounts.
  public static let procPath = "/proc/self/mountinfo"

  /// One mounted file system.
  public struct Mount: Sendable, Equatable {
    /// Where it is mounted, unescaped.
    public var mountPoint: String
    /// Its type (`vfat`, `ext4`, …).
    public var fileSystem: String
    /// What is mounted (`/dev/sdb1`), unescaped.
    public var source: String
  }

  /// The well-formed lines, in order.
  public let mounts: [Mount]
  /// Why each skipped line was skipped.
  public let skipped: [USBVolumeError]

  /// Parses mountinfo text.
  public init(_ text: String) {
    var mounts: [Mount] = []
    var skipped: [USBVolumeError] = []
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
      do throws(USBVolumeError) {
        mounts.append(try Self.mount(line, number: index + 1))
      } catch {
        skipped.append(error)
      }
    }
    self.mounts = mounts
    self.skipped = skipped
  }

  /// The mount points of recorder volumes: a mount point named ``recorderLabel`` (as
  /// udisks names it after the label), or whose source is `labelledDevice` (the device
  /// `/dev/disk/by-label/PLAUD_NOTE` resolves to, when there is one).
  public func recorderVolumes(labelledDevice: String? = nil) -> [String] {
    mounts.filter { mount in
      mount.mountPoint.split(separator: "/").last.map(String.init) == Self.recorderLabel
        || (labelledDevice != nil && mount.source == labelledDevice)
    }.map(\.mountPoint)
  }

  /// The recorder volumes mounted now: `mountInfoPath` (default ``procPath``) parsed, with
  /// the device `/dev/disk/by-label/PLAUD_NOTE` resolves to, when it exists.
  /// - Throws: ``USBVolumeError/unreadable(path:errno:)`` when the table cannot be read.
  public static func mountedRecorderVolumes(mountInfoPath: String = procPath)
    throws(USBVolumeError) -> [String]
  {
    guard let data = FileManager.default.contents(atPath: mountInfoPath) else {
      throw .unreadable(path: mountInfoPath, errno: ENOENT)
    }
    let labelled = realpath("/dev/disk/by-label/" + recorderLabel, nil).map { pointer in
      defer { free(pointer) }
      return String(cString: pointer)
    }
    return MountTable(String(decoding: data, as: UTF8.self))
      .recorderVolumes(labelledDevice: labelled)
  }

  private static func mount(_ line: Substring, number: Int) throws(USBVolumeError) -> Mount {
    let fields = line.split(separator: " ", omittingEmptySubsequences: false)
    guard let separator = fields.firstIndex(of: "-") else {
      throw .malformedMountInfo(line: number, reason: "no '-' separator")
    }
    guard separator >= 6, fields.count - separator == 4 else {
      throw .malformedMountInfo(line: number, reason: "\(fields.count) fields around the separator")
    }
    guard fields[0].allSatisfy(\.isNumber), !fields[0].isEmpty,
      fields[2].contains(":")
    else { throw .malformedMountInfo(line: number, reason: "no mount id or device number") }
    let point = try unescape(fields[4], number: number)
    guard point.hasPrefix("/") else {
      throw .malformedMountInfo(line: number, reason: "mount point is not absolute")
    }
    return Mount(
      mountPoint: point, fileSystem: try unescape(fields[separator + 1], number: number),
      source: try unescape(fields[separator + 2], number: number))
  }

  /// `field` with its octal escapes (`\040`) decoded; a stray backslash is an error.
  static func unescape(_ field: Substring, number: Int) throws(USBVolumeError) -> String {
    var bytes: [UInt8] = []
    let input = Array(field.utf8)
    var index = 0
    while index < input.count {
      let byte = input[index]
      guard byte == UInt8(ascii: "\\") else {
        bytes.append(byte)
        index += 1
        continue
      }
      let digits = input[(index + 1)...].prefix(3)
      guard digits.count == 3, digits.allSatisfy({ (0x30...0x37).contains($0) }) else {
        throw .malformedMountInfo(line: number, reason: "a backslash without three octal digits")
      }
      let value = digits.reduce(0) { $0 * 8 + Int($1 - 0x30) }
      guard value > 0, value < 256 else {
        throw .malformedMountInfo(line: number, reason: "escape \\\(value) out of range")
      }
      bytes.append(UInt8(value))
      index += 4
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .malformedMountInfo(line: number, reason: "not UTF-8")
    }
    return text
  }
}
