import RecorderBluetooth
import RecorderConcurrency

/// A `Central` over CoreBluetooth, through the mirrored shape of ``CentralManagerMirror``:
/// every decision is here and tested on Linux against a scripted mirror; the Apple-only
/// binding only translates calls and callbacks.
///
/// What it decides:
/// - a fresh manager is `CentralState/unknown`; commands wait for
///   `CentralState/poweredOn` up to ``Configuration/powerOnTimeout`` (unsupported and
///   unauthorized fail at once, they do not change by waiting);
/// - one scan at a time: a new ``scan(services:)`` ends the previous stream;
/// - a connect is a pending CoreBluetooth connect; with a timeout (the foreground) it is
///   cancelled when the time is up, without one (a background wake-up) it waits as long as
///   the system keeps it; services and their characteristics are discovered before the link
///   is handed out;
/// - state restoration: peripherals the system kept connected or connecting are re-attached
///   (``restoredPeripherals()``); a connect to a restored pending one waits at most
///   ``Configuration/restoredConnectTimeout`` and leaves the system's pending connect in
///   place, so the system can still relaunch the app when the device comes into range;
/// - disconnect reasons from the `CBError` codes (see `CoreBluetoothFailure`).
///
/// Thread-safe: all state is in a lock-protected `CentralMachine`; mirror calls are made
/// outside that lock.
public final class CoreBluetoothCentral: Central {
  /// The bounds and identity of a central.
  public struct Configuration: Sendable {
    /// `CBCentralManagerOptionRestoreIdentifierKey`: set it to have the system keep links and
    /// pending connects across an app relaunch. The same identifier must be used every launch.
    public var restoreIdentifier: String?
    /// How long a command waits for the radio to report powered on.
    public var powerOnTimeout: Duration
    /// How long service and characteristic discovery may take after a connect without a
    /// timeout (a connect with a timeout spends what is left of it).
    public var discoveryTimeout: Duration
    /// How long a connect waits on a pending connect restored from a previous launch.
    public var restoredConnectTimeout: Duration
    /// How long `PeripheralLink/disconnect()` waits for the system to confirm.
    public var disconnectTimeout: Duration
    /// The clock the bounds run on (a manual clock in tests).
    public var clock: AnyClock

    public init(
      restoreIdentifier: String? = nil, powerOnTimeout: Duration = .seconds(10),
      discoveryTimeout: Duration = .seconds(15), restoredConnectTimeout: Duration = .seconds(10),
      disconnectTimeout: Duration = .seconds(3), clock: AnyClock = .continuous
    ) {
      self.restoreIdentifier = restoreIdentifier
      self.powerOnTimeout = powerOnTimeout
      self.discoveryTimeout = discoveryTimeout
      self.restoredConnectTimeout = restoredConnectTimeout
      self.disconnectTimeout = disconnectTimeout
      self.clock = clock
    }
  }

  /// The callback sink a mirror is made with: every delegate callback goes here, in order.
  public typealias EventSink = @Sendable (CentralManagerEvent) -> Void

  let configuration: Configuration
  let machine: CentralMachine
  let manager: any CentralManagerMirror

  /// A central over the manager `makeManager` returns. `makeManager` gets the restore
  /// identifier and the sink for the manager's callbacks; restoration may call the sink
  /// before `makeManager` returns.
  public init(
    configuration: Configuration = Configuration(),
    makeManager: (_ restoreIdentifier: String?, _ events: @escaping EventSink) ->
      any CentralManagerMirror
  ) {
    self.configuration = configuration
    let machine = CentralMachine(clock: configuration.clock)
    self.machine = machine
    manager = makeManager(configuration.restoreIdentifier) { machine.handle($0) }
  }

  public var state: CentralState { machine.radio.current }

  public func stateUpdates() -> AsyncStream<CentralState> { machine.radio.updates() }

  /// Waits (bounded) for the radio to be on.
  func waitForPowerOn() async throws(LinkError) {
    let radio = machine.radio
    let outcome = await machine.wait(for: .poweredOn, timeout: configuration.powerOnTimeout) {
      _ in
      switch radio.current {
      case .poweredOn: .done
      case .unsupported, .unauthorized: .failed(.notPoweredOn(radio.current))
      default: nil
      }
    }
    switch outcome {
    case .failed(let error): throw error
    case .timedOut: throw .notPoweredOn(radio.current)
    case .cancelled: throw .cancelled
    default: return
    }
  }

