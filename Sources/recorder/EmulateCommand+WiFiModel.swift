import RecorderEmulator
import RecorderProtocol

extension EmulateCommand {
  /// The help lines of ``applyModelOptions(_:to:)``'s options.
  static let modelOptionsHelp = """
      --model 888|880|881|882 The product (project code): Note (default), NotePin, Note Pro,
                              NotePin S. It names the hotspot (PROTOCOL.md §6): `Plaud` for
                              881 from portVersion 20 and for 882, else `PLAUD`, then the
                              serial's last four characters.
      --model note|note-pro|notepin-s
                              A whole product as the evidence describes it (ModelPreset):
                              note-pro: V1.7.0, portVersion 20, serial 881…, named Plaud Note
                              Pro; notepin-s: V1.2.7, portVersion 20, serial 882… (18 digits),
                              named Plaud NotePin S, advertising without the project-code field
                              (portVersion at offset 15), recording end-to-end encrypted to
                              the user key it holds (--user-public-key, or the one a phone
                              enrolls; plain before any). --port-version, --serial and
                              --advertising still override.
      --name NAME             The advertised and GATT name (1-32 bytes; default by --model,
                              PLAUD_NOTE for the Note).
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

  /// `--model`: a preset by name, or a bare project code (then only the model changes; every
  /// other item stays the Note's).
  static func modelChoice(_ arguments: inout Arguments) throws -> (
    preset: ModelPreset?, code: RecorderModel?
  ) {
    let codes = RecorderModel.allCases.map { "\($0.rawValue)" }
    guard let choice = try arguments.choice("model", codes + ModelPreset.allCases.map(\.rawValue))
    else { return (nil, nil) }
    return (ModelPreset(rawValue: choice), UInt16(choice).flatMap(RecorderModel.init))
  }

  /// `--name`, `--wifi-ssid`, `--wifi-open-reply` and `--wifi-drops-ble` into
  /// `configuration`.
  static func applyModelOptions(
    _ arguments: inout Arguments, to configuration: inout DeviceConfiguration
  ) throws {
    if let name = try arguments.option("name") {
      guard (1...32).contains(name.utf8.count) else {
        throw UsageError("--name takes 1-32 bytes")
      }
      configuration.name = name
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
