// libFuzzer entry over the health measurement parsers: the first byte picks the
// characteristic (low two bits) and the reserved-flag policy (bit 2), the rest is the value.
// Built with the HealthProfiles sources in one module. A trap or sanitizer report is a bug; a
// thrown HealthProfileError is the expected answer to garbage.

@_cdecl("LLVMFuzzerTestOneInput")
public func healthProfilesFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count > 0 else { return 0 }
  let input = Array(UnsafeBufferPointer(start: start, count: count))
  let characteristics = HealthCharacteristic.allCases
  let characteristic = characteristics[Int(input[0] & 0x03) % characteristics.count]
  let policy: ReservedFlagPolicy = input[0] & 0x04 == 0 ? .tolerate : .reject
  let bytes = Array(input.dropFirst())

  let measurement: HealthMeasurement
  do {
    measurement = try HealthMeasurement.decode(
      characteristic: characteristic, bytes: bytes, reservedFlags: policy)
  } catch {
    // The other policy must agree on truncation; only the reserved-flag verdict may differ.
    if case .truncated = error, policy == .tolerate {
      precondition(
        (try? HealthMeasurement.decode(
          characteristic: characteristic, bytes: bytes, reservedFlags: .reject)) == nil,
        "reject accepted what tolerate found truncated")
    }
    _ = error.description
    return 0
  }
  precondition(measurement.characteristic == characteristic, "decoded as another characteristic")
  let fields = measurement.fields
  precondition(fields.count >= 3, "a measurement lists characteristic, flags and a value")
  _ = measurement.description

  // The value without its appended bytes is the shortest that decodes: one byte less is
  // truncated, and the known fields are the same.
  let appended = fields.last { $0.name == "appendedBytes" }
  let appendedCount = appended.map { ($0.value.count + 1) / 3 } ?? 0
  let minimal = Array(bytes.dropLast(appendedCount))
  let again = try? HealthMeasurement.decode(
    characteristic: characteristic, bytes: minimal, reservedFlags: policy)
  precondition(
    again?.fields == fields.filter { $0.name != "appendedBytes" },
    "dropping the appended bytes changed the known fields")
  do {
    _ = try HealthMeasurement.decode(
      characteristic: characteristic, bytes: Array(minimal.dropLast()), reservedFlags: policy)
    preconditionFailure("a value one byte shorter than its flags require decoded")
  } catch {
    precondition(
      error == .truncated(expected: minimal.count, got: minimal.count - 1),
      "one byte short must be truncated by exactly one byte")
  }
  return 0
}
