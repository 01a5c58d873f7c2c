import RecorderBluetooth
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// Issue 43: `recorder emulate --model note-pro|notepin-s` advertise as the evidence says
/// (PROTOCOL.md §1): the NotePin S without the project-code field, portVersion at payload
/// offset 15; the Note Pro with it, portVersion at offset 18; both portVersion 20.
@Suite(.timeLimit(.minutes(5)))
struct ModelPresetTests {
  @Test(
    "each preset advertises its name, layout and portVersion 20 at the vendor's offset",
    arguments: [(ModelPreset.notePinS, 15), (.notePro, 18)])
  func advertising(preset: ModelPreset, portVersionOffset: Int) async throws {
    let bench = try TestBench(configuration: preset.configuration)
    defer { bench.cleanUp() }
    let advertisement = try #require(await bench.firstAdvertisement())
    #expect(advertisement.localName == preset.name)
    let data = try #require(advertisement.manufacturerData)
    #expect(
      Array(data.prefix(2)) == [UInt8(preset.companyID & 0xFF), UInt8(preset.companyID >> 8)])
    let payload = Array(data.dropFirst(2))
    #expect((payload.first == 2) == preset.advertisesProjectCode)
    #expect(Array(payload[portVersionOffset...].prefix(2)) == [20, 0])
    let decoded = try ManufacturerPayload(decoding: payload)
    #expect(decoded.portVersion == 20)
    #expect(decoded.serial == preset.serial)
    #expect(decoded.model == preset.model)
    #expect(decoded.firmware == preset.firmware)
  }
}
