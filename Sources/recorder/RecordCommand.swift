import RecorderKit

/// `recorder record start|stop`: start or stop a recording on the device.
struct RecordCommand: RecorderCommand {
  static let name = "record"
  static let abstract = "Start or stop a recording on a device."
  static let help = """
    OVERVIEW: Connect, authenticate and start (REC_START) or stop (REC_STOP) recording.
    Prints the session id (start) or the session id and size in bytes (stop).

    USAGE: recorder record start|stop --device URL --token T [--serial S] [--scene N]

    OPTIONS:
    \(DeviceOptions.help)
    \(DeviceOptions.cloudHelp)
      --scene N             1 normal (default), 4 music, 7 call.
      -h, --help            Show this help.
    """

  var action: String
  var device: DeviceOptions
  var scene: Int

  init(arguments: inout Arguments) throws {
    device = try DeviceOptions.parseWithCloud(&arguments)
    scene = try arguments.option("scene", as: Int.self) ?? 1
    let words = try arguments.positionals()
    guard words.count == 1, let action = words.first, ["start", "stop"].contains(action) else {
      throw UsageError("expected `start` or `stop`")
    }
    self.action = action
  }

  func run() async throws {
    let (session, central) = try await device.connect()
    defer { central.close() }
    do {
      if action == "start" {
        let started = try await session.startRecording(scene: UInt8(clamping: scene))
        print("recording \(started.sessionId)")
      } else {
        let stopped = try await session.stopRecording(scene: UInt8(clamping: scene))
        print("stopped \(stopped.sessionId) \(stopped.fileSize ?? 0) bytes")
      }
    } catch {
      await session.close()
      throw CommandFailure(.failure, "\(error)")
    }
    await session.close()
  }
}
