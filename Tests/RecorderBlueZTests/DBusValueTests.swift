#if os(Linux)
  import CDBus
  import RecorderBluetooth
  import Testing
  import TestSupport

  @testable import RecorderBlueZ

  /// D-Bus values through libdbus's marshalling and back, and the error words users see.
  @Suite("D-Bus values and BlueZ errors")
  struct DBusValueTests {
    /// A D-Bus type, to build values that share one (array elements must).
    indirect enum Kind: Sendable {
      case byte, bool, int16, uint16, int32, uint32, int64, uint64, string, objectPath, bytes
      case array(Kind)
      case dictionary(key: Kind, value: Kind)
      case structure([Kind])
      case variant

      static let basics: [Kind] = [
        .byte, .bool, .int16, .uint16, .int32, .uint32, .int64, .uint64, .string, .objectPath,
      ]

      var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .string: "s"
        case .objectPath: "o"
        case .bytes: "ay"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
      }
    }

    static func kind(depth: Int, _ random: inout SplitMix64) -> Kind {
      let roll = Int.random(in: 0..<(depth > 2 ? 11 : 16), using: &random)
      switch roll {
      case 0..<10: return Kind.basics[roll]
      case 10: return .bytes
      case 11:
        // `ay` reads back as `.bytes`: arrays of other kinds only.
        var element = kind(depth: depth + 1, &random)
        if case .byte = element { element = .uint16 }
        return .array(element)
      case 12:
        let keys: [Kind] = [.string, .uint16, .objectPath, .byte]
        return .dictionary(
          key: keys[Int.random(in: 0..<keys.count, using: &random)],
          value: kind(depth: depth + 1, &random))
      case 13, 14:
        return .structure(
          (0..<Int.random(in: 1...3, using: &random)).map { _ in kind(depth: depth + 1, &random) })
      default: return .variant
      }
    }

    static func value(_ kind: Kind, depth: Int, _ random: inout SplitMix64) -> DBusValue {
      switch kind {
      case .byte: return .byte(UInt8.random(in: 0...255, using: &random))
      case .bool: return .bool(Bool.random(using: &random))
      case .int16: return .int16(Int16.random(in: .min ... .max, using: &random))
      case .uint16: return .uint16(UInt16.random(in: 0 ... .max, using: &random))
      case .int32: return .int32(Int32.random(in: .min ... .max, using: &random))
      case .uint32: return .uint32(UInt32.random(in: 0 ... .max, using: &random))
      case .int64: return .int64(Int64.random(in: .min ... .max, using: &random))
      case .uint64: return .uint64(UInt64.random(in: 0 ... .max, using: &random))
      case .string:
        let alphabet = Array("aZ09 _-é✓🎙\u{1}")
        return .string(
          String(
            (0..<Int.random(in: 0...12, using: &random)).map { _ in
              alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
            }))
      case .objectPath:
        return .objectPath(
          "/org/bluez/hci\(Int.random(in: 0...3, using: &random))/dev_C0_"
            + String(UInt16.random(in: 0 ... .max, using: &random), radix: 16))
      case .bytes:
        return .bytes(
          (0..<Int.random(in: 0...300, using: &random)).map { _ in
            UInt8.random(in: 0...255, using: &random)
          })
      case .array(let element):
        return .array(
          elementSignature: element.signature,
          (0..<Int.random(in: 0...4, using: &random)).map { _ in
            value(element, depth: depth + 1, &random)
          })
      case .dictionary(let key, let valueKind):
        return .array(
          elementSignature: "{" + key.signature + valueKind.signature + "}",
          (0..<Int.random(in: 0...4, using: &random)).map { _ in
            .dictEntry(
              value(key, depth: depth + 1, &random), value(valueKind, depth: depth + 1, &random))
          })
      case .structure(let fields):
        return .structure(fields.map { value($0, depth: depth + 1, &random) })
      case .variant:
        let inner = Self.kind(depth: depth + 2, &random)
        return .variant(value(inner, depth: depth + 1, &random))
      }
    }

    @Test("seeded values survive libdbus marshalling unchanged")
    func roundTrip() throws {
      let seed = TestSeed.current
      var random = SplitMix64(seed: seed)
      for round in 0..<500 {
        let arguments = (0..<Int.random(in: 1...4, using: &random)).map { _ in
          Self.value(Self.kind(depth: 0, &random), depth: 0, &random)
        }
        let message = try #require(
          dbus_message_new_method_call("org.bluez", "/", "org.bluez.Test", "Echo"))
        defer { dbus_message_unref(message) }
        #expect(DBusValue.append(arguments, to: message), "round \(round), seed \(seed)")
        let read = DBusValue.arguments(of: message)
        #expect(read == arguments, "round \(round), seed \(seed)")
        if read != arguments { break }
      }
    }

    @Test("BlueZ's error names become link errors a user can act on")
    func errorMapping() {
      func failure(_ name: String) -> DBusFailure { DBusFailure(name: name, message: "m") }
      #expect(
        LinkError.bluez(failure("org.bluez.Error.NotPermitted"), during: "ReadValue")
          == .attError(0x02))
      #expect(
        LinkError.bluez(failure("org.bluez.Error.NotPermitted"), during: "WriteValue")
          == .attError(0x03))
      #expect(
        LinkError.bluez(failure("org.bluez.Error.NotAuthorized"), during: "ReadValue")
          == .attError(0x08))
      #expect(
        LinkError.bluez(failure("org.bluez.Error.NotConnected"), during: "x")
          == .disconnected(.linkLoss))
      #expect(
        LinkError.bluez(failure("org.bluez.Error.NotReady"), during: "x")
          == .notPoweredOn(.poweredOff))
      #expect(
        LinkError.bluez(failure("org.bluez.Error.AuthenticationFailed"), during: "x")
          == .disconnected(.pairingFailed))
      #expect(
        "\(LinkError.bluez(failure("org.freedesktop.DBus.Error.ServiceUnknown"), during: "x"))"
          .contains("bluetoothd is not running"))
      #expect(
        "\(LinkError.bluez(failure("org.freedesktop.DBus.Error.AccessDenied"), during: "Connect"))"
          .contains("`bluetooth`"))
      #expect(
        BlueZError.opening(failure("org.freedesktop.DBus.Error.ServiceUnknown"))
          == .bluetoothdNotRunning)
      #expect(
        BlueZError.opening(failure("org.freedesktop.DBus.Error.AccessDenied"))
          == .accessDenied("org.freedesktop.DBus.Error.AccessDenied: m"))
      #expect(
        "\(BlueZError.adapterNotFound("hci3", available: ["hci0"]))"
          == "no Bluetooth adapter hci3 (BlueZ has: hci0)")
    }

    @Test("BlueZ's UUID text and ours agree")
    func uuids() {
      let battery = BluetoothUUID(bluez: "0000180f-0000-1000-8000-00805f9b34fb")
      #expect(battery == RecorderGATT.batteryService)
      #expect(
        RecorderGATT.notifyCharacteristic.bluezString == "00002bb0-0000-1000-8000-00805f9b34fb")
      #expect(BluetoothUUID(bluez: "not-a-uuid") == nil)
    }
  }
#endif
