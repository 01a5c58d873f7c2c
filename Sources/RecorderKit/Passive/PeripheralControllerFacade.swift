import Dispatch
import RecorderConcurrency

/// The callbacks of ``PeripheralControllerFacade``, one per stage (the seed's controller
/// delegate). Called on the facade's serial queue, never on the main thread, one at a time
/// and in order.
public protocol PeripheralControllerDelegate: AnyObject, Sendable {
  /// Pairing began: present `instructions` to the user now.
  func peripheralController(
    _ controller: PeripheralControllerFacade, shouldPresentInstructions instructions: String,
    for peripheral: PassivePeripheral)
  /// Pairing finished; reading is now safe.
  func peripheralController(
    _ controller: PeripheralControllerFacade, didPair peripheral: PassivePeripheral)
  /// Connected to `peripheral` (a read now waits for the measurement).
  func peripheralController(
    _ controller: PeripheralControllerFacade, didConnect peripheral: PassivePeripheral)
  /// The read produced `record`.
  func peripheralController(
    _ controller: PeripheralControllerFacade, didReceive record: HealthRecord,
    from peripheral: PassivePeripheral)
  /// The operation on `peripheral` failed (``PassiveError/cancelled`` after ``PeripheralControllerFacade/cancel()``).
  func peripheralController(
    _ controller: PeripheralControllerFacade, didFail operation: PeripheralOperation,
    error: PassiveError)
  /// Discovery (``PeripheralControllerFacade/startDiscovery()``) heard `peripheral`: once per
  /// discovery, again after it stopped advertising and came back. Optional: the default
  /// does nothing.
  func peripheralController(
    _ controller: PeripheralControllerFacade, didDiscover peripheral: DiscoveredHealthPeripheral)
}

extension PeripheralControllerDelegate {
  /// Does nothing: a delegate that never starts discovery need not implement it.
  public func peripheralController(
    _ controller: PeripheralControllerFacade, didDiscover peripheral: DiscoveredHealthPeripheral
  ) {}
}

/// The delegate-style controller of the seed, over ``PeripheralController``: `pair` and
/// `read` return at once (or throw ``PassiveError/busy(running:)`` when an operation is
/// already running) and report each stage to the ``delegate``. Translation only: every rule
/// (one operation at a time, pair then read, timeouts) is the core controller's.
///
/// Detection: made over a ``PassiveReader`` (``init(reader:)``), it also discovers health
/// peripherals (``startDiscovery()``), through the reader, which owns the one scan.
///
/// Thread-safe: the delegate is held weakly in a `Locked`, the discovery task in another;
/// callbacks are delivered on one private serial `DispatchQueue`.
public final class PeripheralControllerFacade: Sendable {
  public let core: PeripheralController
  /// The reader whose scan discovery uses; nil: this facade only pairs and reads.
  public let reader: PassiveReader?
  private let weakDelegate = Locked<WeakDelegate>(WeakDelegate())
  private let queue = DispatchQueue(label: "RecorderKit.PeripheralControllerFacade")
  /// The running discovery, nil when none.
  private let discovery = Locked<Task<Void, Never>?>(nil)

  private struct WeakDelegate {
    weak var value: (any PeripheralControllerDelegate)?
  }

  /// A facade that pairs and reads with `core`; it cannot discover (no scan of its own).
  public init(core: PeripheralController) {
    self.core = core
    reader = nil
  }

  /// A facade over `reader`'s controller that also discovers, with `reader`'s scan.
  public init(reader: PassiveReader) {
    core = reader.controller
    self.reader = reader
  }

  /// Receives the callbacks; held weakly.
  public var delegate: (any PeripheralControllerDelegate)? {
    get { weakDelegate.withLock { $0.value } }
    set { weakDelegate.withLock { $0.value = newValue } }
  }

  /// Starts pairing `peripheral`. Callbacks: instructions, then `didPair` or `didFail`.
  /// - Throws: ``PassiveError/busy(running:)`` at once when an operation is running.
  public func pair(_ peripheral: PassivePeripheral) throws(PassiveError) {
    let operation = PeripheralOperation.pair(identifier: peripheral.identifier)
    let ticket = try core.reserve(operation)
    Task {
      do throws(PassiveError) {
        try await core.perform(ticket) { () async throws(PassiveError) in
          try await self.core.pairBodyForReader(peripheral) { stage in
            self.deliver(stage, peripheral)
          }
        }
        deliver { $1.peripheralController($0, didPair: peripheral) }
      } catch {
        deliver { $1.peripheralController($0, didFail: operation, error: error) }
      }
    }
  }

  /// Starts reading `peripheral`. Callbacks: `didConnect`, then `didReceive` or `didFail`.
  /// A core with a registry commits the record to the upload outbox before `didReceive`.
  /// - Throws: ``PassiveError/busy(running:)`` at once when an operation is running.
  public func read(_ peripheral: PassivePeripheral) throws(PassiveError) {
    let operation = PeripheralOperation.read(identifier: peripheral.identifier)
    let ticket = try core.reserve(operation)
    Task {
      do throws(PassiveError) {
        let record = try await core.perform(ticket) { () async throws(PassiveError) in
          try await self.core.readBodyForReader(peripheral) { stage in
            self.deliver(stage, peripheral)
          }
        }
        try core.commit(record)
        deliver { $1.peripheralController($0, didReceive: record, from: peripheral) }
      } catch {
        deliver { $1.peripheralController($0, didFail: operation, error: error) }
      }
    }
  }

  /// Cancels the running operation; its `didFail` reports ``PassiveError/cancelled``.
  public func cancel() { core.cancel() }

  // MARK: Detection

  /// Starts discovering health peripherals: each one heard is reported to
  /// `peripheralController(_:didDiscover:)` (the rules are ``PassiveReader/discover()``'s)
  /// until ``stopDiscovery()``. Already discovering: nothing changes. Discovery is no
  /// operation: pairing and reading go on beside it.
  /// - Throws: ``PassiveError/unsupported(_:)`` when the facade has no ``reader``.
  public func startDiscovery() throws(PassiveError) {
    guard let reader else {
      throw .unsupported("discovery needs the reader's scan: make the facade with init(reader:)")
    }
    discovery.withLock { running in
      guard running == nil else { return }
      running = Task {
        for await found in await reader.discover() {
          deliver { $1.peripheralController($0, didDiscover: found) }
        }
      }
    }
  }

  /// Stops discovering; callbacks already queued may still arrive. Not discovering: nothing.
  public func stopDiscovery() {
    discovery.withLock { running in
      running?.cancel()
      running = nil
    }
  }

  /// Whether ``startDiscovery()`` runs.
  public var isDiscovering: Bool { discovery.withLock { $0 != nil } }

  private func deliver(_ stage: PeripheralStage, _ peripheral: PassivePeripheral) {
    switch stage {
    case .pairingInstructions(let text):
      deliver { $1.peripheralController($0, shouldPresentInstructions: text, for: peripheral) }
    case .connected:
      deliver { $1.peripheralController($0, didConnect: peripheral) }
    case .connecting, .bonding, .paired, .received:
      break  // reported by the operation's own callback, or not part of the seed's model
    }
  }

  private func deliver(
    _ call:
      @escaping @Sendable (PeripheralControllerFacade, any PeripheralControllerDelegate)
      -> Void
  ) {
    queue.async {
      guard let delegate = self.delegate else { return }
      call(self, delegate)
    }
  }
}
