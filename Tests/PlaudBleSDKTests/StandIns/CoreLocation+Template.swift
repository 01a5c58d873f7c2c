// swift-format-ignore-file
// More of Apple's CoreLocation, with its documented signatures, for the vendor's template
// app (scripts/check-vendor-template.sh): compiled with ApplePlatformTests' CoreLocation
// stand-in. Never run.
import Foundation

extension CLLocationManager {
  public class func authorizationStatus() -> CLAuthorizationStatus { fatalError("stand-in") }
  public func requestWhenInUseAuthorization() {}
}
