import HealthProfiles
import RecorderBluetooth

// libFuzzer entry over what discovery reads from an advertisement (DiscoveredHealthPeripheral):
// the service list and the local name, both outside data. The first byte gives the number of
// service entries (low 6 bits) and their width (bit 7: 128-bit, else 16-bit, little-endian);
// then the entries; the rest is the name's UTF-8 (invalid sequences decode as U+FFFD, as a
// radio stack hands over a string). Built with the RecorderKit sources by scripts/fuzz.sh. A
// trap or sanitizer report is a bug. The preconditions are discovery's rules: a kind exactly
// when a SIG-base health service is listed, the first one listed; a name that is printable,
// trimmed, non-empty and at most 248 UTF-8 bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func healthDiscoveryFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count > 0 else { return 0 }
  let input = Array(UnsafeBufferPointer(start: start, count: count))
  let entries = Int(input[0] & 0x3F)
  let wide = input[0] & 0x80 != 0
  let width = wide ? 16 : 2
  var services: [BluetoothUUID] = []
  var offset = 1
  while services.count < entries, offset + width <= input.count {
    let bytes = Array(input[offset..<offset + width])
    offset += width
    if wide, let uuid = BluetoothUUID(bytes: bytes) {
      services.append(uuid)
    } else if !wide {
      services.append(BluetoothUUID(UInt16(bytes[1]) << 8 | UInt16(bytes[0])))
    }
  }
  let name = String(decoding: input[offset...], as: UTF8.self)
  let advertisement = Advertisement(
    peripheral: PeripheralID("fuzz"), localName: name, manufacturerData: nil,
    serviceUUIDs: services, rssi: -50)

  let found = DiscoveredHealthPeripheral(advertisement: advertisement, isRegistered: false)
  let expected = services.lazy.compactMap { uuid in
    uuid.shortValue.flatMap { HealthPeripheralKind(serviceUUID: $0) }
  }.first
  precondition(found?.kind == expected, "kind is not the first health service listed")
  guard let shown = found?.name else { return 0 }
  precondition(!shown.isEmpty, "an empty name is nil")
  precondition(shown.utf8.count <= DiscoveredHealthPeripheral.maximumNameBytes, "name too long")
  for scalar in shown.unicodeScalars {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned,
      .privateUse:
      preconditionFailure("an unprintable scalar was kept")
    default: break
    }
  }
  precondition(shown.unicodeScalars.first?.properties.isWhitespace == false, "not trimmed")
  precondition(shown.unicodeScalars.last?.properties.isWhitespace == false, "not trimmed")
  return 0
}
