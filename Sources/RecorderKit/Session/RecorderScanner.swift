import RecorderBluetooth
import RecorderConcurrency

/// The one place that scans: one radio scan shared by every listener, de-duplicated scans
/// with a timeout, and finding a recorder by serial.
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
    continuation.onTermination = { [weak self] _ in self?.removeListener(key) }
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
    let radioState = await central.settledState(on: clock)
    guard radioState == .poweredOn else { throw .bluetoothUnavailable(radioState) }
    // On a simulated clock, a device already in range is heard after a few task hops that
    // take real time but no simulated time: hold the clock for a moment of real time so the
    // timeout cannot fire first. (No-op on a real clock.)
    let release = clock.holdTime(.scanGrace)
    let grace = Task {
      try? await Task.sleep(for: DeviceScanner.simulatedClockGrace)
      release()
    }
    defer {
      grace.cancel()
      release()
    }
    let found = await firstElement(of: listen(), within: timeout, on: clock) {
      $0.serial == serial
    }
    guard let found else { throw .deviceNotFound(serial: serial) }
    return found
  }

  /// Connects to the recorder with `serial`: to `heard` when it is that recorder (just
  /// heard in a scan), else to the one ``find(serial:timeout:)`` finds within `findTimeout`,
  /// else to a recorder heard by name only whose serial, read after connecting, is `serial`
  /// (``DeviceScanner/connect(serial:configuration:timeout:)``, PROTOCOL.md §1).
  /// - Returns: the authenticated session and the advertisement it was reached by.
  /// - Throws: what ``find(serial:timeout:)`` and
  ///   ``DeviceSession/connect(to:using:configuration:)`` throw.
  public func connect(
    serial: String, heard: DiscoveredDevice? = nil, findTimeout: Duration,
    configuration: DeviceSession.Configuration
  ) async throws(DeviceError) -> (session: DeviceSession, device: DiscoveredDevice) {
    var device = heard
    if device?.serial != serial {
      do {
        device = try await find(serial: serial, timeout: findTimeout)
      } catch .deviceNotFound {
        // No advertised match: try recorders heard by name only, confirmed by serial.
        let session = try await DeviceScanner(central: central).connect(
          serial: serial, configuration: configuration, timeout: findTimeout)
        return (session, await session.discoveredDevice)
      }
    }
    guard let device else { throw .deviceNotFound(serial: serial) }
    let session = try await DeviceSession.connect(
      to: device, using: central, configuration: configuration)
    return (session, device)
  }

  // MARK: - The radio

  private func startRadio(number: Int, after previous: Task<Void, Never>?) -> Task<Void, Never> {
    let central = self.central
    return Task { [weak self] in
      await previous?.value
      guard !Task.isCancelled else { return }
      for await advertisement in central.scan(services: nil) {
        guard let device = DeviceScanner.recognise(advertisement) else { continue }
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
