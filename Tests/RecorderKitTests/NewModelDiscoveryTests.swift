import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
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

  /// A NotePin S heard by name only: its portVersion is unknown, so it may speak Mode B and
  /// the token must not go to it in clear. Without a user key the session is refused before
  /// anything is written; with one it opens Mode B first and the HANDSHAKE goes sealed.
  @Test(
    "a NotePin S heard by name only is never sent the token in clear", arguments: [false, true])
  func nameOnlyNotePinS(withUserKey: Bool) async throws {
    var configuration = ModelPreset.notePinS.configuration
    configuration.advertising = .nameOnly
    let bench = try TestBench(configuration: configuration)
    defer { bench.cleanUp() }
    let device = try await bench.letTimePass { () async throws -> DiscoveredDevice in
      let advertisement = try #require(await bench.firstAdvertisement())
      return try #require(RecorderScanner.recognise(advertisement))
    }
    #expect(device.isNameOnly)
    var session = DeviceSession.Configuration(token: configuration.token)
    session.clock = AnyClock(bench.clock)
    session.modeB = withUserKey ? ModeBCredentials(userKey: try TestUserKey.key()) : nil
    let connected = await bench.letTimePass { () async -> Result<DeviceSession, DeviceError> in
      do throws(DeviceError) {
        return .success(
          try await DeviceSession.connect(to: device, using: bench.central, configuration: session))
      } catch {
        return .failure(error)
      }
    }
    #expect(await bench.device.counters.clearHandshakes == 0)
    switch connected {
    case .success(let opened):
      #expect(withUserKey)
      #expect(await opened.isEncrypted)
      #expect(await opened.info.serial == configuration.serial)
      #expect(await opened.info.portVersion == 20)
      await opened.close()
    case .failure(let error):
      #expect(!withUserKey, "\(error)")
      #expect(error == .modeB(.noUserKey))
      #expect(await bench.device.counters.writesReceived == 0)
    }
  }
}
