import RecorderBluetooth
import TestSupport
import Testing

@testable import RecorderRemoteLink

extension Gen {
  mutating func uuid() -> BluetoothUUID {
    bool() ? BluetoothUUID(u16()) : (BluetoothUUID(bytes: bytes(16...16)) ?? BluetoothUUID(0))
  }
  mutating func peripheral() -> PeripheralID { PeripheralID(text(maxBytes: 40)) }
  mutating func reason() -> DisconnectReason {
    element([
      .localRequest, .remoteTerminated, .linkLoss, .pairingFailed, .other(text(maxBytes: 30)),
    ])
  }
  mutating func centralState() -> CentralState {
    element([.unknown, .resetting, .unsupported, .unauthorized, .poweredOff, .poweredOn])
  }
  mutating func bond() -> BondState { element([.none, .bonding, .bonded]) }
  mutating func writeType() -> WriteType { bool() ? .withResponse : .withoutResponse }
  mutating func linkError() -> LinkError {
    switch int(0...7) {
    case 0: .notPoweredOn(centralState())
    case 1: .unknownPeripheral(peripheral())
    case 2: .connectTimeout
    case 3: .disconnected(reason())
    case 4: .characteristicNotFound(uuid())
    case 5: .attError(u8())
    case 6: .valueTooLong(length: Int(u32()), maximum: Int(u32()))
    default: .transport(text(maxBytes: 50))
    }
  }
  mutating func advertisement() -> Advertisement {
    Advertisement(
      peripheral: peripheral(), localName: maybe { $0.text(maxBytes: 29) },
      manufacturerData: maybe { $0.bytes(0...31) },
      serviceUUIDs: (0..<int(0...3)).map { _ in uuid() },
      rssi: int(-128...20), isConnectable: bool())
  }
  mutating func event() -> LinkEvent {
    switch int(0...3) {
    case 0: .notification(characteristic: uuid(), value: bytes(0...300))
    case 1: .readyToSendWriteWithoutResponse
    case 2: .bondStateChanged(bond())
    default: .disconnected(reason())
    }
  }

  /// One message of the type with index `kind` (0 ..< ``messageKinds``).
  mutating func message(kind: Int) -> TCPLinkMessage {
    switch kind {
    case 0: .hello(version: u16())
    case 1: .goodbye(reason: text(maxBytes: 80))
    case 2: .getState(request: u32())
    case 3:
      .startScan(scan: u32(), services: maybe { g in (0..<g.int(0...4)).map { _ in g.uuid() } })
    case 4: .stopScan(scan: u32())
    case 5: .connect(request: u32(), peripheral: peripheral(), timeoutNanoseconds: u64())
    case 6: .getRestoredPeripherals(request: u32())
    case 7: .requestMTU(request: u32(), link: u32(), mtu: u32())
    case 8: .getMaximumWriteLength(request: u32(), link: u32(), type: writeType())
    case 9: .read(request: u32(), link: u32(), characteristic: uuid())
    case 10:
      .write(
        request: u32(), link: u32(), characteristic: uuid(), type: writeType(),
        value: bytes(0...600))
    case 11: .setNotifications(request: u32(), link: u32(), characteristic: uuid(), enabled: bool())
    case 12: .getBondState(request: u32(), link: u32())
    case 13: .disconnect(request: u32(), link: u32())
    case 14: .stateReply(request: u32(), state: centralState())
    case 15: .connected(request: u32(), link: u32())
    case 16:
      .peripheralsReply(request: u32(), peripherals: (0..<int(0...4)).map { _ in peripheral() })
    case 17: .integerReply(request: u32(), value: u32())
    case 18: .valueReply(request: u32(), value: bytes(0...600))
    case 19: .doneReply(request: u32())
    case 20: .bondStateReply(request: u32(), state: bond())
    case 21: .errorReply(request: u32(), error: linkError())
    case 22: .advertisement(scan: u32(), advertisement())
    case 23: .scanEnded(scan: u32())
    default: .event(link: u32(), event())
    }
  }
  static let messageKinds = 25
}

