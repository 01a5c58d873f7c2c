import RecorderBluetooth
import RecorderConcurrency

extension Recorders {
  /// Keeps `connection` connected: its device events pass through, and after a loss nobody
  /// asked for (the recorder went out of range, ran flat, rebooted) a pending connect to the
  /// same recorder stands until it is back (``connectWhenInRange(to:session:)``: no scan, no
  /// time limit; on iOS the system completes it while the app is suspended, or relaunches an
  /// app it terminated). Each connection it makes is reported as
  /// ``KeptConnection/Event/connected(_:)``, and is kept the same way.
  ///
  /// While a pending connect stands, the recorder is marked in ``Configuration/known``
  /// (``KnownRecorders/setAwaited(_:serial:)``), so a launch after the user force-quit the
  /// app or the phone restarted (when the system keeps no pending connect) makes it again with
  /// ``restoreKeptConnection(session:)``.
  ///
  /// `connection`'s session events are read by the keeping from now on (they are single
  /// consumer): read them as ``KeptConnection/Event/device(_:)``.
  /// - Parameters:
  ///   - connection: a connection made by this door.
  ///   - session: the session configuration of each connection made again (default: the one
  ///     `connection` was made with).
  ///   - reconnectsWhenInRange: false: no pending connect; the keeping ends with the first
  ///     loss (its events are then only `connection`'s).
  /// - Returns: the keeping; ``KeptConnection/withdraw()`` ends it.
  public func keepConnected(
    _ connection: RecorderConnection, session: DeviceSession.Configuration? = nil,
    reconnectsWhenInRange: Bool = true
  ) -> KeptConnection {
    KeptConnection(
      door: self, start: .connected(connection),
      session: session ?? connection.sessionConfiguration, reconnects: reconnectsWhenInRange)
  }

  /// Keeps the recorder with `serial`, met before (``Configuration/known``), connected from
  /// now on, starting with a pending connect to it (marked in ``Configuration/known`` until it
  /// completes or is withdrawn); then as ``keepConnected(_:session:reconnectsWhenInRange:)``.
  /// For a recorder not connected now (the pending connect would complete at once, beside
  /// the connection up).
  /// - Parameters:
  ///   - serial: the recorder's serial.
  ///   - session: the session configuration of each connection (default
  ///     ``Configuration/session``).
  /// - Throws: ``DeviceError/deviceNotFound(serial:)`` when no such recorder is remembered.
  public func keepConnected(
    serial: String, session: DeviceSession.Configuration? = nil
  ) throws(DeviceError) -> KeptConnection {
    guard let device = configuration.known?.device(serial: serial) else {
      throw .deviceNotFound(serial: serial)
    }
    return KeptConnection(
      door: self, start: .pending(device, serial: serial, owedBefore: false),
      session: session ?? configuration.session, reconnects: true)
  }

  /// At launch: keeps connected the recorder an earlier launch was waiting for (the most
  /// recently connected one marked in ``Configuration/known``), starting with a pending
  /// connect to it, as ``keepConnected(serial:session:)``. After the system terminated the
  /// app, that connect joins the one the system kept (``Central/restoredPeripherals()``);
  /// after a force-quit or a restart of the phone it is the only one.
  /// - Parameter session: the session configuration of each connection (default
  ///   ``Configuration/session``). Call it once a launch, once the token is known and before
  ///   connecting to that recorder otherwise: each call makes another keeping.
  /// - Returns: the keeping, or nil when no pending connect is owed (or the recorder owed is
  ///   no longer remembered).
  public func restoreKeptConnection(session: DeviceSession.Configuration? = nil)
    -> KeptConnection?
  {
    guard let known = configuration.known, let serial = known.awaited.first,
      let device = known.device(serial: serial)
    else { return nil }
    return KeptConnection(
      door: self, start: .pending(device, serial: serial, owedBefore: true),
      session: session ?? configuration.session, reconnects: true)
  }
}

