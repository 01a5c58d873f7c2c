// libFuzzer entry over what NetworkManager sends us: any bytes, demarshalled by libdbus as a
// D-Bus message (its wire format), read into DBusValues as the bus thread does, then through
// every NetworkManager reader (device properties, SSIDs, state signals, the
// AddAndActivateConnection2 reply, NameOwnerChanged, IP4Config). Each must give nil or a value
// inside its contract. Built with the RecorderBlueZ sources in one module by scripts/fuzz.sh.
// A trap or sanitizer report is a bug.
import CDBus

@_cdecl("LLVMFuzzerTestOneInput")
public func networkManagerReplyFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start, count > 0, count <= Int(Int32.max) else { return 0 }
  var error = DBusError()
  dbus_error_init(&error)
  defer { dbus_error_free(&error) }
  let message = start.withMemoryRebound(to: CChar.self, capacity: count) {
    dbus_message_demarshal($0, Int32(count), &error)
  }
  guard let message else { return 0 }
  defer { dbus_message_unref(message) }
  checkNetworkManagerReaders(DBusValue.arguments(of: message))
  return 0
}

private func checkNetworkManagerReaders(_ arguments: [DBusValue]) {
  typealias NM = NetworkManagerProperties
  _ = NM.activeStateChange(arguments)
  _ = NM.deviceStateChange(arguments)
  if let reply = NM.addAndActivateReply(arguments) {
    precondition(reply.connection != "/" && reply.active != "/", "\"/\" taken as a path")
  }
  _ = NM.ownerChange(arguments, of: NM.service)
  for value in arguments + arguments.map(\.unwrapped) {
    _ = NM.Device(value)
    _ = NM.objectPaths(value)
    _ = NM.uint32(value)
    if let path = NM.objectPath(value) { precondition(path != "/", "\"/\" taken as a path") }
    if let ssid = NM.ssid(value) { precondition(ssid.count <= 32, "an SSID over 32 bytes") }
    if let first = NM.firstAddress(value) {
      precondition(NM.isIPv4(first.address), "a malformed address taken")
      precondition((0...32).contains(first.prefix), "a prefix out of range taken")
      precondition(NM.isIPv4(NM.netmask(prefix: first.prefix)), "a malformed netmask made")
    }
    if let gateway = NM.gateway(value) {
      precondition(NM.isIPv4(gateway), "a malformed gateway taken")
    }
  }
}
