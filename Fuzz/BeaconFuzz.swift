import Foundation
import RecorderBluetooth

// libFuzzer entry over what a beacon wake-up reads from outside: manufacturer data heard on
// the air (IBeacon), and the identity strings of an app's Info.plist (BeaconIdentity's
// `UUID[:major[:minor]]`, BluetoothUUID's canonical text). Built with the RecorderKit sources
// by scripts/fuzz.sh. A trap or sanitizer report is a bug; nil or a typed error is the
// expected answer to garbage. The preconditions: what parses writes back to the same bytes
// or text.

@_cdecl("LLVMFuzzerTestOneInput")
public func beaconFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count <= 4096 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  if let beacon = IBeacon(manufacturerData: bytes) {
    precondition(beacon.manufacturerData == bytes)
  }
  let text = String(decoding: bytes, as: UTF8.self)
  if let uuid = BluetoothUUID(string: text) {
    precondition(uuid.uuidString == text.uppercased())
  }
  if let identity = try? BeaconIdentity(parsing: text) {
    precondition((try? BeaconIdentity(parsing: identity.description)) == identity)
    let beacon = IBeacon(
      uuid: identity.uuid, major: identity.major ?? 0, minor: identity.minor ?? 0)
    precondition(identity.matches(beacon))
  }
  return 0
}
