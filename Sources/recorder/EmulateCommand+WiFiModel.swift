import RecorderEmulator
import RecorderProtocol

extension EmulateCommand {
  /// The help lines of ``applyModelOptions(_:to:)``'s options.
  static let modelOptionsHelp = """
      --model 888|880|881|882 The product (project code): Note (default), NotePin, Note Pro,
                              NotePin S. It names the hotspot (PROTOCOL.md §6): `Plaud` for
                              881 from portVersion 20 and for 882, else `PLAUD`, then the
                              serial's last four characters.
      --wifi-ssid NAME        The hotspot's SSID whatever the model (1-32 bytes, no spaces);
                              only a phone told it in the WIFI_OPEN reply can then join.
      --wifi-open-reply none|text|length
                              What the WIFI_OPEN reply carries after the password: no SSID
                              (default), the SSID zero-padded to 32 bytes, or a length byte
                              and the SSID (the vendor's layout is not known).
      --wifi-drops-ble        BLE goes down right after WIFI_OPEN is granted and the device is
                              not heard over BLE until the Wi-Fi session has ended (WIFI_CLOSE
                              then needs a new connection).
    """

  /// `--model`, `--wifi-ssid`, `--wifi-open-reply` and `--wifi-drops-ble` into `configuration`.
  static func applyModelOptions(
    _ arguments: inout Arguments, to configuration: inout DeviceConfiguration
  ) throws {
    if let code = try arguments.choice("model", RecorderModel.allCases.map { "\($0.rawValue)" }) {
      configuration.model = UInt16(code).flatMap(RecorderModel.init) ?? .note
    }
    if let ssid = try arguments.option("wifi-ssid") {
      guard (1...WiFiSSIDField.maximumLength).contains(ssid.utf8.count),
        ssid.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
      else {
        // No spaces either: the join port's JOIN line separates its fields with them.
        throw UsageError("--wifi-ssid takes 1-32 bytes without spaces or control characters")
      }
      configuration.wifi.ssid = ssid
    }
    if let reply = try arguments.choice(
      "wifi-open-reply", WiFiOpenReplySSID.allCases.map(\.rawValue))
    {
      configuration.wifi.openReplySSID = WiFiOpenReplySSID(rawValue: reply) ?? .none
    }
    configuration.wifi.dropsBLEOnOpen = arguments.flag("wifi-drops-ble")
  }
}
