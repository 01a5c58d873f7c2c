import RecorderProtocol
import Testing

/// WIFI_OPEN replies with and without the hotspot's name (PROTOCOL.md §3.1, §6): both
/// layouts RecorderKit reads, and tails that name nothing.
@Suite("WIFI_OPEN reply SSID")
struct WiFiOpenSSIDTests {
  let password = Array("Ab3dEf7h".utf8)

  func decoded(_ payload: [UInt8]) throws -> WiFiOpenResponse {
    let wire = [0x01, 0x0A, 0x00] + payload
    guard case .control(let control) = try Frame(decoding: wire),
      case .wifiOpen(let reply) = try DeviceMessage(control)
    else {
      Issue.record("not a WIFI_OPEN reply")
      return WiFiOpenResponse(status: 0xFF)
    }
    #expect(DeviceMessage.wifiOpen(reply).encoded() == wire, "byte for byte")
    return reply
  }

  @Test("no SSID: status and password only")
  func withoutSSID() throws {
    let reply = try decoded([0] + password)
    #expect(reply.password == password)
    #expect(reply.ssid == nil)
  }

  @Test("SSID as zero-padded text, as bare text, and length-prefixed")
  func bothLayouts() throws {
    let name = Array("Plaud0123".utf8)
    let padded = name + [UInt8](repeating: 0, count: 32 - name.count)
    #expect(try decoded([0] + password + padded).ssid == "Plaud0123")
    #expect(try decoded([0] + password + name).ssid == "Plaud0123")
    #expect(try decoded([0] + password + [UInt8(name.count)] + name).ssid == "Plaud0123")
    #expect(
      try decoded([0] + password + [UInt8(name.count)] + name).ssidField
        == .lengthPrefixed(name))
  }

  @Test(
    "tails that name nothing leave the SSID to the model's rule",
    arguments: [
      [0x00], [0x00, 0x00, 0x00], [0x01], [0x05, 0x41], [0xFF, 0xFE], [0x41, 0x0A, 0x42],
      Array(repeating: 0x41, count: 33), [0x21] + Array(repeating: 0x41, count: 33),
    ] as [[UInt8]])
  func namesNothing(_ tail: [UInt8]) throws {
    #expect(try decoded([0] + password + tail).ssid == nil)
  }
}
