import Foundation
import RecorderKit

// The same condition as the Linux branch below (an Apple build never links BlueZ).
#if canImport(CoreBluetooth) && canImport(CoreLocation) && canImport(NetworkExtension)
#elseif canImport(RecorderBlueZ)
  import RecorderBlueZ
#endif

extension PlaudSDKConfiguration {
  /// What ``PlaudDeviceAgent/shared`` runs on when ``PlaudDeviceAgent/configure(_:)`` was not
  /// called (vendor code never calls it):
  /// - on iOS the system's radio and services (`PlaudSDKConfiguration+Apple.swift`:
  ///   CoreBluetooth with state restoration, Core Location beacons, the hotspot
  ///   configuration, background tasks);
  /// - on Linux BlueZ on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set), with the
  ///   journal and raw copies under `$XDG_DATA_HOME/PlaudDeviceBasicSDK` (default
  ///   `~/.local/share`): a gateway's store must survive a reboot, which the temporary
  ///   directory need not;
  /// - elsewhere no radio.
  public static var platformDefault: PlaudSDKConfiguration {
    #if canImport(CoreBluetooth) && canImport(CoreLocation) && canImport(NetworkExtension)
      return systemDefault()
    #elseif canImport(RecorderBlueZ)
      return PlaudSDKConfiguration(
        central: BlueZCentral(),
        storageRoot: linuxDataHome(ProcessInfo.processInfo.environment) + "/PlaudDeviceBasicSDK")
    #else
      return PlaudSDKConfiguration()
    #endif
  }

  /// The XDG data directory of `environment`: `XDG_DATA_HOME` when it is an absolute path
  /// (the specification ignores a relative one), else `~/.local/share` with `HOME`, or
  /// without it (a service) the user's home from the password database, else the temporary
  /// directory.
  static func linuxDataHome(
    _ environment: [String: String], accountHome: () -> String? = Self.accountHome
  ) -> String {
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data }
    if let home = environment["HOME"] ?? accountHome(), home.hasPrefix("/") {
      return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.local/share"
    }
    let temporary = NSTemporaryDirectory()
    return temporary.hasSuffix("/") ? String(temporary.dropLast()) : temporary
  }

  /// This process's user's home directory from the password database, if it has one.
  static func accountHome() -> String? {
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil,
      let directory = entry.pw_dir
    else { return nil }
    return String(cString: directory)
  }
}
