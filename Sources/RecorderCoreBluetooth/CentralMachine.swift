import RecorderBluetooth
import RecorderConcurrency

/// The state of a ``CoreBluetoothCentral`` and everything waiting on it: the manager's
/// callbacks come in through ``handle(_:)``, callers wait for the one they need with
/// ``wait(for:timeout:check:then:)``.
///
/// Thread-safe: all state sits in one `Locked`; the system's queue calls ``handle(_:)``
/// while any task waits. Continuations are resumed and streams fed under the lock (neither
/// runs code of ours); `AsyncStream` finishes, which run termination handlers, and mirror
/// calls happen outside it.
final class CentralMachine: Sendable {
  /// What a waiter waits for.
  enum Expectation: Equatable {
    /// Any `didUpdateState` (restoration comes before the first).
    case stateKnown
    case poweredOn
    case connection(PeripheralID)
    /// The link is gone (after our own cancel).
    case gone(PeripheralID)
    case services(PeripheralID)
    case characteristics(PeripheralID, service: BluetoothUUID)
    case read(PeripheralID, BluetoothUUID)
    case write(PeripheralID, BluetoothUUID)
    case notifyState(PeripheralID, BluetoothUUID)
    case readyToSend(PeripheralID)

    var peripheral: PeripheralID? {
      switch self {
      case .stateKnown, .poweredOn: nil
      case .connection(let id), .gone(let id), .services(let id), .characteristics(let id, _),
        .read(let id, _), .write(let id, _), .notifyState(let id, _), .readyToSend(let id):
        id
      }
    }
  }

  /// How a wait ended.
  enum Outcome: Equatable {
    case value([UInt8])
    case uuids([BluetoothUUID])
    case done
    case failed(LinkError)
    case timedOut
    case cancelled
  }

  /// One peripheral CoreBluetooth holds a connection (or a pending connect) to for us.
  struct Entry {
    var connected: Bool
    /// Re-attached from `willRestoreState`, not connected by this process.
    var restored: Bool
    /// Distinguishes this connection from an earlier one to the same peripheral.
    var generation: Int
    /// Characteristic UUIDs by service, as discovered.
    var services: [BluetoothUUID: [BluetoothUUID]] = [:]
    /// Where the link's events go, once a caller holds the link.
    var events: BackpressureStream<LinkEvent>.Continuation?
    /// Characteristics whose value updates are notifications (not read results).
    var notifying: Set<BluetoothUUID> = []
    /// Bumped by every `peripheralIsReady(toSendWriteWithoutResponse:)`.
    var readyCount = 0
  }

  struct Scan {
    var id: Int
    var continuation: AsyncStream<Advertisement>.Continuation
  }

  struct State {
    var entries: [PeripheralID: Entry] = [:]
    /// Peripherals the system has an object for (heard, retrieved or restored).
    var known: Set<PeripheralID> = []
    /// Restored peripherals not lost since.
    var restored: Set<PeripheralID> = []
    /// Why each peripheral's last link ended.
    var lastReason: [PeripheralID: DisconnectReason] = [:]
    var stateKnown = false
    var waiters: [Int: (Expectation, CheckedContinuation<Outcome, Never>)] = [:]
    /// Outcomes (timeout, cancellation) that came before their waiter registered.
    var early: [Int: Outcome] = [:]
    var nextID = 0
    var nextGeneration = 0
    var scan: Scan?
  }

  let state = Locked(State())
  let radio = CentralStateBroadcast(.unknown)
  let clock: AnyClock

  init(clock: AnyClock) { self.clock = clock }

  func newID() -> Int {
    state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
  }

  /// Waits for `expectation`, for at most `timeout` (nil: no bound) and until the calling
  /// task is cancelled. `check` runs under the lock first and may answer at once (the thing
  /// already happened, or cannot); otherwise the waiter is registered and then `command`
  /// runs, so its callback can never come before the waiter is there.
  func wait(
    for expectation: Expectation, timeout: Duration?,
    check: @Sendable (inout State) -> Outcome? = { _ in nil },
    then command: () -> Void = {}
  ) async -> Outcome {
    let id = newID()
    let clock = self.clock
    let timer = timeout.map { timeout in
      Task { [self] in
        do { try await clock.sleep(for: timeout) } catch { return }
        resolve(id, .timedOut)
      }
    }
    defer {
      timer?.cancel()
      state.withLock { _ = $0.early.removeValue(forKey: id) }
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
        let immediate = state.withLock { state -> Outcome? in
          if let early = state.early.removeValue(forKey: id) { return early }
          if let answer = check(&state) { return answer }
          state.waiters[id] = (expectation, continuation)
          return nil
        }
        if let immediate {
          continuation.resume(returning: immediate)
        } else {
          command()
        }
      }
    } onCancel: {
      resolve(id, .cancelled)
    }
  }

  /// Ends waiter `id` with `outcome` (or keeps the outcome for it if it has not registered).
  func resolve(_ id: Int, _ outcome: Outcome) {
    let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
      guard let (_, continuation) = state.waiters.removeValue(forKey: id) else {
        state.early[id] = outcome
        return nil
      }
      return continuation
    }
    waiter?.resume(returning: outcome)
  }
}

extension CentralMachine.State {
  /// Resumes the oldest waiter for `expectation`; false when nobody waits for it.
  @discardableResult
  mutating func resumeFirst(
    _ expectation: CentralMachine.Expectation, with outcome: CentralMachine.Outcome
  ) -> Bool {
    let first = waiters.filter { $0.value.0 == expectation }.keys.min()
    guard let first, let (_, continuation) = waiters.removeValue(forKey: first) else {
      return false
    }
    continuation.resume(returning: outcome)
    return true
  }

  /// Resumes every waiter that `matches` accepts, with the outcome it gives.
  mutating func resumeAll(
    _ outcome: (CentralMachine.Expectation) -> CentralMachine.Outcome?
  ) {
    for (id, (expectation, continuation)) in waiters {
      guard let result = outcome(expectation) else { continue }
      waiters[id] = nil
      continuation.resume(returning: result)
    }
  }

  /// The failure of an operation on `peripheral` whose connection `generation` is gone.
  func gone(_ peripheral: PeripheralID, generation: Int?) -> CentralMachine.Outcome? {
    if let entry = entries[peripheral], generation == nil || entry.generation == generation {
      return nil
    }
    return .failed(.disconnected(lastReason[peripheral] ?? .linkLoss))
  }
}
