import RecorderProtocol

/// What a WIFI_OPEN reply says besides `status` and the password (PROTOCOL.md §3.1, §6):
/// nothing (the phone then builds the SSID by the model's rule), or the hotspot's SSID in one
/// of the two layouts RecorderKit reads (RecorderProtocol's `WiFiSSIDField`; the vendor's
/// layout is not known).
public enum WiFiOpenReplySSID: String, Sendable, CaseIterable {
  /// `status` · `password[8]` only.
  case none
  /// Then the SSID as text, zero-padded to 32 bytes.
  case text
  /// Then `length u8` and the SSID.
  case lengthPrefixed = "length"
}

/// A WIFI_OPEN granted, BLE dropped for Wi-Fi, a WIFI_CLOSE heard or an idle close, in the
/// order they happened (``EmulatedDevice/wifiControlLog``): what tests and the CLI's manifest
/// check the phone's WIFI_OPEN / WIFI_CLOSE against.
public struct WiFiControlRecord: Sendable, Equatable {
  /// What happened (its raw value is the manifest's `event`).
  public enum Kind: String, Sendable {
    /// A WIFI_OPEN the device granted.
    case open
    /// The device dropped BLE right after granting WIFI_OPEN
    /// (``WiFiParameters/dropsBLEOnOpen``).
    case bleDropped
    /// A WIFI_CLOSE arrived (``WiFiControlRecord/hotspotWasUp`` says whether it dropped a
    /// hotspot).
    case close
    /// The hotspot quit after ``WiFiParameters/idleTimeout`` without WIFI_CLOSE.
    case idleClose
  }
  /// What happened.
  public var kind: Kind
  /// The BLE connection it happened on, counted from 1 (``DeviceCounters/connections`` then).
  public var connection: Int
  /// Whether a hotspot was raised when it happened.
  public var hotspotWasUp: Bool
}

// The model-specific part of Wi-Fi Fast Transfer, device side: the hotspot's name (§6 by
// model, or ``WiFiParameters/ssid``), what the WIFI_OPEN reply reports, and a device whose BLE
// goes down while its hotspot serves a phone (``WiFiParameters/dropsBLEOnOpen``).
extension EmulatedDevice {
  /// Every WIFI_OPEN granted, BLE drop, WIFI_CLOSE and idle close, in order.
  public var wifiControlLog: [WiFiControlRecord] { wifiControl }

  /// The SSID this device raises: ``WiFiParameters/ssid`` when set, else its model's rule
  /// (PROTOCOL.md §6 [sdk], ``ModelCapabilities/hotspotSSID``: `Plaud` for a Note Pro from
  /// portVersion 20 and for a NotePin S, `PLAUD` for the others, then the serial's last four
  /// characters).
  var hotspotName: String {
    if let ssid = configuration.wifi.ssid { return ssid }
    return configuration.model.capabilities.hotspotSSID.ssid(
      serial: configuration.serial, portVersion: configuration.portVersion)
  }

  /// WIFI_OPEN's granted reply: status 0, `password`, and the SSID as
  /// ``WiFiParameters/openReplySSID`` says. Under ``WiFiParameters/dropsBLEOnOpen`` the BLE
  /// link goes down right after this reply is sent, and the device is not heard over BLE
  /// until the Wi-Fi session that follows has ended or the hotspot is gone.
  func grantedWiFiOpen(password: String) -> WiFiOpenResponse {
    noteWiFiControl(.open)
    if configuration.wifi.dropsBLEOnOpen, connection != nil {
      connection?.dropAfterNextReply = true
      hotspot?.holdsBLE = true
      noteWiFiControl(.bleDropped)
    }
    let name = Array((hotspot?.ssid ?? hotspotName).utf8.prefix(WiFiSSIDField.maximumLength))
    let field: WiFiSSIDField? =
      switch configuration.wifi.openReplySSID {
      case .none: nil
      case .text:
        .text(name + [UInt8](repeating: 0, count: WiFiSSIDField.maximumLength - name.count))
      case .lengthPrefixed: .lengthPrefixed(name)
      }
    return WiFiOpenResponse(status: 0, password: Array(password.utf8), ssidField: field)
  }

  /// WIFI_CLOSE: drops the hotspot (a session closes with 1000) and notes it.
  func closeWiFi() {
    noteWiFiControl(.close)
    dropHotspot(closeCode: .normalClosure)
  }

  /// True while BLE is down for Wi-Fi (``WiFiParameters/dropsBLEOnOpen``).
  var bleHeldForWiFi: Bool { hotspot?.holdsBLE ?? false }

  /// BLE comes back (the Wi-Fi session ended, the hotspot went): the device is heard again.
  func releaseBLEForWiFi() {
    guard hotspot?.holdsBLE == true else { return }
    hotspot?.holdsBLE = false
    publishAdvertisement()
  }

  func noteWiFiControl(_ kind: WiFiControlRecord.Kind) {
    wifiControl.append(
      WiFiControlRecord(
        kind: kind, connection: counterValues.connections, hotspotWasUp: hotspot != nil))
  }
}
