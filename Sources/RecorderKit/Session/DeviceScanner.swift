import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// Finds recorders by their advertising (PROTOCOL.md §1): a manufacturer payload that parses
/// as the recorder's, whatever the company id, or failing that a `PLAUD…` name (then the
/// serial is known only after connecting).
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

  /// The first recorder heard advertising `serial`, or ``DeviceError/deviceNotFound(serial:)``
  /// after `timeout` of `clock` time. Reconnection goes by serial: the address rotates.
  /// Recorders heard only by name are not considered (they need a connection to tell their
  /// serial): ``connect(serial:configuration:timeout:)`` does that.
  public func find(serial: String, timeout: Duration, clock: AnyClock) async throws(DeviceError)
    -> DiscoveredDevice
  {
    try await scan(timeout: timeout, clock: clock, notFound: serial) { $0.serial == serial }
  }

  /// Connects to the recorder with `serial` and returns its session (PROTOCOL.md §1
  /// [project]): a recorder advertising that serial is taken at its word; a recorder heard
  /// only by its `PLAUD*` name is connected to and confirmed by the serial it reports
  /// (GET_SERIAL); if that is another serial, it is disconnected and the search goes on.
  ///
  /// - Parameters:
  ///   - serial: the recorder's serial.
  ///   - configuration: the session's token, clock and limits.
  ///   - timeout: how long to look, on `configuration.clock`.
  /// - Throws: ``DeviceError/deviceNotFound(serial:)`` when no recorder proved to have that
  ///   serial in time; what ``DeviceSession/connect(to:using:configuration:)`` throws for an
  ///   advertised match; ``DeviceError/cancelled``.
  public func connect(
    serial: String, configuration: DeviceSession.Configuration, timeout: Duration
  ) async throws(DeviceError) -> DeviceSession {
    let clock = configuration.clock
    let deadline = clock.elapsed + timeout
    var checked: Set<PeripheralID> = []
    while true {
      let left = deadline - clock.elapsed
      guard left > .zero else { throw .deviceNotFound(serial: serial) }
      let candidates = checked
      let device = try await scan(timeout: left, clock: clock, notFound: serial) {
        $0.serial == serial || ($0.isNameOnly && !candidates.contains($0.peripheral))
      }
      if device.serial == serial {
        return try await DeviceSession.connect(
          to: device, using: central, configuration: configuration)
      }
      checked.insert(device.peripheral)
      let session: DeviceSession
      do {
        session = try await DeviceSession.connect(
          to: device, using: central, configuration: configuration)
      } catch .cancelled {
        throw .cancelled
      } catch {
        continue  // not ours, or not reachable: keep looking
      }
      if await session.info.serial == serial { return session }
      await session.close()
    }
  }

  private func scan(
    timeout: Duration, clock: AnyClock, notFound serial: String,
    where accept: @escaping @Sendable (DiscoveredDevice) -> Bool
  ) async throws(DeviceError) -> DiscoveredDevice {
    // On a simulated clock, a device already in range is heard after a few task hops that
    // take real time but no simulated time: hold the clock for a moment of real time so the
    // timeout below cannot fire first. (No-op on a real clock.)
    let release = clock.holdTime(.scanGrace)
    let grace = Task {
      try? await Task.sleep(for: Self.simulatedClockGrace)
      release()
    }
    defer {
      grace.cancel()
      release()
    }
    let state = await central.settledState(on: clock)
    guard state == .poweredOn else { throw .bluetoothUnavailable(state) }
    let found = await firstElement(of: discover(), within: timeout, on: clock, where: accept)
    if Task.isCancelled { throw .cancelled }
    guard let found else { throw .deviceNotFound(serial: serial) }
    return found
  }

  /// Real time a simulated clock is held at the start of each scan.
  static let simulatedClockGrace: Duration = .milliseconds(500)

  /// The recorder this advertisement comes from, or nil if it is not one: by its
  /// manufacturer payload, else by a name starting `PLAUD` (any case) [sdk].
  public static func recognise(_ advertisement: Advertisement) -> DiscoveredDevice? {
    if let data = advertisement.manufacturerData,
      let payload = try? ManufacturerPayload(manufacturerData: data)
    {
      return DiscoveredDevice(
        peripheral: advertisement.peripheral, name: advertisement.localName,
        serial: payload.serial, model: RecorderModel(rawValue: payload.projectCode),
        projectCode: payload.projectCode, firmware: payload.firmware,
        portVersion: payload.portVersion, rssi: advertisement.rssi)
    }
    guard let name = advertisement.localName, name.uppercased().hasPrefix(namePrefix) else {
      return nil
    }
    return DiscoveredDevice(
      peripheral: advertisement.peripheral, name: name, serial: nil, model: nil,
      projectCode: nil, firmware: nil, portVersion: nil, rssi: advertisement.rssi)
  }

  /// Recorders' advertised names start with this (`PLAUD_NOTE` on the Note) [device][sdk].
  public static let namePrefix = "PLAUD"
}