  /// Advertisements heard, once the radio is on (the stream ends if it does not come on
  /// within ``Configuration/powerOnTimeout``, or when it goes off). One scan at a time:
  /// starting another ends this stream.
  public func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    let id = machine.newID()
    let machine = self.machine
    let manager = self.manager
    return AsyncStream { continuation in
      let task = Task {
        do { try await waitForPowerOn() } catch {
          continuation.finish()
          return
        }
        // A consumer that already stopped (its termination cancelled this task) gets no scan.
        let previous = machine.state.withLock { state -> Scan?? in
          guard !Task.isCancelled else { return nil }
          let previous = state.scan
          state.scan = Scan(id: id, continuation: continuation)
          return .some(previous)
        }
        guard let previous else { return }
        previous?.continuation.finish()
        manager.scanForPeripherals(withServices: services)
      }
      continuation.onTermination = { _ in
        task.cancel()
        let current = machine.state.withLock { state -> Bool in
          guard state.scan?.id == id else { return false }
          state.scan = nil
          return true
        }
        if current { manager.stopScan() }
      }
    }
  }

  typealias Scan = CentralMachine.Scan

  public func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    try await connect(peripheral, services: services, timeout: Optional(timeout))
  }

  /// The system's pending connect (no timeout): `connect(_:services:timeout:)` with
  /// a nil timeout.
  public func connectWhenInRange(_ peripheral: PeripheralID, services: [BluetoothUUID])
    async throws(LinkError) -> any PeripheralLink
  {
    try await connect(peripheral, services: services, timeout: nil)
  }

  /// Connects to `peripheral` and discovers `services` and their characteristics.
  ///
  /// - Parameters:
  ///   - peripheral: the peripheral, as a scan or the restored state named it.
  ///   - services: the services to discover, with their characteristics.
  ///   - timeout: the foreground bound; nil keeps the pending connect until the device is
  ///     in range (the background wake-up case: the system connects when it hears it and
  ///     relaunches the app if needed). Discovery after it is bounded by
  ///     ``Configuration/discoveryTimeout``.
  /// - Throws: `LinkError/notPoweredOn(_:)`, `LinkError/unknownPeripheral(_:)` for a
  ///   peripheral the system has no object for, `LinkError/connectTimeout`,
  ///   `LinkError/disconnected(_:)` with the `CBError`'s reason,
  ///   `LinkError/serviceNotFound(_:)` for a missing required service
  ///   (`RecorderGATT/required(of:)`: a recorder's battery service is optional),
  ///   `LinkError/cancelled`.
  public func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration?)
    async throws(LinkError) -> CoreBluetoothLink
  {
    let clock = configuration.clock
    let start = clock.elapsed
    let remaining = { timeout.map { max(.zero, $0 - (clock.elapsed - start)) } }
    try await waitForPowerOn()
    try knowPeripheral(peripheral)
    let generation = try await connection(to: peripheral, timeout: remaining())
    do {
      try await discover(
        services, of: peripheral, generation: generation,
        timeout: remaining() ?? configuration.discoveryTimeout)
    } catch {
      manager.cancelPeripheralConnection(peripheral)
      machine.state.withLock { machine.end(peripheral, .localRequest, &$0) }
      throw error
    }
    return try attach(peripheral, generation: generation)
  }

  /// Peripherals the system kept connected or connecting for us across a relaunch and that
  /// are not lost since. Waits (bounded) for the manager's first state, which the system
  /// sends after `willRestoreState`.
  public func restoredPeripherals() async -> [PeripheralID] {
    _ = await machine.wait(for: .stateKnown, timeout: configuration.powerOnTimeout) {
      $0.stateKnown ? .done : nil
    }
    return machine.state.withLock { $0.restored.sorted { $0.rawValue < $1.rawValue } }
  }

  /// Makes sure the system has an object for `peripheral` (heard, restored or retrievable).
  private func knowPeripheral(_ peripheral: PeripheralID) throws(LinkError) {
    if machine.state.withLock({ $0.known.contains(peripheral) }) { return }
    guard manager.retrievePeripherals(withIdentifiers: [peripheral]).contains(peripheral) else {
      throw .unknownPeripheral(peripheral)
    }
    machine.state.withLock { _ = $0.known.insert(peripheral) }
  }
}
