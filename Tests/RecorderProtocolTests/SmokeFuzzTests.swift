import Foundation
import TestSupport
import Testing

@testable import RecorderProtocol

/// A quick in-process fuzz (the libFuzzer target, `make fuzz`, goes deeper): seeded random
/// byte strings, biased towards valid kinds and opcodes, through every decoder. Nothing may
/// trap, and whatever decodes must re-encode to an equal value. Replay with
/// `RECORDER_TEST_SEED=<seed>`.
@Suite("Smoke fuzz (seeded)")
struct SmokeFuzzTests {
  /// 20 000 under `make tsan` (RECORDER_TEST_SCALE=small), where each input costs ~50×.
  static let inputs =
    ProcessInfo.processInfo.environment["RECORDER_TEST_SCALE"] == "small" ? 20_000 : 200_000

  /// Every opcode RecorderProtocol names, so most control frames reach a payload decoder.
  static let opcodes: [UInt16] = [
    0x0001, 0x0002, 0x0003, 0x0004, 0x0005, 0x0006, 0x0008, 0x0009, 0x000A, 0x000D, 0x0067,
    0x0068, 0x0069, 0x006B, 0x006C, 0x006D, 0x006E, 0x0014, 0x0015, 0x0016, 0x0017, 0x001A,
    0x001C, 0x001D, 0x001E, 0x001F, 0x0018, 0x0019, 0x0021, 0x0022, 0x0026, 0x0032, 0x0033,
    0x0034, 0x0036, 0x0097, 0x0070, 0x0071, 0x0072, 0x0074, 0x0075,
  ]

  static func input(_ gen: inout Gen) -> [UInt8] {
    let length = gen.bool() ? gen.int(0...32) : gen.int(0...300)
    var bytes = gen.bytes(length...length)
    guard !bytes.isEmpty else { return bytes }
    switch gen.int(0...19) {
    case 0..<7:
      bytes[0] = 0x01
      if bytes.count >= 3, !gen.oneIn(6) {
        let opcode = gen.element(opcodes)
        bytes[1] = UInt8(opcode & 0xFF)
        bytes[2] = UInt8(opcode >> 8)
      }
    case 7..<10: bytes[0] = 0x02
    case 10..<12: bytes[0] = 0x03
    case 12: bytes[0] = 0x04
    case 13..<15: bytes[0] = 0x05
    case 15..<17:
      bytes[0] = gen.element([0x10, 0x11, 0x12, 0x20])
      if bytes.count >= 2, !gen.oneIn(4) { bytes[1] = 0xFE }
    default: break
    }
    // Length bytes near the real data length find the off-by-ones.
    if bytes.count > 10, gen.bool() {
      let lengthIndex = bytes[0] == 0x05 ? 6 : bytes[0] == 0x03 ? 5 : 9
      bytes[lengthIndex] = UInt8(clamping: bytes.count - lengthIndex - 1 + gen.int(-1...1))
    }
    return bytes
  }

  @Test("200 000 random frames: no trap, decoded values re-encode equal")
  func smoke() {
    let seed = TestSeed.current &+ 1
    var gen = Gen(seed: seed)
    var failures = 0
    var decodedCount = 0
    func fail(_ text: String) {
      failures += 1
      if failures <= 5 { Issue.record("RECORDER_TEST_SEED=\(seed &- 1): \(text)") }
    }
    let started = Date()
    for _ in 0..<Self.inputs {
      let bytes = Self.input(&gen)
      let portVersion = gen.element(Gen.portVersions)
      let frame: Frame
      do {
        frame = try Frame(decoding: bytes, portVersion: portVersion)
      } catch {
        if error.description.contains("\n") { fail("multi-line error for \(bytes.hexString)") }
        continue
      }
      decodedCount += 1
      let reencoded = frame.encoded(portVersion: portVersion)
      if (try? Frame(decoding: reencoded, portVersion: portVersion)) != frame {
        fail("frame \(bytes.hexString) at portVersion \(portVersion) re-encodes differently")
      }
      for direction in Direction.allCases {
        guard let fields = try? frame.describe(direction: direction, portVersion: portVersion)
        else { continue }
        // Only control payloads vary their field names; the other kinds have fixed lists.
        if case .control = frame, Set(fields.map(\.name)).count != fields.count {
          fail("\(bytes.hexString) from \(direction.rawValue) repeats a field name")
        }
      }
      guard case .control(let control) = frame else { continue }
      if let message = try? PhoneMessage(control, portVersion: portVersion) {
        let again = try? PhoneMessage(
          message.frame(portVersion: portVersion), portVersion: portVersion)
        if again != message {
          fail("P→D \(bytes.hexString) at portVersion \(portVersion): \(message)")
        }
      }
      if let message = try? DeviceMessage(control, portVersion: portVersion) {
        let again = try? DeviceMessage(
          message.frame(portVersion: portVersion), portVersion: portVersion)
        if again != message {
          fail("D→P \(bytes.hexString) at portVersion \(portVersion): \(message)")
        }
      }
    }
    #expect(failures == 0, "\(failures) failures, RECORDER_TEST_SEED=\(seed &- 1)")
    #expect(decodedCount > Self.inputs / 4, "the bias should make most inputs decode")
    print(
      "smoke fuzz: \(Self.inputs) inputs, \(decodedCount) frames decoded, seed \(seed &- 1), "
        + "\(String(format: "%.1f", Date().timeIntervalSince(started))) s")
  }
}
