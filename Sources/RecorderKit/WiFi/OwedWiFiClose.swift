import RecorderProtocol

/// The WIFI_CLOSEs a storage root owes its devices, kept beside the journal so they outlive
/// the process: `<root>/wifi-close-owed/<serial>`, an empty file per device.
///
/// WIFI_CLOSE only reaches a device over BLE, and some devices drop BLE while their hotspot
/// serves a phone [sdk: the vendor's template app is written for them]. A hotspot left up
/// keeps the device in Wi-Fi mode until its idle timeout (~2 min [sdk]), so a sync marks the
/// close owed once WIFI_OPEN is granted and settles it when WIFI_CLOSE is answered; the front
/// door sends an owed close at the next BLE connection to that device
/// (``Recorders/runSync(serial:into:options:report:)``).
package struct OwedWiFiCloses: Sendable {
  /// The storage root.
  public let root: String
  let fileSystem: any DurableFileSystem

  /// The owed closes of storage root `root`, kept through `fileSystem` (the sync engine's,
  /// so a power-loss test rolls them back with the rest). Touches nothing until asked.
  public init(root: String, fileSystem: any DurableFileSystem = PosixFileSystem()) {
    self.root = root
    self.fileSystem = fileSystem
  }

  /// `<root>/wifi-close-owed`.
  public var directory: String { StorageLayout(root: root).owedWiFiCloses }

  /// Whether a WIFI_CLOSE is owed to the device with `serial` (false for a serial that is no
  /// safe file name: nothing can have been marked for it).
  public func isOwed(serial: String) -> Bool {
    guard let path = try? path(serial: serial) else { return false }
    return fileSystem.size(of: path) != nil
  }

  /// Marks a WIFI_CLOSE owed to `serial`, durably (the file and its directory entry fsync'd).
  /// - Throws: ``SyncError/unsafeSerial(_:)``, ``SyncError/storage(_:)``.
  public func markOwed(serial: String) throws(SyncError) {
    let path = try path(serial: serial)
    guard fileSystem.size(of: path) == nil else { return }
    do {
      try fileSystem.createDirectory(directory)
      let file = try fileSystem.openForAppend(path, truncatingTo: 0)
      defer { file.close() }
      try file.sync()
      try fileSystem.syncDirectory(directory)
    } catch {
      throw .storage(error)
    }
  }

  /// The close owed to `serial` was answered: forgets it, durably.
  /// - Throws: ``SyncError/unsafeSerial(_:)``, ``SyncError/storage(_:)``.
  public func settle(serial: String) throws(SyncError) {
    let path = try path(serial: serial)
    guard fileSystem.size(of: path) != nil else { return }
    do {
      try fileSystem.remove(path)
      try fileSystem.syncDirectory(directory)
    } catch {
      throw .storage(error)
    }
  }

  /// Sends the close owed to the device behind `session`, if one is: true when WIFI_CLOSE
  /// was answered (and the debt settled), false when none was owed or it failed (still owed).
  public func sendIfOwed(over session: DeviceSession) async -> Bool {
    let serial = await session.info.serial
    guard isOwed(serial: serial) else { return false }
    do {
      try await session.closeWiFi()
    } catch {
      return false
    }
    // Answered: a settle that cannot be written only repeats a harmless WIFI_CLOSE later.
    try? settle(serial: serial)
    return true
  }

  private func path(serial: String) throws(SyncError) -> String {
    directory + "/" + (try DeviceFolderName.serial(serial))
  }
}

extension SyncEngine {
  /// The WIFI_CLOSEs owed to devices by syncs on this engine's root.
  package nonisolated var owedWiFiCloses: OwedWiFiCloses {
    OwedWiFiCloses(root: root, fileSystem: fileSystem)
  }
}
