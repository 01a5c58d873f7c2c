import RecorderBluetooth
import RecorderConcurrency

/// What a scan of emulated peripherals needs of each of them.
protocol AdvertisingPeripheral: Actor {
  nonisolated var time: EmulatorTime { get }
  /// Calls `deliver` with the current advertisement (if any) at once, then with each one it
  /// publishes, until ``stopRelaying(_:)`` with the returned key.
  func relayAdvertising(_ deliver: @escaping @Sendable (Advertisement) -> Void) -> Int
  func stopRelaying(_ key: Int)
}

/// A scan of emulated peripherals as one stream. A peripheral hands each advertisement
/// straight to the stream (no task between them), and a manual clock holds still from the
/// moment one is published until the scanner comes back for the next one: the scanner takes
/// real time and no simulated time to get to it, and a simulation that jumped meanwhile
/// would make a steady advertiser look silent (a passive reader's cooldown ends on silence).
/// The start of the scan holds too, until every peripheral has been asked for its current
/// advertisement. A scanner that stops reading for ``UnreadHold/patience`` checks of the
/// clock releases the hold.
enum AdvertisementRelay {
  static func scan(
    _ peripherals: [any AdvertisingPeripheral], services: [BluetoothUUID]?
  ) -> AsyncStream<Advertisement> {
    let scan = RelayedScan(peripherals, services: services)
    return AsyncStream(
      unfolding: { await scan.next() },
      onCancel: { scan.end() })
  }
}

/// The state behind one ``AdvertisementRelay/scan(_:services:)``; it ends when the scanner
/// is cancelled or lets the stream go.
private final class RelayedScan: Sendable {
  private struct Progress {
    /// Advertisements published and not yet consumed, plus peripherals not yet asked.
    var unread: Int
    /// The scanner holds one it was given and has not come back for the next.
    var handing = false
    var ended = false
    var relays: [(peripheral: any AdvertisingPeripheral, key: Int)] = []
  }

  private let buffer: BackpressureStream<Advertisement>
  private let input: BackpressureStream<Advertisement>.Continuation
  private let progress: Locked<Progress>
  private let holds: Locked<[UnreadHold]>

  init(_ peripherals: [any AdvertisingPeripheral], services: [BluetoothUUID]?) {
    (buffer, input) = BackpressureStream<Advertisement>.makeStream()
    let progress = Locked(Progress(unread: peripherals.count))
    self.progress = progress
    holds = Locked(
      peripherals.compactMap { peripheral in
        peripheral.time.holdWhileUnread(.emulatorScanUnread) {
          progress.withLock { $0.unread }
        }
      })
    let input = self.input
    Task {
      for peripheral in peripherals {
        let key = await peripheral.relayAdvertising { advertisement in
          if let services, !services.contains(where: advertisement.serviceUUIDs.contains) {
            return
          }
          let open = progress.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.unread += 1
            return true
          }
          if open { input.yield(advertisement) }
        }
        let ended = progress.withLock { state -> Bool in
          state.unread -= 1
          if !state.ended { state.relays.append((peripheral, key)) }
          return state.ended
        }
        if ended { await peripheral.stopRelaying(key) }
      }
    }
  }

  deinit { end() }

  /// The next advertisement; the one before it counts as read from now.
  func next() async -> Advertisement? {
    progress.withLock { state in
      if state.handing { state.unread -= 1 }
      state.handing = false
    }
    var iterator = buffer.makeAsyncIterator()
    let advertisement = await iterator.next()
    if advertisement != nil { progress.withLock { $0.handing = true } }
    return advertisement
  }

  /// Stops the relays and releases the hold; idempotent.
  func end() {
    let relays = progress.withLock { state -> [(any AdvertisingPeripheral, Int)] in
      guard !state.ended else { return [] }
      state.ended = true
      state.unread = 0
      defer { state.relays = [] }
      return state.relays.map { ($0.peripheral, $0.key) }
    }
    holds.withLock { $0 = [] }
    input.finish()
    guard !relays.isEmpty else { return }
    Task {
      for (peripheral, key) in relays { await peripheral.stopRelaying(key) }
    }
  }
}

/// The scanners a peripheral hands its advertisements to.
struct AdvertisementObservers {
  private var observers: [Int: @Sendable (Advertisement) -> Void] = [:]
  private var nextKey = 0

  /// Adds `deliver`, giving it `current` at once; the key for ``remove(_:)``.
  mutating func add(_ deliver: @escaping @Sendable (Advertisement) -> Void, current: Advertisement?)
    -> Int
  {
    let key = nextKey
    nextKey += 1
    observers[key] = deliver
    if let current { deliver(current) }
    return key
  }

  mutating func remove(_ key: Int) { observers[key] = nil }

  func publish(_ advertisement: Advertisement) {
    for observer in observers.values { observer(advertisement) }
  }
}

extension AdvertisingPeripheral {
  /// ``relayAdvertising(_:)`` as a stream, which ends the relay when its consumer stops.
  func advertisementStream() -> AsyncStream<Advertisement> {
    let (stream, continuation) = AsyncStream.makeStream(of: Advertisement.self)
    let key = relayAdvertising { continuation.yield($0) }
    continuation.onTermination = { _ in Task { await self.stopRelaying(key) } }
    return stream
  }
}

extension EmulatedDevice: AdvertisingPeripheral {}
extension EmulatedHealthPeripheral: AdvertisingPeripheral {}
