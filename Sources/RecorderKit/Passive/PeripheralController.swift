import Foundation
import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency

/// What a running operation is doing, in order, for the app to show (the seed's per-stage
/// delegate callbacks).
public enum PeripheralStage: Sendable, Equatable {
  /// Pairing began: show these instructions to the user now.
  case pairingInstructions(String)
  /// Waiting for the peripheral to be heard and connecting.
  case connecting
  /// Connected; a read now waits for the measurement.
  case connected
  /// Pairing (bonding) is in progress on the link.
  case bonding
  /// Pairing finished: reading is now possible.
  case paired
  /// A measurement arrived and decoded.
  case received(HealthRecord)
}

/// Detects and reads health peripherals, one operation at a time: ``pair(_:onStage:)`` or
/// ``read(_:onStage:)`` (the seed's controller model, as async calls).
///
/// **One operation at a time.** A request while another runs fails at once with
/// ``PassiveError/busy(running:)``; the running one continues. ``cancel()`` stops the
/// running operation, which then throws ``PassiveError/cancelled``; cancelling the calling
/// task does the same.
///
/// **Pair, then read.** A peripheral whose ``PassivePeripheral/requiresPairing`` is true
/// must be paired first: show the ``PeripheralStage/pairingInstructions(_:)`` text when it
/// arrives; once ``pair(_:onStage:)`` returns, ``read(_:onStage:)`` works. Reading an
/// unpaired one fails with ``PassiveError/notPaired(identifier:)``.
///
/// Thread-safe: the running operation and its canceller live in one `Locked`.
public final class PeripheralController: Sendable {
  /// Time limits, in the injected clock's time.
  public struct Options: Sendable {
    /// Finding and connecting to the peripheral for a read.
    public var connectTimeout: Duration = .seconds(10)
    /// From subscribing to the measurement arriving.
    public var measurementTimeout: Duration = .seconds(15)
    /// A pairing: the user follows the instructions meanwhile.
    public var pairingTimeout: Duration = .seconds(60)
    public init() {}
  }

  public let central: any Central
  public let options: Options
  let clock: AnyClock
  let now: @Sendable () -> Date
  /// Where pairing results are kept, and every record read goes to the upload outbox, when
  /// the controller belongs to a ``PassiveReader``.
  let registry: PassiveRegistry?
  /// Called after a record the app asked for is committed to the outbox.
  let onRecord: @Sendable (HealthRecord) -> Void

  private struct Running {
    var operation: PeripheralOperation
    var ticket: Int
    var cancel: (@Sendable () -> Void)?
    var cancelRequested = false
  }
  private let running = Locked<(current: Running?, nextTicket: Int)>((nil, 0))

  /// - Parameters:
  ///   - central: the radio to connect with.
  ///   - clock: every timeout runs on it.
  ///   - now: the wall clock that stamps records.
  ///   - options: connect and read limits.
  ///   - registry: when given, a successful pairing is recorded there and every record
  ///     ``read(_:onStage:)`` returns is committed to its upload outbox first (the seed's
  ///     "also uploaded"), as the reader's own reads are.
  ///   - onRecord: called after such a record is committed (the uploader's poke).
  public init(
    central: any Central, clock: AnyClock = .continuous, options: Options = Options(),
    now: @escaping @Sendable () -> Date = { Date() }, registry: PassiveRegistry? = nil,
    onRecord: @escaping @Sendable (HealthRecord) -> Void = { _ in }
  ) {
    self.central = central
    self.clock = clock
    self.options = options
    self.now = now
    self.registry = registry
    self.onRecord = onRecord
  }

  /// The operation running now, nil when idle.
  public var currentOperation: PeripheralOperation? { running.withLock { $0.current?.operation } }

  /// Cancels the running operation (it throws ``PassiveError/cancelled``); idle: nothing.
  public func cancel() {
    let cancel = running.withLock { state -> (@Sendable () -> Void)? in
      state.current?.cancelRequested = true
      return state.current?.cancel
    }
    cancel?()
  }

  // MARK: Operations

  /// Pairs with `peripheral`: reports the instructions, waits for it to be heard (up to
  /// ``Options/pairingTimeout``), reads its pairing characteristic so the OS bonds, and
  /// checks the bond. A peripheral that needs no pairing just has to be reachable.
  /// - Throws: ``PassiveError/busy(running:)``, ``PassiveError/cancelled``,
  ///   ``PassiveError/pairingFailed(identifier:reason:)``, ``PassiveError/link(_:)``,
  ///   ``PassiveError/unsupported(_:)`` for a recorder.
  public func pair(
    _ peripheral: PassivePeripheral,
    onStage: @escaping @Sendable (PeripheralStage) -> Void = { _ in }
  ) async throws(PassiveError) {
    let ticket = try reserve(.pair(identifier: peripheral.identifier))
    try await perform(ticket) { () async throws(PassiveError) in
      try await self.pairBody(peripheral, onStage: onStage)
    }
  }

