import RecorderBluetooth
import RecorderKit
import RecorderProtocol
import Testing

/// Issue 43 items 9 and 10 in the scanner: a NotePin S advertising without the project-code
/// field is recognised with its portVersion, and a recorder heard by name only is matched by
/// `plaud` anywhere in its name, in any case (PROTOCOL.md §1).
@Suite("Recognising a Note Pro and a NotePin S")
struct NewModelDiscoveryTests {
  static func advertisement(name: String?, data: [UInt8]? = nil) -> Advertisement {
    Advertisement(
      peripheral: PeripheralID("C0:43:00:00:00:01"), localName: name, manufacturerData: data,
      serviceUUIDs: [], rssi: -60)
  }

  @Test("a NotePin S payload without the project-code field: serial, model, portVersion 20")
  func notePinSPayload() throws {
    let payload = ManufacturerPayload(
      projectCode: 882, firmware: FirmwareVersion(type: 0x56, code: 66_055),
      serial: "883234567890123456", portVersion: 20, hasProjectCodeField: false)
    let device = try #require(
      RecorderScanner.recognise(
        Self.advertisement(
          name: "Plaud NotePin S", data: payload.manufacturerData(companyID: 0x005D))))
    #expect(device.serial == "883234567890123456")
    #expect(device.model == .notePinS)
    #expect(device.portVersion == 20)
    #expect(!device.isNameOnly)
  }

  @Test(
    "a name containing plaud in any case identifies a recorder; others do not",
    arguments: [
      ("Plaud NotePin S", true), ("plaud notepin s", true), ("PLAUD_NOTE", true),
      ("My PLAUD pin", true), ("notepin-plaud", true), ("Headphones", false), ("PLAU D", false),
    ])
  func names(name: String, recognised: Bool) {
    let device = RecorderScanner.recognise(Self.advertisement(name: name))
    #expect((device != nil) == recognised, "\(name)")
    #expect(device?.isNameOnly ?? true)
  }
}
