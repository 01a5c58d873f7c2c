/// The four Bluetooth SIG health measurement characteristics this module decodes, with the
/// service each lives in (Bluetooth SIG Assigned Numbers, 16-bit UUIDs).
///
/// All four are delivered by indication: the Health Thermometer, Weight Scale, Blood Pressure
/// and Pulse Oximeter service specifications give each measurement characteristic the
/// Indicate property (mandatory) and no Notify, so every value is acknowledged by the client
/// and a sensor may keep stored values until it sees the confirmation.
public enum HealthCharacteristic: UInt16, CaseIterable, Sendable, Hashable,
  CustomStringConvertible
{
  /// Temperature Measurement, Health Thermometer Service.
  case temperatureMeasurement = 0x2A1C
  /// Weight Measurement, Weight Scale Service.
  case weightMeasurement = 0x2A9D
  /// Blood Pressure Measurement, Blood Pressure Service.
  case bloodPressureMeasurement = 0x2A35
  /// PLX Spot-Check Measurement, Pulse Oximeter Service.
  case plxSpotCheckMeasurement = 0x2A5E

  /// The 16-bit characteristic UUID.
  public var uuid: UInt16 { rawValue }

  /// The 16-bit UUID of the service that holds the characteristic.
  public var serviceUUID: UInt16 {
    switch self {
    case .temperatureMeasurement: 0x1809
    case .weightMeasurement: 0x181D
    case .bloodPressureMeasurement: 0x1810
    case .plxSpotCheckMeasurement: 0x1822
    }
  }

  /// Whether the SIG service specification delivers values by indication (true for all four).
  public var isIndicated: Bool {
    switch self {
    case .temperatureMeasurement, .weightMeasurement, .bloodPressureMeasurement,
      .plxSpotCheckMeasurement:
      true
    }
  }

  /// The characteristic's SIG name.
  public var name: String {
    switch self {
    case .temperatureMeasurement: "Temperature Measurement"
    case .weightMeasurement: "Weight Measurement"
    case .bloodPressureMeasurement: "Blood Pressure Measurement"
    case .plxSpotCheckMeasurement: "PLX Spot-Check Measurement"
    }
  }

  /// The SIG name of the service that holds the characteristic.
  public var serviceName: String {
    switch self {
    case .temperatureMeasurement: "Health Thermometer"
    case .weightMeasurement: "Weight Scale"
    case .bloodPressureMeasurement: "Blood Pressure"
    case .plxSpotCheckMeasurement: "Pulse Oximeter"
    }
  }

  /// `2A1C`: the UUID as four upper-case hex digits, the form the CLI takes and prints.
  public var uuidString: String {
    String(hexString(UInt32(rawValue), digits: 4).dropFirst(2))
  }

  public var description: String { "\(name) (0x\(uuidString))" }

  /// Looks a characteristic up by its 16-bit UUID in hex, as a user types it: `2A1C`, `2a1c`,
  /// `0x2A1C`, or the 128-bit base form `00002A1C-0000-1000-8000-00805F9B34FB`.
  public init(identifier: String) throws(HealthProfileError) {
    var text = Substring(identifier.uppercased())
    let baseSuffix = "-0000-1000-8000-00805F9B34FB"
    if text.count == 36, text.hasSuffix(baseSuffix), text.hasPrefix("0000") {
      text = text.dropFirst(4).dropLast(baseSuffix.count)
    } else if text.hasPrefix("0X") {
      text = text.dropFirst(2)
    }
    guard text.count == 4, let uuid = UInt16(text, radix: 16),
      let characteristic = HealthCharacteristic(rawValue: uuid)
    else {
      throw .unknownCharacteristic(identifier)
    }
    self = characteristic
  }
}