  /// Reads one measurement from `peripheral`: connects (waiting up to
  /// ``Options/connectTimeout`` for it to be heard), subscribes to its measurement, and
  /// returns the first value indicated, decoded and stamped; with a registry, committed to
  /// the upload outbox before it is returned (a failed commit fails the read).
  /// - Throws: ``PassiveError/busy(running:)``, ``PassiveError/cancelled``,
  ///   ``PassiveError/notPaired(identifier:)``, ``PassiveError/noMeasurement(identifier:)``,
  ///   ``PassiveError/malformedMeasurement(_:)``, ``PassiveError/link(_:)``,
  ///   ``PassiveError/unsupported(_:)`` for a recorder.
  public func read(
    _ peripheral: PassivePeripheral,
    onStage: @escaping @Sendable (PeripheralStage) -> Void = { _ in }
  ) async throws(PassiveError) -> HealthRecord {
    let ticket = try reserve(.read(identifier: peripheral.identifier))
    return try await perform(ticket) { () async throws(PassiveError) in
      let record = try await self.readBody(peripheral, onStage: onStage)
      // Before the controller is free again: a passive reader's cooldown (told through
      // `onRecord`) is on before an advertisement could start another read.
      try self.commit(record)
      return record
    }
  }

  /// A record the app asked for: into the outbox (with a registry), then `onRecord`.
  func commit(_ record: HealthRecord) throws(PassiveError) {
    guard let registry else { return }
    try registry.enqueue(record)
    onRecord(record)
  }

  // MARK: The gate

  /// Claims the controller for `operation`, or throws ``PassiveError/busy(running:)``.
  func reserve(_ operation: PeripheralOperation) throws(PassiveError) -> Int {
    let result = running.withLock { state -> Result<Int, PassiveError> in
      if let current = state.current { return .failure(.busy(running: current.operation)) }
      state.nextTicket += 1
      state.current = Running(operation: operation, ticket: state.nextTicket)
      return .success(state.nextTicket)
    }
    return try result.get()
  }

  /// Runs `body` as the operation holding `ticket`, in its own task so ``cancel()`` can
  /// reach it; releases the controller when it ends.
  func perform<T: Sendable>(
    _ ticket: Int, _ body: @escaping @Sendable () async throws(PassiveError) -> T
  ) async throws(PassiveError) -> T {
    let task = Task { () async -> Result<T, PassiveError> in
      do throws(PassiveError) { return .success(try await body()) } catch {
        return .failure(error)
      }
    }
    let cancelledEarly = running.withLock { state -> Bool in
      guard state.current?.ticket == ticket else { return false }
      state.current?.cancel = { task.cancel() }
      return state.current?.cancelRequested ?? false
    }
    if cancelledEarly { task.cancel() }
    let result = await withTaskCancellationHandler {
      await task.value
    } onCancel: {
      task.cancel()
    }
    running.withLock { state in
      if state.current?.ticket == ticket { state.current = nil }
    }
    if case .failure = result, task.isCancelled { throw .cancelled }
    return try result.get()
  }

  // MARK: Bodies

  /// ``PassiveReader``'s way in: the bodies, run inside a ``perform(_:_:)`` it reserved.
  func pairBodyForReader(
    _ peripheral: PassivePeripheral, onStage: @escaping @Sendable (PeripheralStage) -> Void
  ) async throws(PassiveError) {
    try await pairBody(peripheral, onStage: onStage)
  }

  func readBodyForReader(
    _ peripheral: PassivePeripheral,
    onStage: @escaping @Sendable (PeripheralStage) -> Void = { _ in }
  ) async throws(PassiveError) -> HealthRecord {
    try await readBody(peripheral, onStage: onStage)
  }

  private func healthKind(_ peripheral: PassivePeripheral) throws(PassiveError)
    -> HealthPeripheralKind
  {
    guard case .health(let kind) = peripheral.kind else {
      throw .unsupported("\(peripheral.identifier) is a recorder: it is synced, not read")
    }
    return kind
  }

