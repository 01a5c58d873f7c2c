import Foundation
import RecorderStore

/// A finish step that writes each recording's description (``FinishedRecording/json()``)
/// beside each of its exports, as `<export name>.json` (beside the raw copy when there is no
/// export): temporary file, fsync, rename, fsync the folder, so a sidecar is whole or absent.
public struct SidecarStep: FinishStep {
  public let name = "sidecar"
  private let fileSystem: any DurableFileSystem

  public init() { fileSystem = PosixFileSystem() }

  package init(fileSystem: any DurableFileSystem) { self.fileSystem = fileSystem }

  public func run(_ recording: FinishedRecording, attempt: FinishAttempt)
    async throws(FinishStepError)
  {
    let beside = recording.exports.isEmpty ? [recording.rawPath] : recording.exports.values.sorted()
    for path in beside {
      let final = StorageLayout.sidecar(of: path)
      let temporary = StorageLayout.temporary(of: final)
      let directory = (final as NSString).deletingLastPathComponent
      do {
        try Data(recording.json() + [0x0A]).write(to: URL(fileURLWithPath: temporary))
        try fileSystem.syncFile(temporary)
        try fileSystem.rename(temporary, to: final)
        try fileSystem.syncDirectory(directory.isEmpty ? "." : directory)
      } catch {
        unlink(temporary)
        throw FinishStepError("sidecar \(final): \(error)")
      }
    }
  }
}