@Suite("TCP link message codec")
struct TCPLinkMessageTests {
  @Test func everyMessageSurvivesARoundTripThroughTheStreamDecoder() throws {
    let seed = TestSeed.current
    var gen = Gen(seed: seed)
    var decoder = TCPLinkMessageDecoder()
    for round in 0..<4000 {
      let message = gen.message(kind: round % (Gen.messageKinds + 3))
      let wire = message.encoded()
      // Split at a random point to exercise partial reads.
      let cut = gen.int(0...wire.count)
      decoder.append(wire[..<cut])
      if cut < 4 + 1 { #expect(try decoder.next() == nil, "seed \(seed)") }
      decoder.append(wire[cut...])
      let decoded = try decoder.next()
      #expect(decoded == message, "seed \(seed) (RECORDER_TEST_SEED=\(seed)), round \(round)")
      #expect(try decoder.next() == nil, "seed \(seed)")
    }
    #expect(decoder.bufferedCount == 0)
  }

  /// The worked example of docs/tcp-link.md, byte for byte.
  @Test func docsWorkedExamples() throws {
    #expect(
      TCPLinkMessage.connect(
        request: 1, peripheral: PeripheralID("echo1"), timeoutNanoseconds: 1_000_000_000
      ).encoded() == [
        0x14, 0, 0, 0, 0x13, 1, 0, 0, 0, 0x00, 0xCA, 0x9A, 0x3B, 0, 0, 0, 0,
        5, 0, 0x65, 0x63, 0x68, 0x6F, 0x31,
      ])
    let hello = TCPLinkMessage.hello(version: 1).encoded()
    #expect(hello == [0x07, 0, 0, 0, 0x01, 0x52, 0x4B, 0x54, 0x4C, 0x01, 0x00])
    let write = TCPLinkMessage.write(
      request: 7, link: 1, characteristic: RecorderGATT.writeCharacteristic, type: .withoutResponse,
      value: [0x01, 0x02])
    #expect(
      write.encoded() == [
        0x20, 0, 0, 0, 0x23, 7, 0, 0, 0, 1, 0, 0, 0,
        0x00, 0x00, 0x2B, 0xB1, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34,
        0xFB,
        0x01, 2, 0, 0, 0, 0x01, 0x02,
      ])
    let notification = TCPLinkMessage.event(
      link: 1, .notification(characteristic: RecorderGATT.notifyCharacteristic, value: [0xAA]))
    #expect(
      notification.encoded() == [
        0x1A, 0, 0, 0, 0xA2, 1, 0, 0, 0,
        0x00, 0x00, 0x2B, 0xB0, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0x80, 0x5F, 0x9B, 0x34,
        0xFB,
        1, 0, 0, 0, 0xAA,
      ])
    #expect(
      TCPLinkMessage.event(link: 1, .disconnected(.linkLoss)).encoded()
        == [0x06, 0, 0, 0, 0xA5, 1, 0, 0, 0, 0x02])
  }

  @Test func overlongStringsAreClampedNotTrapped() throws {
    let long = String(repeating: "日", count: 30_000)  // 90 000 bytes
    let wire = TCPLinkMessage.goodbye(reason: long).encoded()
    var decoder = TCPLinkMessageDecoder()
    decoder.append(wire)
    guard case .goodbye(let reason) = try decoder.next() else {
      Issue.record("not a goodbye")
      return
    }
    #expect(reason.utf8.count <= 65_535)
    #expect(long.hasPrefix(reason))
  }
}

/// One malformed input and the exact error it must give.
struct MalformedMessage: Sendable, CustomTestStringConvertible {
  var name: String
  var wire: [UInt8]
  var error: TCPLinkMessageError
  init(_ name: String, _ wire: [UInt8], _ error: TCPLinkMessageError) {
    self.name = name
    self.wire = wire
    self.error = error
  }
  var testDescription: String { name }
}

private func frame(_ body: [UInt8]) -> [UInt8] {
  withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init) + body
}
private let uuid = RecorderGATT.writeCharacteristic.bytes

