import RecorderKit
import RecorderProtocol
import Testing

/// The hotspot's SSID (PROTOCOL.md §6): reported in the WIFI_OPEN reply, else by model.
@Suite("Hotspot name by model")
struct HotspotNameTests {
  @Test("PLAUD for the Note, NotePin and an older Note Pro; Plaud for a newer Note Pro and 882")
  func byModel() {
    let serial = "8811234567890123"
    #expect(DeviceHotspot.ssid(serial: serial, model: .note, portVersion: 10) == "PLAUD0123")
    #expect(DeviceHotspot.ssid(serial: serial, model: .notePin, portVersion: 20) == "PLAUD0123")
    #expect(DeviceHotspot.ssid(serial: serial, model: .notePro, portVersion: 19) == "PLAUD0123")
    #expect(DeviceHotspot.ssid(serial: serial, model: .notePro, portVersion: 20) == "Plaud0123")
    #expect(DeviceHotspot.ssid(serial: serial, model: .notePinS, portVersion: 10) == "Plaud0123")
    // No model known: the serial's prefix names it.
    #expect(
      DeviceHotspot.ssid(serial: "8821234567890123", model: nil, portVersion: 10) == "Plaud0123")
    #expect(
      DeviceHotspot.ssid(serial: "8811234567890123", model: nil, portVersion: 20) == "Plaud0123")
    #expect(DeviceHotspot.ssid(serial: "ABC", model: nil, portVersion: 20) == "PLAUDABC")
  }

  @Test("a reported SSID wins over the model's rule; a tail that names nothing does not")
  func reported() {
    let password = Array("Ab3dEf7h".utf8)
    let named = WiFiOpenResponse(
      status: 0, password: password, ssidField: .lengthPrefixed(Array("Recorder AP".utf8)))
    #expect(
      DeviceHotspot.ssid(
        reportedIn: named, serial: "8881234567890123", model: .note, portVersion: 10)
        == "Recorder AP")
    let blank = WiFiOpenResponse(status: 0, password: password, ssidField: .text([0, 0]))
    #expect(
      DeviceHotspot.ssid(
        reportedIn: blank, serial: "8821234567890123", model: .notePinS, portVersion: 10)
        == "Plaud0123")
  }
}