/// A recorder a ``Recorders`` keeps connected (``Recorders/keepConnected(_:session:reconnectsWhenInRange:)``,
/// ``Recorders/keepConnected(serial:session:)``, ``Recorders/restoreKeptConnection(session:)``):
/// the connections it makes, the recorder's events on them, the losses, in order, on
/// ``events``.
///
/// It stands until ``withdraw()``, a loss that was asked for (the app closed the session,
/// ``DisconnectReason/localRequest``), a pending connect that fails, or the end of the
/// iteration of ``events``: then ``events`` finishes. Withdraw it before disconnecting or
/// depairing, and before an explicit connect to the same recorder (a pending connect beside
/// it would bring up a second connection). Withdrawing ends a pending connect at once and
/// clears the recorder's mark in ``Recorders/Configuration/known``; a connection up keeps
/// running, its events still pass, and its end is the last event.
///
/// Waits for nothing on a clock of its own: the pending connect has no time limit (the
/// platform's: a restored pending connect on iOS gives up after
/// `CoreBluetoothCentral.Configuration.restoredConnectTimeout`, reported as
/// ``Event/failed(_:)``). Safe to use from any task.
public final class KeptConnection: Sendable {
  /// What happened to the kept recorder.
  public enum Event: Sendable {
    /// A connection is up: the first one kept, or one made when the recorder came back. Use
    /// it until the next ``disconnected(_:reconnecting:)``. A connection the keeping made is
    /// its own: it gives its radio back when it ends (closing it as well is harmless).
    case connected(RecorderConnection)
    /// Something the connected recorder reported on its own (recording, battery; its loss is
    /// ``disconnected(_:reconnecting:)``).
    case device(DeviceEvent)
    /// The connection of the last ``connected(_:)`` ended, for `reason` (nil: the session was
    /// closed on this side). `reconnecting`: a pending connect to the recorder now stands
    /// (the loss was not asked for and the keeping stands); false: this is the last event.
    case disconnected(DisconnectReason?, reconnecting: Bool)
    /// The pending connect failed (the radio is off, the token was refused, the platform gave
    /// up): the recorder is no longer marked as awaited, and this is the last event.
    case failed(any Error)
  }

  /// How the keeping starts.
  enum Start: Sendable {
    case connected(RecorderConnection)
    /// A pending connect to `device`; `owedBefore`: the mark in the known recorders was left
    /// by an earlier launch.
    case pending(DiscoveredDevice, serial: String, owedBefore: Bool)
  }

  /// Where the keeping is; guarded by ``state``'s lock, which is held across each change
  /// together with the mark in the known recorders, so a withdrawal never leaves a stale mark.
  private struct State {
    enum Phase {
      case connected
      case pending
      case ended
    }
    var phase: Phase
    var withdrawn = false
    /// The serial this keeping marked as awaited (cleared when the pending connect ends).
    var owed: String?
    var worker: Task<Void, Never>?
  }

  /// What the keeping reports, in order. Finishes when the keeping ends.
  public let events: AsyncStream<Event>
  private let continuation: AsyncStream<Event>.Continuation
  private let state: Locked<State>
  private let door: Recorders
  private let session: DeviceSession.Configuration
  private let reconnects: Bool

  init(
    door: Recorders, start: Start, session: DeviceSession.Configuration, reconnects: Bool
  ) {
    self.door = door
    self.session = session
    self.reconnects = reconnects
    (events, continuation) = AsyncStream.makeStream(of: Event.self)
    switch start {
    case .connected:
      state = Locked(State(phase: .connected))
    case .pending(_, let serial, let owedBefore):
      state = Locked(State(phase: .pending, owed: serial))
      if !owedBefore { door.configuration.known?.setAwaited(true, serial: serial) }
    }
    continuation.onTermination = { [weak self] termination in
      if case .cancelled = termination { self?.withdraw() }
    }
    state.withLock { state in
      state.worker = Task { await self.run(start) }
    }
  }

  /// True once ``withdraw()`` was called (or the iteration of ``events`` ended).
  public var isWithdrawn: Bool { state.withLock { $0.withdrawn } }

