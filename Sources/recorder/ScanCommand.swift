import RecorderConcurrency
import RecorderKit
import RecorderProtocol

/// `recorder scan`: the recorders in range.
struct ScanCommand: RecorderCommand {
  static let name = "scan"
  static let abstract = "List the recorders in range: serial, model, RSSI, address."
  static let help = """
    OVERVIEW: Listen for recorders' advertisements for a while and list each one heard:
    serial, model, signal strength (RSSI, dBm) and address. Needs no token: nothing connects.

    USAGE: recorder scan [--device ble|tcp://HOST:PORT] [--adapter hciN] [--timeout S] [--json]

    OPTIONS:
      --device ble|URL      Where to listen (default ble: the local adapter through BlueZ).
      --adapter hciN        With ble: the Bluetooth adapter (default: the first powered).
      --timeout S           How long to listen (default 5 seconds).
      --json                A JSON array of {serial, model, name, rssi, address,
                            firmware, portVersion} on stdout.
      -h, --help            Show this help.
    """

  var address: RadioAddress
  var adapter: String?
  var timeout: Duration
  var json: Bool

  init(arguments: inout Arguments) throws {
    address = try RadioAddress(try arguments.option("device") ?? "ble")
    adapter = try arguments.option("adapter")
    let seconds = try arguments.option("timeout", as: Double.self) ?? 5
    guard seconds > 0, seconds <= 3600 else { throw UsageError("--timeout must be 0-3600 seconds") }
    timeout = .seconds(seconds)
    json = arguments.flag("json")
    try arguments.finish()
  }

  func run() async throws {
    let central = try await address.open(adapter: adapter)
    defer { central.close() }
    let wanted: String? = if case .ble(let serial) = address { serial } else { nil }
    let heard = Locked([DiscoveredDevice]())
    let stream = RecorderScanner(central: central).listen()
    // Listens until the timeout; keeps the latest advertisement of each peripheral.
    _ = await firstElement(of: stream, within: timeout, on: .continuous) { device in
      if let wanted, device.serial != wanted { return false }
      heard.withLock { list in
        if let index = list.firstIndex(where: { $0.peripheral == device.peripheral }) {
          list[index] = device
        } else {
          list.append(device)
        }
      }
      return false
    }
    let devices = heard.withLock { $0 }
    if json {
      print(JSONValue.array(devices.map { JSONValue.object(Self.fields($0)) }).serialized)
      return
    }
    print("SERIAL              MODEL        RSSI  ADDRESS")
    for device in devices {
      print(
        escapingControls(device.serial ?? "?").padding(20)
          + (device.model.map { "\($0)" } ?? "?").padding(13)
          + String(device.rssi).padding(6) + device.peripheral.rawValue)
    }
    print("\(devices.count) recorder\(devices.count == 1 ? "" : "s") heard")
  }

  static func fields(_ device: DiscoveredDevice) -> [(String, JSONValue)] {
    [
      ("serial", device.serial.map { .string($0) } ?? .null),
      ("model", device.model.map { .string("\($0)") } ?? .null),
      ("name", device.name.map { .string($0) } ?? .null),
      ("rssi", .int(Int64(device.rssi))),
      ("address", .string(device.peripheral.rawValue)),
      // The advertised version field (PROTOCOL.md §1): V1.2.7 for new firmware's codes.
      ("firmware", device.firmware.map { .string($0.description) } ?? .null),
      ("portVersion", device.portVersion.map { .int(Int64($0)) } ?? .null),
    ]
  }
}
