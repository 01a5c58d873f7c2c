import RecorderProtocol

/// `recorder demo --capture`: decodes the captured V0095 session of PROTOCOL.md §11 frame by
/// frame, both directions.
struct CaptureDemo {
  var json: Bool

  /// The §11 capture, in session order.
  static let capture: [(Direction, String)] = [
    (.phoneToDevice, "010100020000" + Array("0123456789abcdef0123456789abcdef".utf8).hexString),
    (.deviceToPhone, "01010000 0a000300 01010000 565f0000"),
    (.phoneToDevice, "010400d161d269 0300"),
    (.deviceToPhone, "010300 01000000 00 04 00 00 00000000"),
    (.deviceToPhone, "010600 0000868f0e000000 0000888f0e000000 90abce3600000000"),
    (.phoneToDevice, "010800010f00"),
    (.deviceToPhone, "0108000f0000000000"),
    (.deviceToPhone, "01090064"),
    (.deviceToPhone, "016c00504c4155445f4e4f544500000000"),
    (.phoneToDevice, "011a00d261d26900000000"),
    (.phoneToDevice, "011c005866d269804c0100c0570100"),
    (.deviceToPhone, "025866d2690000000050" + [UInt8](repeating: 0xab, count: 80).hexString),
    (.deviceToPhone, "0278563412ffffffff00"),
  ]

  func run() async throws {
    print(
      "RecorderKit demo: decoding a captured Plaud Note (V0095) BLE session, "
        + "\(Self.capture.count) frames (shared/PROTOCOL.md §11).")
    for (index, (direction, hexText)) in Self.capture.enumerated() {
      guard let bytes = [UInt8](hex: hexText) else { continue }
      let frame = try Frame(decoding: bytes)
      let fields = try frame.describe(direction: direction)
      let arrow = direction == .phoneToDevice ? "phone → device" : "device → phone"
      if json {
        print(
          renderJSON(
            [Field("frame", index + 1), Field("from", .text(direction.rawValue))] + fields))
      } else {
        print("\n#\(index + 1) \(arrow), \(bytes.count) bytes")
        print(renderText(fields, indent: "  "))
      }
    }
    print("\nDone: every frame decoded.")
  }
}
