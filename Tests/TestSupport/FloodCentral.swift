import RecorderBluetooth
import RecorderConcurrency

/// A peripheral for the link tests, served over the TCP link to the mock bluetoothd: it
/// advertises the PROTOCOL.md §1 captured payload, records every write, and on the command
/// `F1 <count u32> <size u16> <seed u64>` notifies `count` values of `size` bytes as fast
/// as its consumer takes them (a sender that can outrun any radio). Each value is the
/// index (u32 LE) followed by seeded bytes, so a receiver checks order and content.
public final class FloodCentral: Central {
  public static let peripheral = PeripheralID("flood-1")
  /// The §1 capture: company 0x0059, project 888, V0095, serial field 888317442836358884.
  public static let manufacturerData: [UInt8] = [
    0x59, 0x00, 0x02, 0x78, 0x03, 0x04, 0x56, 0x5F, 0x00, 0x00, 0x09, 0x88, 0x83, 0x17, 0x44,
    0x28, 0x36, 0x35, 0x88, 0x84, 0x0A, 0x00, 0x04, 0xDA, 0x6D, 0xA7, 0xCE, 0x01, 0x01,
  ]
  /// Every link served, in order.
  public let links = Locked([FloodLink]())
  private let batteryReadable = Locked(true)

  public init() {}

  /// Links served from now on answer a read of the battery level (0x2A19) with
  /// `characteristicNotFound`, as a peripheral without the Battery Service would.
  public func refuseBatteryReads() { batteryReadable.withLock { $0 = false } }

  public var state: CentralState { get async { .poweredOn } }

  public func stateUpdates() -> AsyncStream<CentralState> {
    AsyncStream { $0.yield(.poweredOn) }
  }

  public func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    AsyncStream { continuation in
      continuation.yield(
        Advertisement(
          peripheral: Self.peripheral, localName: "PLAUD_NOTE",
          manufacturerData: Self.manufacturerData, serviceUUIDs: [], rssi: -52))
    }
  }

  public func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    guard peripheral == Self.peripheral else { throw .unknownPeripheral(peripheral) }
    let link = FloodLink(batteryReadable: batteryReadable.withLock { $0 })
    links.withLock { $0.append(link) }
    return link
  }

  public func restoredPeripherals() async -> [PeripheralID] { [] }

  /// The flood command.
  public static func flood(count: UInt32, size: UInt16, seed: UInt64) -> [UInt8] {
    [0xF1] + withUnsafeBytes(of: count.littleEndian, Array.init)
      + withUnsafeBytes(of: size.littleEndian, Array.init)
      + withUnsafeBytes(of: seed.littleEndian, Array.init)
  }

  /// The `index`-th value of a flood.
  public static func value(_ index: UInt32, size: Int, seed: UInt64) -> [UInt8] {
    var random = SplitMix64(seed: seed &+ UInt64(index))
    let head = withUnsafeBytes(of: index.littleEndian, Array.init)
    return head + (0..<max(0, size - 4)).map { _ in UInt8.random(in: 0...255, using: &random) }
  }
}

/// One link of a ``FloodCentral``.
public final class FloodLink: PeripheralLink {
  public let peripheral = FloodCentral.peripheral
  public let events: BackpressureStream<LinkEvent>
  private let continuation: BackpressureStream<LinkEvent>.Continuation
  /// Every value written, in order.
  public let writes = Locked([[UInt8]]())
  private let notifying = Locked(false)
  private let batteryReadable: Bool
  private let batteryLevel = Locked<UInt8>(87)

  init(batteryReadable: Bool = true) {
    self.batteryReadable = batteryReadable
    (events, continuation) = BackpressureStream<LinkEvent>.makeStream()
  }

  /// The battery level becomes `level`: read from now on, and notified on 0x2A19.
  public func notifyBattery(_ level: UInt8) {
    batteryLevel.withLock { $0 = level }
    continuation.yield(.notification(characteristic: RecorderGATT.batteryLevel, value: [level]))
  }

  public func requestMTU(_ mtu: Int) async throws(LinkError) -> Int { min(mtu, 247) }

  public func maximumWriteLength(for type: WriteType) async -> Int { 244 }

  public func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    guard characteristic == RecorderGATT.batteryLevel, batteryReadable else {
      throw .characteristicNotFound(characteristic)
    }
    return [batteryLevel.withLock { $0 }]
  }

  /// While paused, writes wait (a radio that takes nothing): back pressure builds up behind.
  public func pause() { gate.withLock { $0.paused = true } }

  public func resume() {
    let waiting = gate.withLock { gate in
      gate.paused = false
      defer { gate.waiting.removeAll() }
      return gate.waiting
    }
    for continuation in waiting { continuation.resume() }
  }

  private let gate = Locked((paused: false, waiting: [CheckedContinuation<Void, Never>]()))

  public func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    await withCheckedContinuation { continuation in
      let wait = gate.withLock { gate -> Bool in
        if gate.paused { gate.waiting.append(continuation) }
        return gate.paused
      }
      if !wait { continuation.resume() }
    }
    writes.withLock { $0.append(value) }
    guard value.first == 0xF1, value.count == 15 else { return }
    let count = value[1..<5].enumerated().reduce(UInt32(0)) {
      $0 | UInt32($1.element) << (8 * $1.offset)
    }
    let size = Int(value[5]) | Int(value[6]) << 8
    let seed = value[7..<15].enumerated().reduce(UInt64(0)) {
      $0 | UInt64($1.element) << (8 * UInt64($1.offset))
    }
    let continuation = continuation
    Task {
      for index in 0..<count {
        continuation.yield(
          .notification(
            characteristic: RecorderGATT.notifyCharacteristic,
            value: FloodCentral.value(index, size: size, seed: seed)))
        if continuation.buffered >= 512 { await continuation.waitForRoom(below: 256) }
      }
    }
  }

  public func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    notifying.withLock { $0 = enabled }
  }

  public var bondState: BondState { get async { .none } }

  public func disconnect() async {
    continuation.yield(.disconnected(.localRequest))
    continuation.finish()
  }
}
