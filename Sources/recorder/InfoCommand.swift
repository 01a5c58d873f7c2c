import RecorderKit
import RecorderProtocol

/// `recorder info`: who the device is and how it is doing.
struct InfoCommand: RecorderCommand {
  static let name = "info"
  static let abstract = "Show a device's serial, model, firmware, battery and storage."
  static let help = """
    OVERVIEW: Connect, authenticate and print the device's serial, model, firmware version,
    protocol version (portVersion), battery and storage.

    USAGE: recorder info --device URL --token T [--serial S] [--json]

    OPTIONS:
    \(DeviceOptions.help)
      --json                One JSON object on stdout.
      -h, --help            Show this help.
    """

  var device: DeviceOptions
  var json: Bool

  init(arguments: inout Arguments) throws {
    device = try DeviceOptions(arguments: &arguments)
    json = arguments.flag("json")
    try arguments.finish()
  }

  func run() async throws {
    let (session, central) = try await device.connect()
    defer { central.close() }
    let info = await session.info
    await session.close()
    let fields: [Field] = [
      Field("serial", .text(info.serial)),
      Field("model", .text(info.model?.description ?? "unknown")),
      Field("name", .text(info.name)),
      Field("firmware", .text(info.firmware?.description ?? "unknown")),
      Field("portVersion", info.portVersion),
      Field("audioChannels", info.audioChannels),
      Field("supportsWiFi", info.supportsWiFi ? 1 : 0),
      Field("batteryLevel", info.battery.level),
      Field("charging", info.battery.charging ?? 0),
      Field("freeBytes", info.storage.freeBytes),
      Field("totalBytes", info.storage.totalBytes),
    ]
    print(json ? renderJSON(fields) : renderText(fields))
  }
}
