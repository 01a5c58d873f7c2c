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
      --port-version N      The device's portVersion (default 10, firmware V0095). Without
                            it, a HANDSHAKE's token width (16 below portVersion 9, else 32)
                            is taken from the frame.
      --json                One JSON object on stdout instead of name: value lines.
      -h, --help            Show this help.

    Malformed bytes exit 65 with a one-line reason on stderr.
    """

  var direction: Direction
  /// nil: inferred from the frame where the layout depends on it, else the default.
  var portVersion: UInt16?
  var json: Bool
  var bytes: [UInt8]

  init(arguments: inout Arguments) throws {
    direction =
      Direction(rawValue: try arguments.choice("from", ["device", "phone"]) ?? "device")
      ?? .deviceToPhone
    portVersion = try arguments.option("port-version", as: UInt16.self)
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
      let version = try portVersion ?? inferredPortVersion()
      let frame = try Frame(decoding: bytes, portVersion: version)
      fields = try frame.describe(direction: direction, portVersion: version)
    } catch {
      throw CommandFailure(.dataError, "malformed frame: \(error)")
    }
    print(json ? renderJSON(fields) : renderText(fields))
  }

  /// The default portVersion, except for a phone's HANDSHAKE whose token is 16 characters:
  /// only devices below portVersion 9 take those (PROTOCOL.md §8), so decode it as one.
  private func inferredPortVersion() throws -> UInt16 {
    let standard = ProtocolDefaults.portVersion
    guard direction == .phoneToDevice,
      case .control(let control) = try Frame(decoding: bytes, portVersion: standard),
      control.opcode == .handshake
    else { return standard }
    let shortWidth = DeviceToken.wireLength(portVersion: Self.shortTokenPortVersion)
    return control.payload.count == Self.handshakeFieldsBeforeToken + shortWidth
      ? Self.shortTokenPortVersion : standard
  }

  /// hostType, bleVersion, appVerify: the HANDSHAKE's bytes before its token (PROTOCOL.md §3.1).
  private static let handshakeFieldsBeforeToken = 3
  /// The newest portVersion with 16-character tokens.
  private static let shortTokenPortVersion: UInt16 = 8
}
