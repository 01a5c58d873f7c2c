import RecorderProtocol

/// `recorder decode`: one frame from a Bluetooth capture, printed with PROTOCOL.md §2 names.
struct DecodeCommand: RecorderCommand {
  static let name = "decode"
  static let abstract = "Decode one device-protocol frame given in hex."
  static let help = """
    OVERVIEW: Decode one frame of the device protocol (shared/PROTOCOL.md §2–§3) and print
    its fields with the protocol's names (kind, opcode, sessionId, offset, length, …).

    USAGE: recorder decode [--from device|phone] [--port-version N] [--json] HEX...

    ARGUMENTS:
      HEX                   The frame's bytes in hex; spaces and colons are ignored, so
                            several arguments are joined ("01 09 00 64" or 01090064).

    OPTIONS:
      --from device|phone   Who sent the frame (default device). Control payloads mean
                            different things each way.
      --port-version N      The device's portVersion (default 10, firmware V0095).
      --json                One JSON object on stdout instead of name: value lines.
      -h, --help            Show this help.

    Malformed bytes exit 65 with a one-line reason on stderr.
    """

  var direction: Direction
  var portVersion: UInt16
  var json: Bool
  var bytes: [UInt8]

  init(arguments: inout Arguments) throws {
    direction =
      Direction(rawValue: try arguments.choice("from", ["device", "phone"]) ?? "device")
      ?? .deviceToPhone
    portVersion =
      try arguments.option("port-version", as: UInt16.self) ?? ProtocolDefaults.portVersion
    json = arguments.flag("json")
    let hexText = try arguments.positionals().joined()
    guard !hexText.isEmpty else { throw UsageError("HEX is required") }
    guard let bytes = [UInt8](hex: hexText) else {
      throw UsageError("'\(hexText)' is not hex (an even number of 0-9a-f digits)")
    }
    self.bytes = bytes
  }

  func run() async throws {
    let fields: [Field]
    do {
      let frame = try Frame(decoding: bytes, portVersion: portVersion)
      fields = try frame.describe(direction: direction, portVersion: portVersion)
    } catch {
      throw CommandFailure(.dataError, "malformed frame: \(error)")
    }
    print(json ? renderJSON(fields) : renderText(fields))
  }
}
