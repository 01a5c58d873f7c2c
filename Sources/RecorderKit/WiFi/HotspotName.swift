import RecorderProtocol

extension DeviceHotspot {
  /// The SSID a device raises when its WIFI_OPEN reply names none (PROTOCOL.md §6) [sdk]: the
  /// rule of its model's row (``ModelCapabilities/hotspotSSID``; with `model` nil, the model
  /// the serial's first three digits name; `PLAUD` for a recorder no row names) + the serial's
  /// last four characters.
  package static func ssid(serial: String, model: RecorderModel?, portVersion: UInt16) -> String {
    ModelCapabilities.hotspotSSID(serial: serial, model: model, portVersion: portVersion)
  }

  /// The hotspot's SSID after a WIFI_OPEN reply: the name the reply carries when it carries
  /// one (`WiFiOpenResponse.ssid`), else the model's rule
  /// (``ssid(serial:model:portVersion:)``).
  package static func ssid(
    reportedIn reply: WiFiOpenResponse, serial: String, model: RecorderModel?,
    portVersion: UInt16
  ) -> String {
    reply.ssid ?? ssid(serial: serial, model: model, portVersion: portVersion)
  }
}
