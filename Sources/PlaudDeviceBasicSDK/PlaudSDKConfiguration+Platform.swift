import RecorderKit

extension PlaudSDKConfiguration {
  /// What ``PlaudDeviceAgent/shared`` runs on when ``PlaudDeviceAgent/configure(_:)`` was not
  /// called (vendor code never calls it): on iOS the system's radio and services
  /// (`PlaudSDKConfiguration+Apple.swift`: CoreBluetooth with state restoration, Core
  /// Location beacons, the hotspot configuration); elsewhere no radio (BlueZ will be the
  /// Linux default once it exists).
  public static var platformDefault: PlaudSDKConfiguration {
    #if canImport(CoreBluetooth) && canImport(CoreLocation) && canImport(NetworkExtension)
      return systemDefault()
    #else
      return PlaudSDKConfiguration()
    #endif
  }
}
