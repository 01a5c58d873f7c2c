import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// Finds recorders by their advertising (PROTOCOL.md §1): a manufacturer payload that parses
/// as the recorder's, whatever the company id, or failing that a `PLAUD…` name.
public struct DeviceScanner: Sendable {
  public let central: any Central

  public init(central: any Central) { self.central = central }

  /// Recorders as they are heard, until the consuming task stops or is cancelled.
  public func discover() -> AsyncStream<DiscoveredDevice> {
    let advertisements = central.scan(services: nil)
    return AsyncStream { continuation in
      let task = Task {
        for await advertisement in advertisements {
          if let device = Self.recognise(advertisement) { continuation.yield(device) }
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The first recorder heard with `serial`, or ``DeviceError/deviceNotFound(serial:)``
  /// after `timeout` of `clock` time. Reconnection goes by serial: the address rotates.
  public func find(serial: String, timeout: Duration, clock: AnyClock) async throws(DeviceError)
    -> DiscoveredDevice
  {
    let state = await central.state
    guard state == .poweredOn else { throw .bluetoothUnavailable(state) }
    // On a simulated clock, a device already in range is heard after a few task hops that
    // take real time but no simulated time: hold the clock for a moment of real time so the
    // timeout below cannot fire first. (No-op on a real clock.)
    let release = clock.holdTime()
    let grace = Task {
      try? await Task.sleep(for: Self.simulatedClockGrace)
      release()
    }
    defer {
      grace.cancel()
      release()
    }
    let found = await firstElement(of: discover(), within: timeout, on: clock) {
      $0.serial == serial
    }
    guard let found else { throw .deviceNotFound(serial: serial) }
    return found
  }

  /// Real time a simulated clock is held at the start of ``find(serial:timeout:clock:)``.
  static let simulatedClockGrace: Duration = .milliseconds(500)

  /// The recorder this advertisement comes from, or nil if it is not one.
  public static func recognise(_ advertisement: Advertisement) -> DiscoveredDevice? {
    guard let data = advertisement.manufacturerData,
      let payload = try? ManufacturerPayload(manufacturerData: data)
    else { return nil }
    return DiscoveredDevice(
      peripheral: advertisement.peripheral, name: advertisement.localName, serial: payload.serial,
      model: RecorderModel(rawValue: payload.projectCode), projectCode: payload.projectCode,
      firmware: payload.firmware, portVersion: payload.portVersion, rssi: advertisement.rssi)
  }
}
