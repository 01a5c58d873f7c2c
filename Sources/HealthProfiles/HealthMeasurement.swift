/// One decoded value of a health measurement characteristic: the single entry point for
/// callers that hold a characteristic and its bytes (the `recorder passive decode` command,
/// a Central's indication handler).
///
/// Pure and total: any byte array yields a measurement or a ``HealthProfileError``, never a
/// trap. Reserved flag bits are tolerated and reported unless ``ReservedFlagPolicy/reject`` is
/// asked for; bytes after the last announced field are kept in `appendedBytes`, because SIG
/// profile revisions add fields at the end (GATT Specification Supplement, each
/// characteristic's field table), so a newer sensor still decodes.
public enum HealthMeasurement: Sendable, Hashable, CustomStringConvertible {
  case temperature(TemperatureMeasurement)
  case weight(WeightMeasurement)
  case bloodPressure(BloodPressureMeasurement)
  case plxSpotCheck(PLXSpotCheckMeasurement)

  /// Decodes `bytes`, the value of `characteristic` as indicated (the ATT payload, without
  /// the ATT opcode and handle).
  public static func decode(
    characteristic: HealthCharacteristic, bytes: [UInt8],
    reservedFlags policy: ReservedFlagPolicy = .tolerate
  ) throws(HealthProfileError) -> HealthMeasurement {
    switch characteristic {
    case .temperatureMeasurement:
      .temperature(try TemperatureMeasurement(decoding: bytes, reservedFlags: policy))
    case .weightMeasurement:
      .weight(try WeightMeasurement(decoding: bytes, reservedFlags: policy))
    case .bloodPressureMeasurement:
      .bloodPressure(try BloodPressureMeasurement(decoding: bytes, reservedFlags: policy))
    case .plxSpotCheckMeasurement:
      .plxSpotCheck(try PLXSpotCheckMeasurement(decoding: bytes, reservedFlags: policy))
    }
  }

  /// The characteristic the value came from.
  public var characteristic: HealthCharacteristic {
    switch self {
    case .temperature: .temperatureMeasurement
    case .weight: .weightMeasurement
    case .bloodPressure: .bloodPressureMeasurement
    case .plxSpotCheck: .plxSpotCheckMeasurement
    }
  }

  /// `characteristic` first, then the measurement's fields in wire order: what the CLI
  /// prints as `name: value unit` lines or as one JSON object.
  public var fields: [HealthField] {
    let own: [HealthField]
    switch self {
    case .temperature(let measurement): own = measurement.fields
    case .weight(let measurement): own = measurement.fields
    case .bloodPressure(let measurement): own = measurement.fields
    case .plxSpotCheck(let measurement): own = measurement.fields
    }
    return [HealthField("characteristic", characteristic.description)] + own
  }

  /// One `name: value unit` line per field.
  public var description: String {
    fields.map(\.description).joined(separator: "\n")
  }
}
