import Foundation
import RecorderKit

/// A real FAT image of a folder, as a recorder's "Access via USB" volume is (a VFAT file
/// system labelled `PLAUD_NOTE`, long names kept): made with `mkfs.vfat` (dosfstools) and
/// filled with mtools' `mcopy`, both from Debian's packages, so no mount is needed to write it.
enum FATImage {
  /// Writes every file and folder under `directory` into a new image at `path` labelled
  /// `label` (at most 11 characters), sized for the content with room to spare.
  ///
  /// - Throws: ``CommandFailure`` (69) when a tool is missing, (74) when it fails.
  static func write(
    from directory: String, to path: String, label: String = MountTable.recorderLabel
  )
    throws(CommandFailure)
  {
    let entries: [String]
    do {
      entries = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    } catch {
      throw CommandFailure(.ioError, "cannot read the volume folder \(directory): \(error)")
    }
    // FAT's own structures and cluster rounding: a quarter more, and one MiB.
    let kibibytes = contentBytes(of: directory) / 1024 * 5 / 4 + 1024
    try? FileManager.default.removeItem(atPath: path)
    try run("mkfs.vfat", ["-C", "-n", label, path, "\(kibibytes)"])
    guard !entries.isEmpty else { return }
    try run("mcopy", ["-s", "-Q", "-i", path] + entries.map { directory + "/" + $0 } + ["::/"])
  }

  /// Bytes of every regular file under `directory`.
  private static func contentBytes(of directory: String) -> Int {
    let files = FileManager.default.enumerator(atPath: directory)
    var total = 0
    while let name = files?.nextObject() as? String {
      let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
      if attributes?[.type] as? FileAttributeType == .typeRegular {
        total += (attributes?[.size] as? NSNumber)?.intValue ?? 0
      }
    }
    return total
  }

  /// Runs `tool` (found on PATH, /usr/sbin and /sbin included) to its end.
  private static func run(_ tool: String, _ arguments: [String]) throws(CommandFailure) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = (environment["PATH"] ?? "/usr/bin:/bin") + ":/usr/sbin:/sbin"
    // mtools refuses an image whose geometry it would not have chosen itself; mkfs's is fine.
    environment["MTOOLS_SKIP_CHECK"] = "1"
    process.environment = environment
    process.arguments = [tool] + arguments
    let errors = Pipe()
    process.standardOutput = FileHandle.nullDevice
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw CommandFailure(.unavailable, "cannot run \(tool): \(error)")
    }
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    switch process.terminationStatus {
    case 0: return
    case 127:
      throw CommandFailure(
        .unavailable, "\(tool) is not installed (Debian's dosfstools and mtools; `make deps`)")
    default:
      let reason = message.split(separator: "\n").first.map(String.init) ?? "no message"
      throw CommandFailure(
        .ioError, "\(tool) failed (\(process.terminationStatus)): \(reason)")
    }
  }
}
