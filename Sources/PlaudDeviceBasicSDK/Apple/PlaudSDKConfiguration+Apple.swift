#if canImport(CoreBluetooth) && canImport(CoreLocation) && canImport(NetworkExtension)
  import Foundation
  import RecorderCoreBluetooth
  import RecorderKit

  extension PlaudSDKConfiguration {
    /// The restore identifier of the default central: the same every launch, so the system
    /// hands back the links and pending connects it kept while the app was not running.
    public static let centralRestoreIdentifier = "ai.recorderkit.PlaudDeviceBasicSDK.central"

    /// The system's radio and services, wired as ``platformDefault`` describes. The beacon
    /// identity a recorder advertises is not documented (shared/PROTOCOL.md), so the default
    /// monitor watches no region: an app that knows it configures its own
    /// `LocationBeaconMonitor`.
    static func systemDefault() -> PlaudSDKConfiguration {
      let central = CoreBluetoothCentral(
        system: CoreBluetoothCentral.Configuration(restoreIdentifier: centralRestoreIdentifier))
      // Core Location delivers callbacks to the thread that made the manager: the main one.
      let beacons = LocationBeaconMonitor(configuration: .init(region: { _ in nil })) { events in
        Thread.isMainThread
          ? SystemLocationManager(events: events)
          : DispatchQueue.main.sync { SystemLocationManager(events: events) }
      }
      let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)
      var configuration = PlaudSDKConfiguration(
        central: central,
        storageRoot: (support.first?.path ?? NSTemporaryDirectory()) + "/PlaudDeviceBasicSDK",
        beaconMonitor: beacons)
      configuration.hotspotJoiner = HotspotConfigurationJoiner(system: SystemHotspotConfiguration())
      // Mode B's user key: the Keychain, this device only.
      configuration.userKeyStore = KeychainKeyStore(keychain: SystemKeychain())
      // On the Wi-Fi interface's own address once joined, port 8081 [sdk]; only clients on
      // the device's network are admitted.
      configuration.wifiServer = WiFiLink.Configuration(host: nil, port: 8081)
      #if canImport(UIKit) && canImport(BackgroundTasks)
        // Every command inside a background task (macOS apps are not suspended this way).
        configuration.backgroundTasks = SystemBackgroundTasks()
      #endif
      return configuration
    }
  }
#endif
