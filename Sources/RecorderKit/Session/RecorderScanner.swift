import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// The one place that scans: one radio scan shared by every listener, de-duplicated scans
/// with a timeout, and finding a recorder by serial.
///
/// Recorders are recognised by their advertising (PROTOCOL.md §1): a manufacturer payload
/// that parses as the recorder's (either layout), whatever the company id, or failing that a
/// name containing `plaud` in any case (then the serial is known only after connecting).
///
/// A `Central` runs one scan at a time, so a scanner starts the radio's scan for its first
/// listener, fans each recognised advertisement out to every listener, and stops the radio
/// when the last one leaves (the next scan starts only after that one has ended). Make one
/// scanner per central and use it for every scan and every search by serial.
public final class RecorderScanner: Sendable {
  /// What ``scan(timeout:)`` reports.
  public enum Update: Sendable, Equatable {
    /// Every recorder heard so far in this scan, one entry per serial in the order first
    /// heard, each time the list changes (a new recorder, or a known one advertising
    /// something new such as its signal strength).
    case devices([DiscoveredDevice])
    /// The scan's time is up (`timedOut`) or the radio stopped scanning: what was heard.
    /// Not reported when the consumer stopped listening.
    case ended(devices: [DiscoveredDevice], timedOut: Bool)
  }

  /// The radio scanned.
  public let central: any Central
  private let clock: AnyClock

  /// The listeners and the radio's scan. Guarded by `Locked`; never held across a
  /// suspension.
  private struct State {
    var listeners: [Int: AsyncStream<DiscoveredDevice>.Continuation] = [:]
    var nextKey = 0
    /// The radio scan feeding the listeners, and its number.
    var radio: Task<Void, Never>?
    var radioNumber = 0
    /// The last radio scan stopped: a new one waits for it to end (one scan at a time).
    var stopping: Task<Void, Never>?
  }
  private let state = Locked(State())

  /// - Parameters:
  ///   - central: the radio to scan with.
  ///   - clock: the clock of every timeout.
  public init(central: any Central, clock: AnyClock = .continuous) {
    self.central = central
    self.clock = clock
  }

  /// Recorders as they are heard (every recognised advertisement, repeats included) until
  /// the consumer stops iterating or the radio stops scanning.
  public func listen() -> AsyncStream<DiscoveredDevice> {
    let (stream, continuation) = AsyncStream.makeStream(of: DiscoveredDevice.self)
    let key = state.withLock { state -> Int in
      let key = state.nextKey
      state.nextKey += 1
      state.listeners[key] = continuation
      if state.radio == nil {
        state.radioNumber += 1
        state.radio = startRadio(number: state.radioNumber, after: state.stopping)
      }
      return key
    }
    // The stream holds its scanner (and so the radio scan) until it ends: a scanner made
    // only to listen lives as long as its listener. The cycle ends with the stream.
    continuation.onTermination = { _ in self.removeListener(key) }
    return stream
  }