  private func connect(
    _ peripheral: PassivePeripheral, kind: HealthPeripheralKind, timeout: Duration
  ) async throws(PassiveError) -> any PeripheralLink {
    do {
      return try await central.connect(
        peripheral.peripheralID, services: [BluetoothUUID(kind.serviceUUID)], timeout: timeout)
    } catch {
      throw .from(error)
    }
  }

  private func pairBody(
    _ peripheral: PassivePeripheral, onStage: @Sendable (PeripheralStage) -> Void
  ) async throws(PassiveError) {
    let kind = try healthKind(peripheral)
    onStage(.pairingInstructions(peripheral.instructions))
    onStage(.connecting)
    let link = try await connect(peripheral, kind: kind, timeout: options.pairingTimeout)
    onStage(.connected)
    // Not held like a read: the bond events are not consumed here, and the user's time
    // following the instructions must pass.
    let outcome: Result<Void, PassiveError> = await Self.capture {
      () async throws(PassiveError) in
      if kind.requiresPairing { onStage(.bonding) }
      do throws(LinkError) {
        _ = try await link.read(BluetoothUUID(kind.pairingCharacteristicUUID))
      } catch .attError(let code) {
        throw .pairingFailed(
          identifier: peripheral.identifier,
          reason: "the peripheral refused (ATT error 0x\(String(code, radix: 16)))")
      } catch {
        throw .from(error)
      }
      if kind.requiresPairing, await link.bondState != .bonded {
        throw .pairingFailed(identifier: peripheral.identifier, reason: "no bond afterwards")
      }
    }
    await link.disconnect()
    try outcome.get()
    try registry?.markPaired(peripheral.identifier)
    onStage(.paired)
  }

  private func readBody(
    _ peripheral: PassivePeripheral, onStage: @Sendable (PeripheralStage) -> Void
  ) async throws(PassiveError) -> HealthRecord {
    let kind = try healthKind(peripheral)
    onStage(.connecting)
    let link = try await connect(peripheral, kind: kind, timeout: options.connectTimeout)
    onStage(.connected)
    let measurement = BluetoothUUID(kind.measurement.uuid)
    let outcome: Result<[UInt8], PassiveError> = await Self.capture {
      () async throws(PassiveError) in
      do throws(LinkError) {
        try await link.setNotifications(true, for: measurement)
      } catch .attError(let code) where Self.authenticationErrors.contains(code) {
        throw .notPaired(identifier: peripheral.identifier)
      } catch {
        throw .from(error)
      }
      let value = await Self.firstIndication(
        of: measurement, on: link, within: options.measurementTimeout, clock: clock)
      switch value {
      case .value(let bytes): return bytes
      case .disconnected(let reason): throw .link(.disconnected(reason))
      case .timedOut:
        if Task.isCancelled { throw .cancelled }
        throw .noMeasurement(identifier: peripheral.identifier)
      }
    }
    await link.disconnect()
    let bytes = try outcome.get()
    let decoded: HealthMeasurement
    do {
      decoded = try HealthMeasurement.decode(characteristic: kind.measurement, bytes: bytes)
    } catch {
      throw .malformedMeasurement(error)
    }
    let record = HealthRecord(
      peripheral: peripheral.identifier, kind: kind, measurement: decoded, rawValue: bytes,
      receivedAt: now())
    onStage(.received(record))
    return record
  }

  /// ATT errors that mean "bond first": insufficient authentication (0x05) and
  /// insufficient encryption (0x0F).
  static let authenticationErrors: Set<UInt8> = [0x05, 0x0F]

  private static func capture<T: Sendable>(_ body: () async throws(PassiveError) -> T) async
    -> Result<T, PassiveError>
  {
    do throws(PassiveError) { return .success(try await body()) } catch {
      return .failure(error)
    }
  }

  private enum Indication: Sendable {
    case value([UInt8])
    case disconnected(DisconnectReason)
    case timedOut
  }

  /// The first indication of `characteristic` on `link`, its end, or a timeout.
  private static func firstIndication(
    of characteristic: BluetoothUUID, on link: any PeripheralLink, within timeout: Duration,
    clock: AnyClock
  ) async -> Indication {
    await withTaskGroup(of: Indication.self) { group in
      group.addTask {
        for await event in link.events {
          switch event {
          case .notification(let uuid, let value) where uuid == characteristic:
            return .value(value)
          case .disconnected(let reason): return .disconnected(reason)
          default: continue
          }
        }
        return .disconnected(.linkLoss)
      }
      group.addTask {
        try? await clock.sleep(for: timeout)
        return .timedOut
      }
      let first = await group.next() ?? .timedOut
      group.cancelAll()
      return first
    }
  }
}
