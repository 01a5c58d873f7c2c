@_exported import PlaudBleSDK
import Foundation

// PlaudWiFiSDK: the vendor's Wi-Fi framework under its own name (shared/VENDOR-API.md,
// "PlaudBleSDK and PlaudWiFiSDK"). It re-exports PlaudBleSDK (and through it the facade), so
// `import PlaudWiFiSDK` names `BleAgent`, `BleDevice`, `BleFile` and `WiFiAgent`.