  /// A scan of `timeout` of the scanner's clock: ``Update/devices(_:)`` as the list of
  /// recorders heard changes, then ``Update/ended(devices:timedOut:)``. Stop early by
  /// ending the iteration (cancelling the iterating task).
  public func scan(timeout: Duration) -> AsyncStream<Update> {
    let heard = listen()
    let clock = self.clock
    let (updates, continuation) = AsyncStream.makeStream(of: Update.self)
    let task = Task {
      let list = Locked(HeardList())
      let timedOut = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          for await device in heard {
            if let changed = list.withLock({ $0.insert(device) }) {
              continuation.yield(.devices(changed))
            }
          }
          return false
        }
        group.addTask {
          (try? await clock.sleep(for: timeout)) != nil
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
      }
      if !Task.isCancelled {
        continuation.yield(.ended(devices: list.withLock { $0.devices }, timedOut: timedOut))
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return updates
  }

  /// The first recorder heard with `serial` (reconnection goes by serial: the radio address
  /// rotates).
  /// - Throws: ``DeviceError/bluetoothUnavailable(_:)`` when the radio is not on,
  ///   ``DeviceError/deviceNotFound(serial:)`` after `timeout` of the scanner's clock.
  public func find(serial: String, timeout: Duration) async throws(DeviceError)
    -> DiscoveredDevice
  {
    guard let found = try await firstHeard(within: timeout, where: { $0.serial == serial }) else {
      throw .deviceNotFound(serial: serial)
    }
    return found
  }

  /// The first recorder heard, whatever its serial.
  /// - Throws: ``DeviceError/bluetoothUnavailable(_:)`` when the radio is not on,
  ///   ``DeviceError/noRecorderHeard(within:)`` after `timeout` of the scanner's clock.
  package func first(within timeout: Duration) async throws(DeviceError) -> DiscoveredDevice {
    guard let found = try await firstHeard(within: timeout, where: { _ in true }) else {
      throw .noRecorderHeard(within: timeout)
    }
    return found
  }

  /// Connects to the recorder with `serial` (PROTOCOL.md §1 [project]): to `heard` when it
  /// is that recorder (just heard in a scan); else, within one search of `findTimeout`, to
  /// the first recorder heard advertising `serial`, taken at its word, or to a recorder heard
  /// by its name only (containing `plaud`), connected to and confirmed by the serial it reports
  /// (GET_SERIAL): another serial is disconnected and the search goes on.
  /// - Returns: the authenticated session and the advertisement it was reached by.
  /// - Throws: ``DeviceError/deviceNotFound(serial:)`` when no recorder proved to have that
  ///   serial in time; what ``DeviceSession/connect(to:using:configuration:whenInRange:)`` throws for an
  ///   advertised match; ``DeviceError/bluetoothUnavailable(_:)``; ``DeviceError/cancelled``.
  package func connect(
    serial: String, heard: DiscoveredDevice? = nil, findTimeout: Duration,
    configuration: DeviceSession.Configuration
  ) async throws(DeviceError) -> (session: DeviceSession, device: DiscoveredDevice) {
    if let heard, heard.serial == serial {
      return (
        try await DeviceSession.connect(to: heard, using: central, configuration: configuration),
        heard
      )
    }
    let deadline = clock.elapsed + findTimeout
    var checked: Set<PeripheralID> = []
    while true {
      let left = deadline - clock.elapsed
      guard left > .zero else { throw .deviceNotFound(serial: serial) }
      let candidates = checked
      let found = try await firstHeard(within: left) {
        $0.serial == serial || ($0.isNameOnly && !candidates.contains($0.peripheral))
      }
      guard let device = found else { throw .deviceNotFound(serial: serial) }
      if device.serial == serial {
        let session = try await DeviceSession.connect(
          to: device, using: central, configuration: configuration)
        return (session, device)
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
      if await session.info.serial == serial { return (session, await session.discoveredDevice) }
      await session.close()
    }
  }

  /// The first recorder `accept`s within `timeout`, or nil.
  private func firstHeard(
    within timeout: Duration, where accept: @escaping @Sendable (DiscoveredDevice) -> Bool
  ) async throws(DeviceError) -> DiscoveredDevice? {
    let radioState = await central.settledState(on: clock)
    guard radioState == .poweredOn else { throw .bluetoothUnavailable(radioState) }
    let found = await firstElement(of: listen(), within: timeout, on: clock, where: accept)
    if Task.isCancelled { throw .cancelled }
    return found
  }

  // MARK: - Recognising recorders

  /// The recorder this advertisement comes from, or nil if it is not one: by its
  /// manufacturer payload in either layout of PROTOCOL.md §1 (the model from the serial's
  /// first three digits when numeric), else by a name containing `plaud` anywhere, in any
  /// case (`PLAUD_NOTE`, `Plaud NotePin S`) [client].
  package static func recognise(_ advertisement: Advertisement) -> DiscoveredDevice? {
    if let data = advertisement.manufacturerData,
      let payload = try? ManufacturerPayload(manufacturerData: data)
    {
      return DiscoveredDevice(
        peripheral: advertisement.peripheral, name: advertisement.localName,
        serial: payload.serial, model: payload.model,
        projectCode: payload.hasProjectCodeField ? payload.projectCode : nil,
        firmware: payload.firmware, portVersion: payload.portVersion, rssi: advertisement.rssi)
    }
    guard let name = advertisement.localName, isRecorderName(name) else { return nil }
    return DiscoveredDevice(
      peripheral: advertisement.peripheral, name: name, serial: nil, model: nil,
      projectCode: nil, firmware: nil, portVersion: nil, rssi: advertisement.rssi)
  }

  /// Whether `name` is a recorder's: it contains `plaud` in any case (`PLAUD_NOTE` on the
  /// Note [device], `Plaud NotePin S` [sdk-code]; the match a working client uses [client]).
  package static func isRecorderName(_ name: String) -> Bool {
    name.lowercased().contains(nameMark)
  }

  /// What every recorder's advertised name contains, in some case (PROTOCOL.md §1).
  package static let nameMark = "plaud"

  // MARK: - The radio

  private func startRadio(number: Int, after previous: Task<Void, Never>?) -> Task<Void, Never> {
    let central = self.central
    // With no scan to wait for, the radio scan starts now, before the caller's timeout
    // starts counting (a simulated radio holds its clock from this call).
    let started = previous == nil ? central.scan(services: nil) : nil
    return Task { [weak self] in
      await previous?.value
      guard !Task.isCancelled else { return }
      for await advertisement in started ?? central.scan(services: nil) {
        guard let device = RecorderScanner.recognise(advertisement) else { continue }
        guard let listeners = self?.state.withLock({ Array($0.listeners.values) }) else { break }
        for listener in listeners { listener.yield(device) }
      }
      self?.radioEnded(number: number)
    }
  }

  private func removeListener(_ key: Int) {
    state.withLock { state in
      state.listeners[key] = nil
      guard state.listeners.isEmpty, let radio = state.radio else { return }
      radio.cancel()
      state.stopping = radio
      state.radio = nil
    }
  }

  /// The radio stopped scanning by itself (switched off): every listener's stream ends.
  private func radioEnded(number: Int) {
    let ended = state.withLock { state -> [AsyncStream<DiscoveredDevice>.Continuation] in
      guard state.radioNumber == number, state.radio != nil else { return [] }
      state.radio = nil
      defer { state.listeners = [:] }
      return Array(state.listeners.values)
    }
    for listener in ended { listener.finish() }
  }
}

/// The recorders one scan heard: one per serial (a recorder heard by name only, one per
/// radio address), in the order first heard.
private struct HeardList {
  private(set) var devices: [DiscoveredDevice] = []

  /// Adds or updates `device`; the new list when it changed, else nil.
  mutating func insert(_ device: DiscoveredDevice) -> [DiscoveredDevice]? {
    if let index = devices.firstIndex(where: { $0.identity == device.identity }) {
      guard devices[index] != device else { return nil }
      devices[index] = device
    } else {
      devices.append(device)
    }
    return devices
  }
}