let malformedMessages: [MalformedMessage] = [
  MalformedMessage("length 0", [0, 0, 0, 0], .emptyMessage),
  MalformedMessage(
    "length above 1 MiB, refused before the body arrives", [0x01, 0x00, 0x10, 0x00],
    .oversized(length: 0x10_0001, maximum: 1 << 20)),
  MalformedMessage(
    "length 0xFFFFFFFF", [0xFF, 0xFF, 0xFF, 0xFF], .oversized(length: .max, maximum: 1 << 20)),
  MalformedMessage("unknown type 0x00", frame([0x00]), .unknownType(0x00)),
  MalformedMessage("unknown type 0xFF", frame([0xFF, 1, 2]), .unknownType(0xFF)),
  MalformedMessage(
    "hello without magic", frame([0x01, 0x47, 0x45, 0x54, 0x20, 1, 0]),
    .badMagic([0x47, 0x45, 0x54, 0x20])),
  MalformedMessage(
    "hello cut in its version", frame([0x01, 0x52, 0x4B, 0x54, 0x4C, 1]),
    .truncated(field: "version", needed: 2, available: 1)),
  MalformedMessage(
    "getState with a short request id", frame([0x10, 1, 2]),
    .truncated(field: "request", needed: 4, available: 2)),
  MalformedMessage(
    "trailing byte after doneReply", frame([0x86, 1, 0, 0, 0, 9]),
    .trailingBytes(type: 0x86, count: 1)),
  MalformedMessage(
    "value length past the end (no allocation)",
    frame([0x85, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F, 1, 2]),
    .truncated(field: "value", needed: 0x7FFF_FFFF, available: 2)),
  MalformedMessage(
    "string length past the end", frame([0x02, 0x10, 0x00, 0x41]),
    .truncated(field: "reason", needed: 16, available: 1)),
  MalformedMessage(
    "invalid UTF-8 in goodbye", frame([0x02, 2, 0, 0xC3, 0x28]), .invalidUTF8(field: "reason")),
  MalformedMessage(
    "write type 2", frame([0x23, 1, 0, 0, 0, 1, 0, 0, 0] + uuid + [2, 0, 0, 0, 0]),
    .invalidValue(field: "write type", value: 2)),
  MalformedMessage(
    "setNotifications enabled = 2", frame([0x24, 1, 0, 0, 0, 1, 0, 0, 0] + uuid + [2]),
    .invalidValue(field: "enabled", value: 2)),
  MalformedMessage(
    "central state 6", frame([0x81, 1, 0, 0, 0, 6]), .invalidValue(field: "central state", value: 6)
  ),
  MalformedMessage(
    "bond state 3", frame([0x87, 1, 0, 0, 0, 3]), .invalidValue(field: "bond state", value: 3)),
  MalformedMessage(
    "disconnect reason 5", frame([0xA5, 1, 0, 0, 0, 5]),
    .invalidValue(field: "disconnect reason", value: 5)),
  MalformedMessage(
    "error code 8", frame([0x8F, 1, 0, 0, 0, 8]), .invalidValue(field: "error code", value: 8)),
  MalformedMessage(
    "advertisement with unknown flag bits", frame([0xA0, 1, 0, 0, 0, 0x08, 0, 0, 0, 0, 0]),
    .invalidValue(field: "advertisement flags", value: 8)),
  MalformedMessage(
    "scan filter with 2 services but 1 present", frame([0x11, 1, 0, 0, 0, 1, 2] + uuid),
    .truncated(field: "service", needed: 16, available: 0)),
  MalformedMessage(
    "UUID cut short", frame([0x22, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x2B]),
    .truncated(field: "characteristic", needed: 16, available: 3)),
]

@Suite("TCP link malformed messages")
struct TCPLinkMalformedMessageTests {
  @Test(arguments: malformedMessages)
  func malformedMessageGivesItsTypedError(_ sample: MalformedMessage) {
    var decoder = TCPLinkMessageDecoder()
    decoder.append(sample.wire)
    #expect(throws: sample.error) { _ = try decoder.next() }
  }

  @Test func randomBytesNeverCrashTheDecoder() {
    let seed = TestSeed.current
    var gen = Gen(seed: seed ^ 0xF00D)
    for _ in 0..<20_000 {
      var decoder = TCPLinkMessageDecoder()
      var bytes = gen.bytes(0...64)
      if gen.bool(), bytes.count >= 4 {
        // A plausible length so the body is actually parsed.
        let length = UInt32(bytes.count - 4)
        bytes.replaceSubrange(0..<4, with: withUnsafeBytes(of: length.littleEndian, Array.init))
      }
      decoder.append(bytes)
      while let message = try? decoder.next() {
        // What decodes re-encodes to a message that decodes the same.
        var again = TCPLinkMessageDecoder()
        again.append(message.encoded())
        #expect((try? again.next()) == message, "seed \(seed)")
      }
    }
  }
}
