import Foundation
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

  /// PROTOCOL.md §5, §9: a NotePin S's files start with the `PLAUD.AI` header, wrapped for
  /// its owner's key. The preset encrypts what it records to the key it holds; with no key
  /// held it records plain. The Note Pro's preset records plain (its container is not
  /// settled).
  @Test(
    "a NotePin S records end-to-end encrypted to the owner's key it holds; a Note Pro plain",
    arguments: [
      (ModelPreset.notePinS, true, true), (.notePinS, false, false), (.notePro, true, false),
    ])
  func recordsForItsOwner(preset: ModelPreset, holdsKey: Bool, encrypted: Bool) async throws {
    var configuration = preset.configuration
    if holdsKey { configuration.modeB.provisionedUserKey = try TestUserKey.key().publicKey() }
    let bench = try TestBench(configuration: configuration)
    defer { bench.cleanUp() }
    let made = try await bench.device.addRecording(duration: .seconds(2))
    let bytes = try #require(FileManager.default.contents(atPath: made.path))
    #expect(bytes.starts(with: E2EEFileHeader.magic) == encrypted, "\(preset), key \(holdsKey)")
    #expect(made.size == 100 * 80 + (encrypted ? E2EEFileHeader.length : 0))
  }
}
