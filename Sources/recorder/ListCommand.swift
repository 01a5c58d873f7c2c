import RecorderKit
import RecorderProtocol

/// `recorder ls`: the recordings on a device.
struct ListCommand: RecorderCommand {
  static let name = "ls"
  static let abstract = "List the recordings on a device."
  static let help = """
    OVERVIEW: Connect, authenticate and list the device's recordings, oldest first: session
    id (the start time, unix seconds), size in bytes, duration.

    USAGE: recorder ls --device URL --token T [--serial S] [--json]

    OPTIONS:
    \(DeviceOptions.help)
    \(USBDeviceChoice.help)
    \(DeviceOptions.cloudHelp)
      --json                A JSON array of {sessionId, size, durationMs, scene} on stdout.
      -h, --help            Show this help.
    """

  var device: DeviceOptions?
  var usb: USBDeviceChoice?
  var json: Bool

  init(arguments: inout Arguments) throws {
    usb = try USBDeviceChoice.parse(&arguments)
    if usb == nil { device = try DeviceOptions.parseWithCloud(&arguments) }
    json = arguments.flag("json")
    try arguments.finish()
  }

  func run() async throws {
    guard let device else { return try await listUSB() }
    let (session, central) = try await device.connect()
    defer { central.close() }
    let recordings: [Recording]
    do {
      recordings = try await session.listRecordings()
    } catch {
      await session.close()
      throw CommandFailure(.failure, "\(error)")
    }
    await session.close()
    if json {
      let values = recordings.map { recording in
        JSONValue.object([
          ("sessionId", .int(Int64(recording.sessionId.rawValue))),
          ("size", .int(Int64(recording.size))),
          ("durationMs", .int(Int64(recording.durationMs))),
          ("scene", recording.scene.map { .int(Int64($0)) } ?? .null),
        ])
      }
      print(JSONValue.array(values).serialized)
      return
    }
    print("SESSION ID  SIZE (bytes)  DURATION")
    for recording in recordings {
      print(
        recording.sessionId.description.padding(12) + String(recording.size).padding(14)
          + formatDuration(milliseconds: recording.durationMs))
    }
    print("\(recordings.count) recording\(recordings.count == 1 ? "" : "s")")
  }
}

extension ListCommand {
  /// The pairs of every `--device usb` volume, as the sync sees them: a damaged pair says
  /// why (`damaged` in JSON, a last column in the table).
  fileprivate func listUSB() async throws {
    var rows: [(Recording, String?)] = []
    for root in usb?.roots ?? [] {
      let transport = try USBDeviceChoice.transport(root, options: .init())
      for recording in try await transport.listRecordings() {
        rows.append((recording, await transport.damage(of: recording.sessionId)))
      }
    }
    if json {
      let values = rows.map { recording, damage in
        JSONValue.object([
          ("sessionId", .int(Int64(recording.sessionId.rawValue))),
          ("size", .int(Int64(recording.size))),
          ("durationMs", .int(Int64(recording.durationMs))),
          ("scene", recording.scene.map { .int(Int64($0)) } ?? .null),
          ("damaged", damage.map { .string($0) } ?? .null),
        ])
      }
      print(JSONValue.array(values).serialized)
      return
    }
    print("SESSION ID  SIZE (bytes)  DURATION")
    for (recording, damage) in rows {
      print(
        recording.sessionId.description.padding(12) + String(recording.size).padding(14)
          + formatDuration(milliseconds: recording.durationMs)
          + (damage.map { "  damaged: " + escapingControls($0) } ?? ""))
    }
    print("\(rows.count) recording\(rows.count == 1 ? "" : "s")")
  }
}

/// `1:02:03.400` / `2:03.400`.
func formatDuration(milliseconds: Int) -> String {
  let hours = milliseconds / 3_600_000
  let minutes = milliseconds / 60_000 % 60
  let seconds = milliseconds / 1000 % 60
  let millis = milliseconds % 1000
  let tail = (seconds < 10 ? "0" : "") + "\(seconds)." + String(format3(millis))
  return hours > 0
    ? "\(hours):" + (minutes < 10 ? "0" : "") + "\(minutes):" + tail
    : "\(minutes):" + tail
}

private func format3(_ value: Int) -> String {
  let text = String(value)
  return String(repeating: "0", count: max(0, 3 - text.count)) + text
}
