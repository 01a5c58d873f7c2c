import TestSupport
import Testing

@testable import RecorderProtocol

/// Seeded property: every generated value of every message and frame case, at every
/// portVersion whose layouts differ, survives encode → decode unchanged, and re-encoding the
/// decoded value gives the same bytes. Replay a failure with `RECORDER_TEST_SEED=<seed>`.
@Suite("Round-trip property (seeded)")
struct RoundTripPropertyTests {
  /// Rounds; each round checks one phone message, one device message and one frame.
  static let rounds = 4_000

  struct Failures {
    var seed: UInt64
    var count = 0

    mutating func record(_ what: String, portVersion: UInt16, _ value: Any, _ detail: String) {
      count += 1
      guard count <= 5 else { return }
      Issue.record(
        "\(what) check failed (RECORDER_TEST_SEED=\(seed), portVersion \(portVersion)): \(value) → \(detail)"
      )
    }
  }

  @Test("encode → decode → equal, ≥ 10 000 values over every case and portVersions 1–10")
  func roundTrip() {
    let seed = TestSeed.current
    var gen = Gen(seed: seed)
    var failures = Failures(seed: seed)
    var phoneSeen = Set<String>()
    var deviceSeen = Set<String>()
    var framesSeen = Set<String>()
    var checked = 0
    for round in 0..<Self.rounds {
      let portVersion = Gen.portVersions[round % Gen.portVersions.count]

      let phone = gen.phoneMessage(
        portVersion: portVersion, choice: gen.int(0...Gen.phoneCaseCount - 1))
      phoneSeen.insert(phone.name)
      checkPhone(phone, portVersion: portVersion, &failures)

      let device = gen.deviceMessage(
        portVersion: portVersion, choice: gen.int(0...Gen.deviceCaseCount - 1))
      deviceSeen.insert(device.name)
      checkDevice(device, portVersion: portVersion, &failures)

      let frame = gen.frame(portVersion: portVersion, choice: gen.int(0...Gen.frameCaseCount - 1))
      framesSeen.insert(frame.kindName)
      checkFrame(frame, portVersion: portVersion, &failures)
      checked += 3
      if failures.count > 20 { break }
    }
    #expect(checked >= 10_000)
    #expect(failures.count == 0, "\(failures.count) failures, RECORDER_TEST_SEED=\(seed)")
    #expect(phoneSeen.count == Gen.phoneCaseCount, "phone cases covered: \(phoneSeen.sorted())")
    #expect(deviceSeen.count == Gen.deviceCaseCount, "device cases covered: \(deviceSeen.sorted())")
    #expect(framesSeen.count == Gen.frameCaseCount, "frame kinds covered: \(framesSeen.sorted())")
  }

  func checkPhone(_ message: PhoneMessage, portVersion: UInt16, _ failures: inout Failures) {
    let wire = message.encoded(portVersion: portVersion)
    do {
      guard case .control(let control) = try Frame(decoding: wire, portVersion: portVersion) else {
        failures.record("P→D", portVersion: portVersion, message, "not a control frame")
        return
      }
      let decoded = try PhoneMessage(control, portVersion: portVersion)
      checkDescription(.control(control), .phoneToDevice, portVersion: portVersion, &failures)
      if decoded != message {
        failures.record("P→D", portVersion: portVersion, message, "\(decoded)")
      } else if decoded.encoded(portVersion: portVersion) != wire {
        failures.record("P→D", portVersion: portVersion, message, "different bytes")
      }
    } catch {
      failures.record(
        "P→D", portVersion: portVersion, message, "threw \(error), wire \(wire.hexString)")
    }
  }

  func checkDevice(_ message: DeviceMessage, portVersion: UInt16, _ failures: inout Failures) {
    let wire = message.encoded(portVersion: portVersion)
    do {
      guard case .control(let control) = try Frame(decoding: wire, portVersion: portVersion) else {
        failures.record("D→P", portVersion: portVersion, message, "not a control frame")
        return
      }
      let decoded = try DeviceMessage(control, portVersion: portVersion)
      checkDescription(.control(control), .deviceToPhone, portVersion: portVersion, &failures)
      if decoded != message {
        failures.record("D→P", portVersion: portVersion, message, "\(decoded)")
      } else if decoded.encoded(portVersion: portVersion) != wire {
        failures.record("D→P", portVersion: portVersion, message, "different bytes")
      }
    } catch {
      failures.record(
        "D→P", portVersion: portVersion, message, "threw \(error), wire \(wire.hexString)")
    }
  }

  /// `recorder decode` prints these fields as `name: value` lines and as one JSON object:
  /// a name used twice would make both ambiguous (JSON keeps only one of them).
  func checkDescription(
    _ frame: Frame, _ direction: Direction, portVersion: UInt16, _ failures: inout Failures
  ) {
    do {
      let fields = try frame.describe(direction: direction, portVersion: portVersion)
      let names = fields.map(\.name)
      if Set(names).count != names.count || names.first != "kind" {
        failures.record("describe", portVersion: portVersion, frame, "field names \(names)")
      }
    } catch {
      failures.record("describe", portVersion: portVersion, frame, "threw \(error)")
    }
  }

  func checkFrame(_ frame: Frame, portVersion: UInt16, _ failures: inout Failures) {
    let wire = frame.encoded(portVersion: portVersion)
    do {
      let decoded = try Frame(decoding: wire, portVersion: portVersion)
      if decoded != frame {
        failures.record("frame", portVersion: portVersion, frame, "\(decoded)")
      } else if decoded.encoded(portVersion: portVersion) != wire {
        failures.record("frame", portVersion: portVersion, frame, "different bytes")
      }
      // Every valid frame can be shown both ways without trapping.
      for direction in Direction.allCases {
        _ = try? decoded.describe(direction: direction, portVersion: portVersion)
      }
    } catch {
      failures.record(
        "frame", portVersion: portVersion, frame, "threw \(error), wire \(wire.hexString)")
    }
  }
}
