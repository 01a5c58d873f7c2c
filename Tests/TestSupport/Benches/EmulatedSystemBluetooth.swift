import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth
import RecorderEmulator
import RecorderProtocol

/// A `CentralManagerMirror` played by the emulator: the part of iOS between the app and the
/// radio. Each call is carried out on an emulator's central (recorders, health peripherals)
/// in call order, and the emulated peripheral's answers come back as the delegate callbacks
/// CoreBluetooth would make, in order. Discovery answers from ``gatt``: the services asked
/// for that the table knows.
/// Writes without response are in flight until the emulator took them; at `queueDepth` in
/// flight `canSendWriteWithoutResponse` is false until `peripheralIsReady` says otherwise.
package final class EmulatedSystemBluetooth: CentralManagerMirror {
  private enum Operation: Sendable {
    case call(@Sendable () async -> Void)
    case event(CentralManagerEvent)
  }

  private struct State {
    package var links: [PeripheralID: any PeripheralLink] = [:]
    /// Pending connects, until they complete or are cancelled.
    package var connecting: [PeripheralID: Task<Void, Never>] = [:]
    package var scan: Task<Void, Never>?
    package var mtu: [PeripheralID: Int] = [:]
    package var inFlight = 0
    package var owesReady = false
    package var pending = 0
  }

  package let queueDepth = 4
  private let central: any Central
  private let sink: CoreBluetoothCentral.EventSink
  private let state = Locked(State())
  private let operations: AsyncStream<Operation>.Continuation
  private let worker: Task<Void, Never>
  private let releaseProbe: @Sendable () -> Void

  /// - Parameter powerOnAfter: how long (on `clock`) the manager stays "unknown" before it
  ///   reports powered on, as a fresh `CBCentralManager` does.
  package init(
    central: any Central, clock: ManualClock, powerOnAfter: Duration = .zero,
    sink: @escaping CoreBluetoothCentral.EventSink
  ) {
    self.central = central
    self.sink = sink
    let (stream, continuation) = AsyncStream<Operation>.makeStream()
    operations = continuation
    let state = self.state
    // Work queued here takes no simulated time: hold the clock while there is any.
    let probe = clock.addBusyProbe(ClockHold("emulated CoreBluetooth queue")) {
      state.withLock { $0.pending > 0 }
    }
    releaseProbe = { clock.removeBusyProbe(probe) }
    worker = Task {
      for await operation in stream {
        switch operation {
        case .call(let body): await body()
        case .event(let event): sink(event)
        }
        state.withLock { $0.pending -= 1 }
      }
    }
    guard powerOnAfter > .zero else {
      enqueue(.event(.didUpdateState(.poweredOn)))
      return
    }
    Task {
      try? await clock.sleep(for: powerOnAfter)
      state.withLock { $0.pending += 1 }
      continuation.yield(Operation.event(.didUpdateState(.poweredOn)))
    }
  }

  deinit {
    worker.cancel()
    releaseProbe()
  }

  private func enqueue(_ operation: Operation) {
    state.withLock { $0.pending += 1 }
    operations.yield(operation)
  }

  private func call(_ body: @escaping @Sendable () async -> Void) { enqueue(.call(body)) }

  private func link(_ id: PeripheralID) -> (any PeripheralLink)? {
    state.withLock { $0.links[id] }
  }

  package func scanForPeripherals(withServices services: [BluetoothUUID]?) {
    let (central, sink) = (self.central, self.sink)
    let task = Task {
      for await advertisement in central.scan(services: services) {
        sink(.didDiscover(advertisement))
      }
    }
    state.withLock {
      $0.scan?.cancel(); $0.scan = task
    }
  }

  package func stopScan() {
    state.withLock {
      $0.scan?.cancel(); $0.scan = nil
    }
  }

  package func retrievePeripherals(withIdentifiers identifiers: [PeripheralID]) -> [PeripheralID] {
    []
  }

  package func connect(_ peripheral: PeripheralID) {
    // CoreBluetooth's connect never times out: it stands until the peripheral is heard. It
    // waits beside the queue (whose work holds the clock), so time can pass meanwhile; its
    // outcome joins the queue in order. A second connect while one stands is the same one
    // (as in CoreBluetooth), so one cancel withdraws it.
    state.withLock { state in
      guard state.connecting[peripheral] == nil else { return }
      // Registered before its task can end, under the lock its task takes to finish.
      state.connecting[peripheral] = attempt(peripheral)
    }
  }

  /// The attempt behind ``connect(_:)``.
  private func attempt(_ peripheral: PeripheralID) -> Task<Void, Never> {
    Task { [self] in
      do {
        let link = try await central.connectWhenInRange(peripheral, services: [])
        let mtu = (try? await link.requestMTU(ModelCapabilities.requestedMTU(for: nil))) ?? 23
        let wanted = state.withLock { state -> Bool in
          guard state.connecting.removeValue(forKey: peripheral) != nil else { return false }
          state.links[peripheral] = link
          state.mtu[peripheral] = mtu
          return true
        }
        guard wanted else {
          await link.disconnect()
          return
        }
        enqueue(.event(.didConnect(peripheral)))
        Task { await pump(link) }
      } catch {
        guard state.withLock({ $0.connecting.removeValue(forKey: peripheral) }) != nil else {
          return
        }
        enqueue(.event(.didFailToConnect(peripheral, .central(6))))
      }
    }
  }

  /// The device's notifications and the link's end, as delegate callbacks.
  private func pump(_ link: any PeripheralLink) async {
    for await event in link.events {
      switch event {
      case .notification(let characteristic, let value):
        guard let path = Self.path(characteristic) else { continue }
        enqueue(.event(.didUpdateValue(link.peripheral, path, value, nil)))
      case .disconnected(let reason):
        state.withLock { _ = $0.links.removeValue(forKey: link.peripheral) }
        enqueue(.event(.didDisconnect(link.peripheral, Self.failure(reason))))
      case .readyToSendWriteWithoutResponse, .bondStateChanged: break
      }
    }
  }

  package func cancelPeripheralConnection(_ peripheral: PeripheralID) {
    // A pending connect is withdrawn without a callback; a link ends with didDisconnect.
    state.withLock { $0.connecting.removeValue(forKey: peripheral) }?.cancel()
    call { [self] in await link(peripheral)?.disconnect() }
  }

  package func discoverServices(_ services: [BluetoothUUID]?, of peripheral: PeripheralID) {
    let offered = (services ?? RecorderGATT.services).filter { Self.gatt[$0] != nil }
    enqueue(.event(.didDiscoverServices(peripheral, offered, nil)))
  }

  package func discoverCharacteristics(
    _ characteristics: [BluetoothUUID]?, for service: BluetoothUUID, of peripheral: PeripheralID
  ) {
    enqueue(
      .event(
        .didDiscoverCharacteristics(peripheral, service: service, Self.gatt[service] ?? [], nil)))
  }

  /// The services the emulated peripherals offer, with their characteristics: a recorder's
  /// two, and each health kind's measurement and feature characteristics.
  package static let gatt: [BluetoothUUID: [BluetoothUUID]] = {
    var table: [BluetoothUUID: [BluetoothUUID]] = [
      RecorderGATT.service: [RecorderGATT.writeCharacteristic, RecorderGATT.notifyCharacteristic],
      RecorderGATT.batteryService: [RecorderGATT.batteryLevel],
    ]
    for kind in HealthPeripheralKind.allCases {
      table[BluetoothUUID(kind.serviceUUID)] = [
        BluetoothUUID(kind.measurement.uuid), BluetoothUUID(kind.pairingCharacteristicUUID),
      ]
    }
    return table
  }()

  package func readValue(for characteristic: CharacteristicPath, of peripheral: PeripheralID) {
    call { [self] in
      guard let link = link(peripheral) else { return }
      do {
        let value = try await link.read(characteristic.characteristic)
        sink(.didUpdateValue(peripheral, characteristic, value, nil))
      } catch {
        sink(.didUpdateValue(peripheral, characteristic, [], .att(0x0E)))
      }
    }
  }

  package func writeValue(
    _ value: [UInt8], for characteristic: CharacteristicPath, type: WriteType,
    of peripheral: PeripheralID
  ) {
    if type == .withoutResponse { state.withLock { $0.inFlight += 1 } }
    call { [self] in
      guard let link = link(peripheral) else { return }
      let result: CoreBluetoothFailure?
      do {
        try await link.write(value, to: characteristic.characteristic, type: type)
        result = nil
      } catch {
        result = .att(0x0E)
      }
      guard type == .withoutResponse else {
        sink(.didWriteValue(peripheral, characteristic, result))
        return
      }
      let ready = state.withLock { state -> Bool in
        state.inFlight -= 1
        defer { state.owesReady = false }
        return state.owesReady
      }
      if ready { sink(.isReadyToSendWriteWithoutResponse(peripheral)) }
    }
  }

  package func setNotifyValue(
    _ enabled: Bool, for characteristic: CharacteristicPath, of peripheral: PeripheralID
  ) {
    call { [self] in
      guard let link = link(peripheral) else { return }
      let failure: CoreBluetoothFailure? =
        (try? await link.setNotifications(enabled, for: characteristic.characteristic)) == nil
        ? .att(0x0E) : nil
      sink(.didUpdateNotificationState(peripheral, characteristic, failure))
    }
  }

  package func canSendWriteWithoutResponse(_ peripheral: PeripheralID) -> Bool {
    state.withLock { state in
      guard state.inFlight >= queueDepth else { return true }
      state.owesReady = true
      return false
    }
  }

  package func maximumWriteValueLength(for type: WriteType, of peripheral: PeripheralID) -> Int {
    type == .withResponse ? 512 : (state.withLock { $0.mtu[peripheral] } ?? 23) - 3
  }

  package static func path(_ characteristic: BluetoothUUID) -> CharacteristicPath? {
    for (service, characteristics) in gatt where characteristics.contains(characteristic) {
      return CharacteristicPath(service: service, characteristic: characteristic)
    }
    return nil
  }

  /// The `CBError` code iOS reports for each way a link ends.
  package static func failure(_ reason: DisconnectReason) -> CoreBluetoothFailure? {
    switch reason {
    case .localRequest: nil
    case .remoteTerminated: .central(7)
    case .linkLoss: .central(6)
    case .pairingFailed: .central(14)
    case .other(let text): .other(text)
    }
  }
}
