// swift-format-ignore-file
// A stand-in for Apple's CoreLocation: declarations only, with the signatures of Apple's
// documentation, for the API the beacon binding uses (AppleBindingTypeCheckTests). The
// delegate methods the binding implements are requirements here (optional at Apple), so a
// misspelt one fails the check. Never run.
import Foundation

public enum CLAuthorizationStatus: Int32, @unchecked Sendable {
  case notDetermined = 0, restricted, denied, authorizedAlways, authorizedWhenInUse
}

public typealias CLBeaconMajorValue = UInt16
public typealias CLBeaconMinorValue = UInt16

open class CLRegion: NSObject {
  open var identifier: String { fatalError("stand-in") }
  open var notifyOnEntry: Bool = true
  open var notifyOnExit: Bool = true
}

open class CLBeaconRegion: CLRegion {
  public init(uuid: UUID, identifier: String) { fatalError("stand-in") }
  public init(uuid: UUID, major: CLBeaconMajorValue, identifier: String) { fatalError("stand-in") }
  public init(
    uuid: UUID, major: CLBeaconMajorValue, minor: CLBeaconMinorValue, identifier: String
  ) { fatalError("stand-in") }
  open var uuid: UUID { fatalError("stand-in") }
  open var major: NSNumber? { fatalError("stand-in") }
  open var minor: NSNumber? { fatalError("stand-in") }
}

open class CLLocationManager: NSObject {
  public override init() { fatalError("stand-in") }
  weak open var delegate: (any CLLocationManagerDelegate)?
  open var authorizationStatus: CLAuthorizationStatus { fatalError("stand-in") }
  open func requestAlwaysAuthorization() {}
  open func startMonitoring(for region: CLRegion) {}
  open func stopMonitoring(for region: CLRegion) {}
  open var monitoredRegions: Set<CLRegion> { fatalError("stand-in") }
}

public protocol CLLocationManagerDelegate: NSObjectProtocol {
  func locationManagerDidChangeAuthorization(_ manager: CLLocationManager)
  func locationManager(_ manager: CLLocationManager, didEnterRegion region: CLRegion)
  func locationManager(_ manager: CLLocationManager, didExitRegion region: CLRegion)
  func locationManager(
    _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?,
    withError error: any Error)
}