  /// Ends the keeping: a pending connect is withdrawn at once and the recorder's awaited
  /// mark cleared; a connection up is left as it is (close it yourself), and no pending
  /// connect follows its end. Idempotent.
  public func withdraw() {
    let known = door.configuration.known
    state.withLock { state in
      guard !state.withdrawn else { return }
      state.withdrawn = true
      if let serial = state.owed {
        state.owed = nil
        known?.setAwaited(false, serial: serial)
      }
      if state.phase == .pending { state.worker?.cancel() }
    }
  }

  // MARK: - The keeping

  private func run(_ start: Start) async {
    var current: RecorderConnection
    var device: DiscoveredDevice
    // The first connection given is the caller's; the ones made here are the keeping's.
    var owned: Bool
    switch start {
    case .connected(let connection):
      (current, device, owned) = (connection, connection.device, false)
    case .pending(let remembered, _, _):
      guard let made = await waitForReturn(of: remembered) else { return finish() }
      (current, device, owned) = (made, remembered, true)
    }
    while true {
      continuation.yield(.connected(current))
      let reason = await forwardEvents(of: current)
      if owned { current.release() }
      let serial = await current.session.info.serial
      if device.serial == nil, !serial.isEmpty { device.serial = serial }
      let reconnecting = decideAfterLoss(reason: reason, serial: serial)
      continuation.yield(.disconnected(reason, reconnecting: reconnecting))
      guard reconnecting, let made = await waitForReturn(of: device) else { return finish() }
      (current, owned) = (made, true)
    }
  }

  /// Passes the session's events on until it ends; returns the link's reason (nil: closed
  /// on this side).
  private func forwardEvents(of connection: RecorderConnection) async -> DisconnectReason? {
    var reason: DisconnectReason?
    for await event in connection.session.events {
      if case .disconnected(let lost) = event {
        reason = lost
      } else {
        continuation.yield(.device(event))
      }
    }
    return reason
  }

  /// After a connection ended: whether a pending connect follows (a loss not asked for,
  /// while the keeping stands), marked in the known recorders in the same step.
  private func decideAfterLoss(reason: DisconnectReason?, serial: String) -> Bool {
    let unexpected = reason != nil && reason != .localRequest
    let known = door.configuration.known
    return state.withLock { state in
      guard reconnects, unexpected, !state.withdrawn else {
        state.phase = .ended
        return false
      }
      state.phase = .pending
      if !serial.isEmpty {
        state.owed = serial
        known?.setAwaited(true, serial: serial)
      }
      return true
    }
  }

  /// The pending connect to `device`: the connection once it is back (the awaited mark
  /// cleared), or nil when withdrawn or failed (reported).
  private func waitForReturn(of device: DiscoveredDevice) async -> RecorderConnection? {
    let outcome: Result<RecorderConnection, any Error>
    do {
      outcome = .success(try await door.connectWhenInRange(to: device, session: session))
    } catch {
      outcome = .failure(error)
    }
    let known = door.configuration.known
    let settled = state.withLock { state -> (withdrawn: Bool, phase: State.Phase) in
      if let serial = state.owed {
        state.owed = nil
        known?.setAwaited(false, serial: serial)
      }
      if !state.withdrawn, case .success = outcome {
        state.phase = .connected
      } else {
        state.phase = .ended
      }
      return (state.withdrawn, state.phase)
    }
    switch outcome {
    case .success(let made):
      guard !settled.withdrawn else {
        await made.close()
        return nil
      }
      return Self.releasingOnce(made)
    case .failure(let error):
      if !settled.withdrawn { continuation.yield(.failed(error)) }
      return nil
    }
  }

  private func finish() {
    state.withLock { state in
      state.phase = .ended
      state.worker = nil
    }
    continuation.finish()
  }

  /// `connection` whose radio is given back once, whoever closes it first (the keeping, when
  /// its session ends, or the app).
  private static func releasingOnce(_ connection: RecorderConnection) -> RecorderConnection {
    let released = Locked(false)
    let release = connection.release
    return RecorderConnection(
      session: connection.session, device: connection.device, central: connection.central,
      sessionConfiguration: connection.sessionConfiguration,
      release: {
        let first = released.withLock { done in
          defer { done = true }
          return !done
        }
        if first { release() }
      })
  }
}
