import RecorderBluetooth
import RecorderConcurrency

/// One CoreBluetooth connection as a `PeripheralLink`.
///
/// - The ATT MTU cannot be asked for on CoreBluetooth (the system negotiates it):
///   ``requestMTU(_:)`` reports `maximumWriteValueLength(for: .withoutResponse) + 3`.
/// - A write without response goes out only while `canSendWriteWithoutResponse` is true;
///   otherwise it waits for `peripheralIsReady(toSendWriteWithoutResponse:)` (back pressure).
/// - Reads and notifications arrive through the same callback; the central routes them apart.
///
/// Thread-safe: a handle; all state is in the central's lock-protected machine.
public final class CoreBluetoothLink: PeripheralLink {
  public let peripheral: PeripheralID
  public let events: BackpressureStream<LinkEvent>
  let generation: Int
  let central: CoreBluetoothCentral

  init(
    peripheral: PeripheralID, generation: Int, events: BackpressureStream<LinkEvent>,
    central: CoreBluetoothCentral
  ) {
    self.peripheral = peripheral
    self.generation = generation
    self.events = events
    self.central = central
  }

  private var machine: CentralMachine { central.machine }
  private var manager: any CentralManagerMirror { central.manager }

  /// The failure to report when this connection is over, nil while it is up.
  private func ended() -> LinkError? {
    let (peripheral, generation) = (self.peripheral, self.generation)
    guard
      case .failed(let error) = machine.state.withLock({
        $0.gone(peripheral, generation: generation)
      })
    else { return nil }
    return error
  }

  /// Where `characteristic` lives, as discovered.
  private func path(_ characteristic: BluetoothUUID) throws(LinkError) -> CharacteristicPath {
    if let error = ended() { throw error }
    let peripheral = self.peripheral
    let service = machine.state.withLock { state in
      state.entries[peripheral]?.services.first { $0.value.contains(characteristic) }?.key
    }
    guard let service else { throw .characteristicNotFound(characteristic) }
    return CharacteristicPath(service: service, characteristic: characteristic)
  }

  /// Reports the MTU the system negotiated; `mtu` cannot be asked for on CoreBluetooth.
  public func requestMTU(_ mtu: Int) async throws(LinkError) -> Int {
    if let error = ended() { throw error }
    return manager.maximumWriteValueLength(for: .withoutResponse, of: peripheral) + 3
  }

  public func maximumWriteLength(for type: WriteType) async -> Int {
    manager.maximumWriteValueLength(for: type, of: peripheral)
  }

  public func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    let path = try path(characteristic)
    let (peripheral, generation, manager) = (self.peripheral, self.generation, self.manager)
    let outcome = try await central.outcome(
      machine.wait(for: .read(peripheral, characteristic), timeout: nil) {
        $0.gone(peripheral, generation: generation)
      } then: {
        manager.readValue(for: path, of: peripheral)
      })
    guard case .value(let value) = outcome else { return [] }
    return value
  }

  public func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    let path = try path(characteristic)
    let (peripheral, generation, manager) = (self.peripheral, self.generation, self.manager)
    guard type == .withoutResponse else {
      _ = try await central.outcome(
        machine.wait(for: .write(peripheral, characteristic), timeout: nil) {
          $0.gone(peripheral, generation: generation)
        } then: {
          manager.writeValue(value, for: path, type: .withResponse, of: peripheral)
        })
      return
    }
    let maximum = manager.maximumWriteValueLength(for: .withoutResponse, of: peripheral)
    guard value.count <= maximum else { throw .valueTooLong(length: value.count, maximum: maximum) }
    while true {
      // The readiness count is read before asking, so a `peripheralIsReady` that comes
      // between the question and the wait is not lost.
      let seen = machine.state.withLock { $0.entries[peripheral]?.readyCount }
      if let error = ended() { throw error }
      if manager.canSendWriteWithoutResponse(peripheral) {
        manager.writeValue(value, for: path, type: .withoutResponse, of: peripheral)
        return
      }
      _ = try await central.outcome(
        machine.wait(for: .readyToSend(peripheral), timeout: nil) { state in
          if let gone = state.gone(peripheral, generation: generation) { return gone }
          return state.entries[peripheral]?.readyCount != seen ? .done : nil
        })
    }
  }

  public func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    let path = try path(characteristic)
    let (peripheral, generation, manager) = (self.peripheral, self.generation, self.manager)
    // Values that arrive from now on are notifications (the system may send the first before
    // it confirms the subscription).
    let outcome = await machine.wait(for: .notifyState(peripheral, characteristic), timeout: nil) {
      state in
      if let gone = state.gone(peripheral, generation: generation) { return gone }
      if enabled {
        state.entries[peripheral]?.notifying.insert(characteristic)
      } else {
        state.entries[peripheral]?.notifying.remove(characteristic)
      }
      return nil
    } then: {
      manager.setNotifyValue(enabled, for: path, of: peripheral)
    }
    switch outcome {
    case .failed(let error):
      // Refused: values on it are read results again.
      machine.state.withLock { _ = $0.entries[peripheral]?.notifying.remove(characteristic) }
      throw error
    case .cancelled: throw .cancelled
    default: return
    }
  }

  /// CoreBluetooth does not tell a central about bonds; pairing happens inside the system.
  public var bondState: BondState { .none }

  /// Cancels the connection and waits (bounded) for the system to confirm; ``events`` ends
  /// with `.disconnected(.localRequest)` either way.
  public func disconnect() async {
    let (peripheral, generation, manager) = (self.peripheral, self.generation, self.manager)
    let outcome = await machine.wait(
      for: .gone(peripheral), timeout: central.configuration.disconnectTimeout
    ) {
      $0.gone(peripheral, generation: generation) != nil ? .done : nil
    } then: {
      manager.cancelPeripheralConnection(peripheral)
    }
    guard outcome != .done else { return }
    machine.state.withLock { state in
      guard state.entries[peripheral]?.generation == generation else { return }
      machine.end(peripheral, .localRequest, &state)
    }
  }
}
