#if os(Linux)
  import Testing

  @testable import RecorderBlueZ

  /// NetworkManager's replies and signals read defensively: a value of the wrong type, a
  /// missing key, an out-of-range number or a short argument list reads as absent (and the
  /// join treats it as "not this one" or "not yet"), never as a crash or a wrong answer.
  @Suite("NetworkManager replies with hostile values")
  struct NetworkManagerPropertiesTests {
    typealias NM = NetworkManagerProperties

    static func dictionary(_ entries: [String: DBusValue]) -> DBusValue { .options(entries) }

    @Test("device GetAll: wrong types and missing keys are not a usable Wi-Fi device")
    func device() {
      let good = Self.dictionary([
        "DeviceType": .uint32(2), "State": .uint32(30), "Interface": .string("wlan0"),
      ])
      #expect(NM.Device(good)?.isWiFi == true)
      #expect(NM.Device(.variant(good))?.isWiFi == true)
      #expect(NM.Device(good)?.usable == true)
      #expect(NM.Device(good)?.interface == "wlan0")
      // Wrong type for DeviceType (a string, an int32), missing State, not a dictionary.
      #expect(
        NM.Device(Self.dictionary(["DeviceType": .string("2"), "State": .uint32(30)])) == nil)
      #expect(NM.Device(Self.dictionary(["DeviceType": .int32(2), "State": .uint32(30)])) == nil)
      #expect(NM.Device(Self.dictionary(["DeviceType": .uint32(2)])) == nil)
      #expect(NM.Device(.string("a{sv}")) == nil)
      #expect(NM.Device(nil) == nil)
      #expect(NM.Device(.array(elementSignature: "{sv}", [.string("not an entry")])) == nil)
      // Unavailable (rfkill) or unmanaged: not usable; an interface of the wrong type: "".
      #expect(
        NM.Device(Self.dictionary(["DeviceType": .uint32(2), "State": .uint32(20)]))?.usable
          == false)
      #expect(
        NM.Device(Self.dictionary(["DeviceType": .uint32(2), "State": .uint32(10)]))?.usable
          == false)
      #expect(
        NM.Device(
          Self.dictionary([
            "DeviceType": .uint32(2), "State": .uint32(30), "Interface": .uint32(7),
          ]))?.interface == "")
      #expect(
        NM.Device(Self.dictionary(["DeviceType": .uint32(1), "State": .uint32(100)]))?.isWiFi
          == false)
    }

    @Test("object paths: only `o`, never a string; \"/\" is none")
    func paths() {
      #expect(
        NM.objectPaths(.array(elementSignature: "o", [.objectPath("/a"), .objectPath("/b")])) == [
          "/a", "/b",
        ])
      #expect(NM.objectPaths(.array(elementSignature: "s", [.string("/a")])) == nil)
      #expect(
        NM.objectPaths(.array(elementSignature: "v", [.variant(.objectPath("/a"))])) == ["/a"])
      #expect(NM.objectPaths(.uint32(1)) == nil)
      #expect(NM.objectPaths(nil) == nil)
      #expect(NM.objectPath(.objectPath("/")) == nil)
      #expect(NM.objectPath(.string("/org/x")) == nil)
      #expect(NM.objectPath(.variant(.objectPath("/org/x"))) == "/org/x")
    }

    @Test("SSID: `ay` of at most 32 bytes, nothing else")
    func ssid() {
      #expect(NM.ssid(.variant(.bytes(Array("PLAUD1234".utf8)))) == Array("PLAUD1234".utf8))
      #expect(NM.ssid(.bytes([UInt8](repeating: 0x41, count: 33))) == nil)
      #expect(NM.ssid(.string("PLAUD1234")) == nil)
      #expect(NM.ssid(.array(elementSignature: "u", [.uint32(80)])) == nil)
      #expect(NM.ssid(nil) == nil)
      #expect(NM.ssid(.bytes([])) == [])
    }

    @Test("StateChanged signals: short, mistyped or unknown states are ignored")
    func stateChanges() {
      #expect(NM.activeStateChange([.uint32(4), .uint32(9)])! == (.deactivated, 9))
      #expect(NM.activeStateChange([.uint32(4)]) == nil)
      #expect(NM.activeStateChange([]) == nil)
      #expect(NM.activeStateChange([.int32(4), .uint32(9)]) == nil)
      #expect(NM.activeStateChange([.uint32(99), .uint32(9)]) == nil)
      #expect(NM.activeStateChange([.uint32(2), .string("none")]) == nil)
      #expect(NM.deviceStateChange([.uint32(120), .uint32(50), .uint32(7)])! == (120, 7))
      #expect(NM.deviceStateChange([.uint32(120), .uint32(50)]) == nil)
      #expect(NM.deviceStateChange([.uint32(120), .uint32(50), .byte(7)]) == nil)
    }

    @Test("AddAndActivateConnection2 reply and NameOwnerChanged: shapes checked")
    func replies() {
      #expect(
        NM.addAndActivateReply([.objectPath("/c/1"), .objectPath("/a/1"), Self.dictionary([:])])!
          == ("/c/1", "/a/1"))
      #expect(NM.addAndActivateReply([.objectPath("/c/1")]) == nil)
      #expect(NM.addAndActivateReply([.string("/c/1"), .objectPath("/a/1")]) == nil)
      #expect(NM.addAndActivateReply([.objectPath("/c/1"), .objectPath("/")]) == nil)
      let name = NM.service
      #expect(
        NM.ownerChange([.string(name), .string(":1.4"), .string("")], of: name)! == (":1.4", ""))
      #expect(
        NM.ownerChange([.string("org.other"), .string(""), .string(":1.5")], of: name) == nil)
      #expect(NM.ownerChange([.string(name), .string("")], of: name) == nil)
      #expect(NM.ownerChange([.string(name), .uint32(0), .string(":1.5")], of: name) == nil)
    }

    @Test("IP4Config: only well-formed IPv4 addresses and prefixes 0–32 are taken")
    func ipv4() {
      func entry(_ fields: [String: DBusValue]) -> DBusValue {
        .array(
          elementSignature: "{sv}", fields.map { .dictEntry(.string($0.key), .variant($0.value)) })
      }
      let good = entry(["address": .string("192.168.4.2"), "prefix": .uint32(24)])
      #expect(NM.firstAddress(.array(elementSignature: "a{sv}", [good]))! == ("192.168.4.2", 24))
      let hostile: [DBusValue] = [
        entry(["address": .string("999.1.1.1"), "prefix": .uint32(24)]),
        entry(["address": .string("192.168.4.2"), "prefix": .uint32(33)]),
        entry(["address": .string("192.168.4.2"), "prefix": .int32(24)]),
        entry(["address": .uint32(0xC0A8_0402), "prefix": .uint32(24)]),
        entry(["prefix": .uint32(24)]),
        entry(["address": .string("1.2.3.4.5"), "prefix": .uint32(24)]),
        entry(["address": .string("1.2.3.٤"), "prefix": .uint32(24)]),
        .string("not an entry"),
      ]
      #expect(NM.firstAddress(.array(elementSignature: "a{sv}", hostile)) == nil)
      // A hostile entry first does not hide a good one after it.
      #expect(
        NM.firstAddress(.array(elementSignature: "a{sv}", hostile + [good]))?.address
          == "192.168.4.2")
      #expect(NM.firstAddress(.string("192.168.4.2")) == nil)
      #expect(NM.gateway(.variant(.string("192.168.4.1"))) == "192.168.4.1")
      #expect(NM.gateway(.string("")) == nil)
      #expect(NM.gateway(.string("gateway; rm -rf /")) == nil)
      #expect(NM.gateway(.uint32(1)) == nil)
      #expect(NM.netmask(prefix: 24) == "255.255.255.0")
      #expect(NM.netmask(prefix: 0) == "0.0.0.0")
      #expect(NM.netmask(prefix: 32) == "255.255.255.255")
      #expect(NM.netmask(prefix: 99) == "255.255.255.255")
    }

    @Test("activation reasons: NO_SECRETS and supplicant failures are a refused password")
    func reasons() {
      let noSecrets = NetworkManagerClient.activationError(
        ssid: "PLAUD1", reason: 9, deviceReason: nil)
      #expect(noSecrets == .passwordRefused(ssid: "PLAUD1", reason: "no secrets"))
      #expect(noSecrets.description.contains("the device refused the password"))
      #expect(
        NetworkManagerClient.activationError(ssid: "PLAUD1", reason: 3, deviceReason: 8)
          == .passwordRefused(ssid: "PLAUD1", reason: "supplicant disconnected"))
      #expect(
        NetworkManagerClient.activationError(ssid: "PLAUD1", reason: 3, deviceReason: 53)
          == .activationFailed(ssid: "PLAUD1", reason: "device disconnected (SSID not found)"))
      #expect(
        NetworkManagerClient.activationError(ssid: "PLAUD1", reason: 4_000_000, deviceReason: nil)
          == .activationFailed(ssid: "PLAUD1", reason: "reason 4000000"))
    }

    @Test("a D-Bus error that echoes the password is scrubbed before it becomes an error")
    func secretScrubbed() {
      let failure = DBusFailure(
        name: "org.freedesktop.NetworkManager.Settings.InvalidConnection",
        message: "802-11-wireless-security.psk: 'hunter22' is not valid")
      let error = NetworkManagerError.failed(
        failure, during: "AddAndActivateConnection2", secret: "hunter22")
      #expect(!error.description.contains("hunter22"))
      #expect(error.description.contains("<redacted>"))
      #expect(
        NetworkManagerError.failed(
          DBusFailure(name: "org.freedesktop.NetworkManager.PermissionDenied", message: "no"),
          during: "x", secret: nil
        ).description.contains("polkit"))
      #expect(
        NetworkManagerError.failed(
          DBusFailure(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no such method"),
          during: "AddAndActivateConnection2", secret: nil)
          == .unsupported(
            "AddAndActivateConnection2: org.freedesktop.DBus.Error.UnknownMethod: no such method"))
    }

    @Test("our connection's settings: autoconnect off, WPA-PSK, the SSID as bytes")
    func settings() throws {
      let settings = NetworkManagerClient.settings(
        ssid: "PLAUD1234", password: "pw", id: "recorder-PLAUD1234-0", uuid: "u")
      #expect(settings.signature == "a{sa{sv}}")
      let sections = try #require(settings.stringDictionary)
      let connection = try #require(sections["connection"]?.stringDictionary)
      #expect(connection["autoconnect"]?.boolValue == false)
      #expect(connection["type"]?.stringValue == "802-11-wireless")
      #expect(
        sections["802-11-wireless"]?.stringDictionary?["ssid"]?.bytesValue
          == Array("PLAUD1234".utf8))
      #expect(
        sections["802-11-wireless-security"]?.stringDictionary?["key-mgmt"]?.stringValue
          == "wpa-psk")
    }
  }
#endif
