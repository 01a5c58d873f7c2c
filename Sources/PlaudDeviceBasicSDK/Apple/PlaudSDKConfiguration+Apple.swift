#if canImport(CoreBluetooth) && canImport(CoreLocation) && canImport(NetworkExtension)
  import Foundation
  import RecorderCoreBluetooth
  import RecorderKit

  extension PlaudSDKConfiguration {
    /// The restore identifier of the default central: the same every launch, so the system
    /// hands back the links and pending connects it kept while the app was not running.
    public static let centralRestoreIdentifier = "ai.recorderkit.PlaudDeviceBasicSDK.central"

    /// The system's radio and services, wired as ``platformDefault`` describes. The beacon
    /// identity a recorder broadcasts is not documented (shared/PROTOCOL.md), so the default
    /// monitor takes it from the app's Info.plist (``beaconIdentitiesFromInfoPlist()``); with
    /// none there it watches no region.
    static func systemDefault() -> PlaudSDKConfiguration {
      systemDefault(beaconIdentities: beaconIdentitiesFromInfoPlist())
    }

    /// The beacon identities under `RecorderKitBeacons` in the main bundle's Info.plist
    /// (`BeaconIdentities.init(propertyList:)` gives the form); none when the key is absent
    /// or malformed.
    public static func beaconIdentitiesFromInfoPlist() -> BeaconIdentities {
      guard let entry = Bundle.main.object(forInfoDictionaryKey: BeaconIdentities.infoPlistKey)
      else { return .none }
      return (try? BeaconIdentities(propertyList: entry)) ?? .none
    }

    /// The system's radio and services, its beacon monitor watching `beaconIdentities`.
    public static func systemDefault(beaconIdentities: BeaconIdentities) -> PlaudSDKConfiguration {
      let central = CoreBluetoothCentral(
        system: CoreBluetoothCentral.Configuration(restoreIdentifier: centralRestoreIdentifier))
      // Core Location delivers callbacks to the thread that made the manager: the main one.
      let beacons = LocationBeaconMonitor(configuration: .init(identities: beaconIdentities)) {
        events in
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
