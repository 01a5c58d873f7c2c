#if canImport(CoreLocation)
  import CoreLocation
  import Foundation
  import RecorderKit

  /// `CLLocationManager` as a `LocationManagerMirror`: translation only.
  ///
  /// `@unchecked Sendable` is sound: the manager is made and used only on the main thread
  /// (`onMain`), where Core Location also delivers its callbacks, and is never reassigned.
  public final class SystemLocationManager: NSObject, LocationManagerMirror, @unchecked Sendable {
    private let manager: CLLocationManager
    private let events: LocationBeaconMonitor.EventSink

    /// A manager whose callbacks go to `events`. Call on the main thread.
    public init(events: @escaping LocationBeaconMonitor.EventSink) {
      self.events = events
      manager = CLLocationManager()
      super.init()
      manager.delegate = self
    }

    private func onMain<Result>(_ body: () -> Result) -> Result {
      Thread.isMainThread ? body() : DispatchQueue.main.sync(execute: body)
    }

    public var authorizationStatus: LocationAuthorizationMirror {
      onMain { mirror(manager.authorizationStatus) }
    }

    public func requestAlwaysAuthorization() { onMain { manager.requestAlwaysAuthorization() } }

    public func startMonitoring(for region: BeaconRegionMirror) {
      onMain {
        guard let beacon = beaconRegion(region) else { return }
        beacon.notifyOnEntry = true
        beacon.notifyOnExit = true
        manager.startMonitoring(for: beacon)
      }
    }

    public func stopMonitoring(for region: BeaconRegionMirror) {
      onMain {
        guard let beacon = beaconRegion(region) else { return }
        manager.stopMonitoring(for: beacon)
      }
    }

    public var monitoredRegions: [BeaconRegionMirror] {
      onMain {
        manager.monitoredRegions.compactMap { region in
          guard let beacon = region as? CLBeaconRegion else { return nil }
          return BeaconRegionMirror(
            identifier: beacon.identifier, uuid: beacon.uuid.uuidString,
            major: beacon.major?.uint16Value, minor: beacon.minor?.uint16Value)
        }
      }
    }

    private func beaconRegion(_ region: BeaconRegionMirror) -> CLBeaconRegion? {
      guard let uuid = UUID(uuidString: region.uuid) else { return nil }
      switch (region.major, region.minor) {
      case (let major?, let minor?):
        return CLBeaconRegion(uuid: uuid, major: major, minor: minor, identifier: region.identifier)
      case (let major?, nil):
        return CLBeaconRegion(uuid: uuid, major: major, identifier: region.identifier)
      default:
        return CLBeaconRegion(uuid: uuid, identifier: region.identifier)
      }
    }

    private func mirror(_ status: CLAuthorizationStatus) -> LocationAuthorizationMirror {
      switch status {
      case .authorizedAlways: .authorizedAlways
      case .authorizedWhenInUse: .authorizedWhenInUse
      case .denied: .denied
      case .restricted: .restricted
      default: .notDetermined
      }
    }
  }

  extension SystemLocationManager: CLLocationManagerDelegate {
    public func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
      events(.didChangeAuthorization(mirror(manager.authorizationStatus)))
    }

    public func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion) {
      events(.didEnterRegion(identifier: region.identifier))
    }

    public func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion) {
      events(.didExitRegion(identifier: region.identifier))
    }

    public func locationManager(
      _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?,
      withError error: any Error
    ) {
      events(.monitoringDidFail(identifier: region?.identifier, error.localizedDescription))
    }
  }
#endif
