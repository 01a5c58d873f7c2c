import RecorderKit

/// `recorder bind` / `recorder unbind`: the device's binding to the user, in the cloud (and
/// over BLE when `--device` is given).
struct BindCommand: RecorderCommand {
  static let name = "bind"
  static let abstract = "Bind a device to the user in the cloud (and hand-shake over BLE)."
  static let help = """
    OVERVIEW: Register the device with the user in the partner cloud (PROTOCOL.md §8). With
    --device, connect first with the handshake token derived from the user token, then bind
    the serial the device reports. Binding again is harmless.

    USAGE: recorder bind --cloud DOMAIN --user-token-file F (--serial S | --device URL)

    OPTIONS:
    \(CloudOptions.help)
      --serial S            The device's serial (without --device).
      --device URL          Connect to the device first (tcp:// of `recorder emulate`).
      -h, --help            Show this help.

    EXIT CODES: 0 bound; 77 bound to another account or the token expired; 69 unreachable.
    """

  var cloud: CloudOptions
  var serial: String?
  var device: DeviceOptions?

  init(arguments: inout Arguments) throws {
    (cloud, serial, device) = try BindingTarget.parse(&arguments)
  }

  func run() async throws {
    let client = try cloud.client()
    var serial = self.serial ?? ""
    let bound: Result<Void, CloudError>
    if let device {
      let (recorders, connection, central) = try await device.connectThroughDoor()
      defer { central.close() }
      serial = await connection.session.info.serial
      do throws(CloudError) {
        try await recorders.bind(connection, cloud: client)
        bound = .success(())
      } catch {
        bound = .failure(error)
      }
      await connection.close()
    } else {
      do throws(CloudError) {
        try await client.bind(serial: serial)
        bound = .success(())
      } catch {
        bound = .failure(error)
      }
    }
    if case .failure(let error) = bound {
      throw CommandFailure(CloudOptions.exitCode(error), "\(error)")
    }
    print("bound \(serial)")
  }
}

struct UnbindCommand: RecorderCommand {
  static let name = "unbind"
  static let abstract = "Unbind a device in the cloud (and DEPAIR it over BLE)."
  static let help = """
    OVERVIEW: Remove the device from the user in the partner cloud (PROTOCOL.md §8). With
    --device, then send DEPAIR over BLE and disconnect. DEPAIR never erases recordings:
    unsynced audio survives an unbind. Unbinding an unbound device is harmless.

    USAGE: recorder unbind --cloud DOMAIN --user-token-file F (--serial S | --device URL)

    OPTIONS:
    \(CloudOptions.help)
      --serial S            The device's serial (without --device).
      --device URL          Also DEPAIR the device over BLE.
      --clear-all-connections
                            With --device: DEPAIR clearing all connections (the vendor's
                            depair(clear: true)). Sent only when the device holds no
                            recording (its clear byte may erase them on some firmware);
                            otherwise nothing is changed and the exit code is 75.
      -h, --help            Show this help.
    """

  var cloud: CloudOptions
  var serial: String?
  var device: DeviceOptions?
  var clearAllConnections: Bool

  init(arguments: inout Arguments) throws {
    clearAllConnections = arguments.flag("clear-all-connections")
    (cloud, serial, device) = try BindingTarget.parse(&arguments)
    if clearAllConnections, device == nil {
      throw UsageError("--clear-all-connections needs --device")
    }
  }

  func run() async throws {
    let client = try cloud.client()
    guard let device else {
      do {
        try await client.unbind(serial: serial ?? "")
      } catch {
        throw CommandFailure(CloudOptions.exitCode(error), "\(error)")
      }
      print("unbound \(serial ?? "")")
      return
    }
    let (recorders, connection, central) = try await device.connectThroughDoor()
    defer { central.close() }
    let serial = await connection.session.info.serial
    do {
      try await recorders.unbindAndDepair(
        connection, cloud: client, clearingAllConnections: clearAllConnections)
    } catch .cloud(let error) {
      await connection.close()
      throw CommandFailure(CloudOptions.exitCode(error), "\(error)")
    } catch .device(.depairClearRefused(let count)) {
      throw CommandFailure(
        .busy, "\(DeviceError.depairClearRefused(recordings: count)); nothing was changed")
    } catch {
      throw CommandFailure(.unavailable, "\(error)")
    }
    print("unbound and depaired \(serial)")
  }
}

/// What `bind` and `unbind` act on: the cloud, and a device by `--serial` or over `--device`.
enum BindingTarget {
  static func parse(_ arguments: inout Arguments) throws -> (
    cloud: CloudOptions, serial: String?, device: DeviceOptions?
  ) {
    guard let cloud = try CloudOptions.parse(&arguments) else {
      throw UsageError("--cloud DOMAIN --user-token-file F is required")
    }
    var probe = arguments
    if try probe.option("device") != nil {
      let device = try DeviceOptions.parse(&arguments, cloud: cloud)
      try arguments.finish()
      return (cloud, nil, device)
    }
    let serial = try arguments.required("serial")
    try arguments.finish()
    return (cloud, serial, nil)
  }
}
