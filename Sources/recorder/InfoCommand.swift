import RecorderKit
import RecorderProtocol

/// `recorder info`: who the device is and how it is doing.
struct InfoCommand: RecorderCommand {
  static let name = "info"
  static let abstract = "Show a device's serial, model, firmware, battery and storage."
  static let help = """
    OVERVIEW: Connect, authenticate and print the device's serial, model, firmware version,
    protocol version (portVersion), battery, storage, and whether it is recording (GET_STATE).

    USAGE: recorder info --device URL --token T [--serial S] [--json]

    OPTIONS:
    \(DeviceOptions.help)
    \(DeviceOptions.cloudHelp)
      --json                One JSON object on stdout.
      -h, --help            Show this help.
    """

  var device: DeviceOptions
  var json: Bool

  init(arguments: inout Arguments) throws {
    device = try DeviceOptions.parseWithCloud(&arguments)
    json = arguments.flag("json")
    try arguments.finish()
  }

  func run() async throws {
    let (session, central) = try await device.connect()
    defer { central.close() }
    let info = await session.info
    // GET_STATE: recording iff state 4099, else by keyState (PROTOCOL.md §3.1).
    let state = try? await session.state()
    await session.close()
    let fields = Self.fields(info) + Self.fields(state)
    print(json ? JSONValue.object(fields).serialized : Self.text(fields))
  }

  /// What the device reported, in order. A field the device did not send is `null`
  /// ("unknown" in text), never a made-up 0 (BATTERY on V0095 sends no `charging` [device];
  /// HANDSHAKE's tail and STORAGE's `remaining` are optional too).
  static func fields(_ info: DeviceInfo) -> [(String, JSONValue)] {
    let handshake = info.handshake
    func number<T: BinaryInteger>(_ value: T?) -> JSONValue {
      value.map { .int(Int64($0)) } ?? .null
    }
    return [
      ("serial", .string(info.serial)),
      ("model", info.model.map { .string($0.description) } ?? .null),
      ("name", .string(info.name)),
      ("firmware", info.firmware.map { .string($0.description) } ?? .null),
      ("portVersion", .int(Int64(info.portVersion))),
      ("audioChannels", number(handshake?.audioChannels)),
      ("supportsWiFi", number(handshake?.supportWifi)),
      ("oggAudio", number(handshake?.oggAudio)),
      ("batteryLevel", .int(Int64(info.battery.level))),
      ("charging", number(info.battery.charging)),
      ("freeBytes", .uint(info.storage.freeBytes)),
      ("totalBytes", .uint(info.storage.totalBytes)),
      ("recordingTimeLeftMs", number(info.storage.remaining)),
    ]
  }

  /// GET_STATE's reading: whether the device records now and its key state (null when
  /// GET_STATE went unanswered or the byte is absent or unknown).
  static func fields(_ state: DeviceState?) -> [(String, JSONValue)] {
    [
      ("recording", state.map { .bool($0.isRecording) } ?? .null),
      ("keyState", state?.key.map { .string($0.description) } ?? .null),
    ]
  }

  /// `name: value` lines; absent values read "unknown", device text has its controls escaped.
  static func text(_ fields: [(String, JSONValue)]) -> String {
    fields.map { name, value in
      switch value {
      case .null: "\(name): unknown"
      case .string(let text): "\(name): \(escapingControls(text))"
      default: "\(name): \(value.serialized)"
      }
    }.joined(separator: "\n")
  }
}
