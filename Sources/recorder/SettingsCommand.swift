import RecorderKit

/// `recorder settings get|set NAME [VALUE]`: read or write a named device setting.
struct SettingsCommand: RecorderCommand {
  static let name = "settings"
  static let abstract = "Read or write a device setting by name."
  static let help = """
    OVERVIEW: Connect, authenticate and read (get) or write (set) one setting (PROTOCOL.md
    §3.1). Prints the value the device reports.

    USAGE: recorder settings get|set NAME [VALUE] --device URL --token T [--serial S]

    NAMES: \(DeviceSetting.allCases.map(\.name).joined(separator: ", ")), websocket-url (text:
    the device's WebSocket URL, PROTOCOL.md §3.4)

    OPTIONS:
    \(DeviceOptions.help)
    \(DeviceOptions.cloudHelp)
      -h, --help            Show this help.
    """

  var write: Bool
  /// nil for `websocket-url`.
  var setting: DeviceSetting?
  var value: UInt32?
  /// `set websocket-url URL`: the text to write.
  var text: String?
  var device: DeviceOptions

  /// The device's WebSocket URL (`0010`/`0011`, PROTOCOL.md §3.4); its tokens are secrets
  /// and never typed on a command line, so only the SDK reads and writes them.
  static let webSocketURL = "websocket-url"

  init(arguments: inout Arguments) throws {
    device = try DeviceOptions.parseWithCloud(&arguments)
    var words = try arguments.positionals()[...]
    guard let action = words.popFirst(), ["get", "set"].contains(action) else {
      throw UsageError("expected `get` or `set`")
    }
    write = action == "set"
    if words.first == Self.webSocketURL {
      words.removeFirst()
      if write {
        guard let url = words.popFirst() else { throw UsageError("`set` needs a URL") }
        text = url
      }
      if let extra = words.first { throw UsageError("unexpected argument '\(extra)'") }
      return
    }
    guard let name = words.popFirst(), let setting = DeviceSetting(name: name) else {
      throw UsageError(
        "expected a setting name: \(DeviceSetting.allCases.map(\.name).joined(separator: ", "))")
    }
    self.setting = setting
    if write {
      guard let text = words.popFirst(), let value = UInt32(text) else {
        throw UsageError("`set` needs a value (an unsigned integer)")
      }
      self.value = value
    }
    if let extra = words.first { throw UsageError("unexpected argument '\(extra)'") }
  }

  func run() async throws {
    let (session, central) = try await device.connect()
    defer { central.close() }
    do {
      guard let setting else {
        let url =
          if let text {
            try await session.setWebSocketSetting(.url, to: text)
          } else {
            try await session.webSocketSetting(.url)
          }
        print("\(Self.webSocketURL) \(escapingControls(url))")
        await session.close()
        return
      }
      let reported: UInt32
      if let value {
        reported = try await session.writeSetting(setting, value: value)
      } else {
        reported = try await session.readSetting(setting)
      }
      // A known meaning follows the number (setting 17: noise cancelling, PROTOCOL.md §3.1).
      print(
        "\(setting.name) \(reported)" + (setting.meaning(of: reported).map { " \($0)" } ?? ""))
    } catch {
      await session.close()
      throw CommandFailure(.failure, "\(error)")
    }
    await session.close()
  }
}
