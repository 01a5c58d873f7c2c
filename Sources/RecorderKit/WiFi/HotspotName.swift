import RecorderProtocol

extension DeviceHotspot {
  /// The SSID prefix a device raises by model (PROTOCOL.md §6) [sdk]: `Plaud` for a Note Pro
  /// (881) with portVersion 20 or more and for a NotePin S (882), `PLAUD` for every other.
  /// `model` nil: the serial's first three digits name it (`881…`, `882…`), else `PLAUD`.
  package static func ssidPrefix(serial: String, model: RecorderModel?, portVersion: UInt16)
    -> String
  {
    let model = model ?? UInt16(serial.prefix(3)).flatMap(RecorderModel.init)
    switch model {
    case .notePinS: return "Plaud"
    case .notePro where portVersion >= ProtocolDefaults.modeBPortVersion: return "Plaud"
    default: return "PLAUD"
    }
  }

  /// The SSID a device raises when its WIFI_OPEN reply names none (PROTOCOL.md §6) [sdk]:
  /// the model's prefix (``ssidPrefix(serial:model:portVersion:)``) + the serial's last four
  /// characters.
  package static func ssid(serial: String, model: RecorderModel?, portVersion: UInt16) -> String {
    ssidPrefix(serial: serial, model: model, portVersion: portVersion) + serial.suffix(4)
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
