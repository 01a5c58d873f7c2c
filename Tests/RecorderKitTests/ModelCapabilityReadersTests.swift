import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderProtocol
import Testing

@testable import RecorderKit

/// RecorderKit's and the emulator's readers of the capability table (`ModelCapabilities`):
/// each answers what the table says, including for the prefix the former tables disagreed on
/// (883, a NotePin S).
@Suite("Readers of the model capability table")
struct ModelCapabilityReadersTests {
  @Test("CloudDeviceType is a view of the table's cloud types")
  func cloudDeviceType() {
    #expect(CloudDeviceType.allCases.map(\.rawValue) == ["note", "notepin", "notepro", "notepins"])
    #expect(CloudDeviceType(serial: "8831234567890123") == .notepins)
    #expect(CloudDeviceType(serial: "8841234567890123") == .note)
    #expect(CloudDeviceType(serial: "") == .note)
    for model in RecorderModel.allCases {
      #expect(CloudDeviceType(model: model).rawValue == model.capabilities.cloudDeviceType)
    }
    #expect(CloudDeviceType(rawValue: "notepins") == .notepins)
    #expect(CloudDeviceType(rawValue: "NotePinS") == nil)
    #expect(CloudDeviceType(rawValue: "") == nil)
    #expect("\(CloudDeviceType.notepro)" == "notepro")
  }

  @Test("the cloud emulator types a serial as the SDK does")
  func cloudEmulatorType() {
    for prefix in ["880", "881", "882", "883", "888", "884", "ABC", ""] {
      let serial = prefix + "1234567890123"
      #expect(CloudEmulator.deviceType(serial) == CloudDeviceType(serial: serial).rawValue)
    }
    #expect(CloudEmulator.deviceType("8831234567890123") == "notepins")
  }

  @Test("the SDK's and the emulator's hotspot names follow the row's rule, 883 as a NotePin S")
  func hotspotNames() {
    #expect(
      DeviceHotspot.ssid(serial: "8831234567890123", model: nil, portVersion: 10) == "Plaud0123")
    #expect(
      DeviceHotspot.ssid(serial: "8841234567890123", model: nil, portVersion: 20) == "PLAUD0123")
    let cases: [(RecorderModel, UInt16, String)] = [
      (.note, 10, "PLAUD"), (.notePin, 20, "PLAUD"), (.notePro, 19, "PLAUD"),
      (.notePro, 20, "Plaud"), (.notePinS, 10, "Plaud"),
    ]
    for (model, portVersion, prefix) in cases {
      let serial = "\(model.rawValue)1234567890123"
      #expect(
        DeviceHotspot.ssid(serial: serial, model: model, portVersion: portVersion)
          == prefix + "0123")
    }
  }

  @Test("emulator presets take their identity from the rows")
  func presets() {
    let expected: [(ModelPreset, String, String, UInt16, Bool, Bool)] = [
      (.note, "8881234567890123", "PLAUD_NOTE", 10, true, false),
      (.notePro, "881234567890123456", "Plaud Note Pro", 20, true, false),
      (.notePinS, "882234567890123456", "Plaud NotePin S", 20, false, true),
    ]
    for (preset, serial, name, portVersion, projectCode, e2ee) in expected {
      #expect(preset.serial == serial)
      #expect(preset.name == name)
      #expect(preset.portVersion == portVersion)
      #expect(preset.advertisesProjectCode == projectCode)
      #expect(preset.encryptsToOwnerKey == e2ee)
      #expect(preset.companyID == preset.capabilities.advertising.companyID)
    }
    let defaults = DeviceConfiguration()
    #expect(defaults.serial == "8881234567890123")
    #expect(defaults.name == "PLAUD_NOTE")
    #expect(defaults.firmware == FirmwareVersion(type: 0x56, code: 95))
  }

  @Test(
    "a session asks the model's MTU unless its configuration names one",
    arguments: [nil, 100] as [Int?])
  func requestedMTU(configured: Int?) async throws {
    var configuration = DeviceConfiguration(seed: 3)
    configuration.link.deviceMaximumMTU = 517
    let bench = try EmulatorBench(configuration: configuration)
    defer { bench.cleanUp() }
    let found = try await RecorderScanner(central: bench.central, clock: AnyClock(bench.clock))
      .find(serial: bench.device.serial, timeout: .seconds(10))
    var sessionConfiguration = bench.configuration()
    sessionConfiguration.mtu = configured
    let session = try await DeviceSession.connect(
      to: found, using: bench.central, configuration: sessionConfiguration)
    // Write without response carries MTU − 3 bytes.
    let asked = configured ?? 255
    #expect(await session.maximumWriteLength() == asked - 3)
    await session.close()
  }
}

extension ModelCapabilityReadersTests {
  @Test("a discovered device and a session's device info name their row")
  func rowsOfDevices() {
    func heard(name: String?, serial: String?, model: RecorderModel?) -> DiscoveredDevice {
      DiscoveredDevice(
        peripheral: PeripheralID("p"), name: name, serial: serial, model: model,
        projectCode: model?.rawValue, firmware: nil, portVersion: nil, rssi: -50)
    }
    #expect(heard(name: nil, serial: "8881234567890123", model: .note).capabilities == .note)
    // The model given wins over the serial's prefix.
    #expect(heard(name: nil, serial: "8881234567890123", model: .notePro).capabilities == .notePro)
    #expect(heard(name: nil, serial: "8831234567890123", model: nil).capabilities == .notePinS)
    #expect(heard(name: "plaud notepin s", serial: nil, model: nil).capabilities == .notePinS)
    #expect(heard(name: "Plaud", serial: nil, model: nil).capabilities == nil)
    #expect(heard(name: nil, serial: "1234", model: nil).capabilities == nil)
    let info = DeviceInfo(
      serial: "8811234567890123", model: nil, name: "", firmware: nil, portVersion: 20,
      audioChannels: 1, supportsWiFi: true, oggAudio: false, battery: BatteryStatus(level: 50),
      storage: StorageInfo(freeBytes: 0, totalBytes: 0), state: DeviceState(state: 0, privacy: 0))
    #expect(info.capabilities == .notePro)
  }
}
