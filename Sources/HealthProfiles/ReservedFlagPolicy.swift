/// What the parsers do with flag bits the GATT Specification Supplement marks "Reserved for
/// Future Use".
///
/// The SIG asks receivers to ignore RFU bits, and when a profile revision gives one a meaning
/// with a new field, the field is appended after the existing ones. So the default,
/// ``tolerate``, decodes the fields this module knows, reports the bits in `reservedFlags` (and
/// any bytes such a field would add in `appendedBytes`), and never shifts a known field.
/// ``reject`` is for conformance checks of a sensor we build or certify.
public enum ReservedFlagPolicy: Sendable, Hashable {
  /// Decode the known fields; report the reserved bits. The default.
  case tolerate
  /// Throw ``HealthProfileError/reservedFlags(flags:reserved:)``.
  case reject
}
