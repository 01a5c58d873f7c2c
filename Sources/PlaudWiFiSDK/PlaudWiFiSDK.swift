import Foundation
@_exported import PlaudBleSDK

// PlaudWiFiSDK: the vendor's Wi-Fi framework under its own name (shared/VENDOR-API.md,
// "PlaudBleSDK and PlaudWiFiSDK"). It re-exports PlaudBleSDK (and through it the facade), so
// `import PlaudWiFiSDK` names `BleAgent`, `BleDevice`, `BleFile` and `WiFiAgent`.

/// The vendor's reachability manager as PlaudWiFiSDK declares it: the same behaviour as
/// PlaudBleSDK's (code importing both names it with its module).
open class NetworkReachabilityManager: PlaudBleSDK.NetworkReachabilityManager, @unchecked Sendable {
  // Safety: no stored state of its own; the superclass's is behind its lock.

  /// A manager for `host`; nil for an empty host.
  public convenience init?(host: String) {
    guard !host.isEmpty else { return nil }
    self.init(host: Optional(host))
  }

  /// A manager for the network as a whole.
  public convenience init?() { self.init(host: nil) }
}
