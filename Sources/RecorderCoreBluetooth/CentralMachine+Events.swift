import RecorderBluetooth
import RecorderConcurrency

extension CentralMachine {
  /// Takes one delegate callback, in the order the system made them.
  func handle(_ event: CentralManagerEvent) {
    // Finishing an AsyncStream runs its termination handler, which takes the lock again:
    // scans to end are finished after it is released.
    let finished = state.withLock { state -> [AsyncStream<Advertisement>.Continuation] in
      switch event {
      case .didUpdateState(let manager): return updateState(manager, &state)
      case .willRestoreState(let restored): restore(restored, &state)
      case .didDiscover(let advertisement):
        state.known.insert(advertisement.peripheral)
        state.scan?.continuation.yield(advertisement)
      case .didConnect(let id):
        guard state.entries[id] != nil else { break }
        state.entries[id]?.connected = true
        state.resumeAll { $0 == .connection(id) ? .done : nil }
      case .didFailToConnect(let id, let failure), .didDisconnect(let id, let failure):
        end(id, CoreBluetoothFailure.disconnectReason(failure), &state)
      case .didDiscoverServices(let id, let services, let failure):
        state.resumeFirst(
          .services(id), with: failure.map { .failed($0.linkError) } ?? .uuids(services))
      case .didDiscoverCharacteristics(let id, let service, let characteristics, let failure):
        if failure == nil { state.entries[id]?.services[service] = characteristics }
        state.resumeFirst(
          .characteristics(id, service: service),
          with: failure.map { .failed($0.linkError) } ?? .uuids(characteristics))
      case .didUpdateValue(let id, let path, let value, let failure):
        updateValue(id, path, value, failure, &state)
      case .didWriteValue(let id, let path, let failure):
        state.resumeFirst(
          .write(id, path.characteristic), with: failure.map { .failed($0.linkError) } ?? .done)
      case .didUpdateNotificationState(let id, let path, let failure):
        state.resumeFirst(
          .notifyState(id, path.characteristic),
          with: failure.map { .failed($0.linkError) } ?? .done)
      case .isReadyToSendWriteWithoutResponse(let id):
        state.entries[id]?.readyCount += 1
        state.entries[id]?.events?.yield(.readyToSendWriteWithoutResponse)
        state.resumeAll { $0 == .readyToSend(id) ? .done : nil }
      }
      return []
    }
    for scan in finished { scan.finish() }
  }

  /// A read result and a notification share `didUpdateValueFor`: the oldest read waiting on
  /// the characteristic takes the value (it is the characteristic's current value either
  /// way); with no read waiting, it is a notification if notifications are on, else noise.
  private func updateValue(
    _ id: PeripheralID, _ path: CharacteristicPath, _ value: [UInt8],
    _ failure: CoreBluetoothFailure?, _ state: inout State
  ) {
    let read = state.resumeFirst(
      .read(id, path.characteristic), with: failure.map { .failed($0.linkError) } ?? .value(value))
    guard !read, failure == nil, let entry = state.entries[id],
      entry.notifying.contains(path.characteristic)
    else { return }
    entry.events?.yield(.notification(characteristic: path.characteristic, value: value))
  }

  private func updateState(_ manager: ManagerStateMirror, _ state: inout State)
    -> [AsyncStream<Advertisement>.Continuation]
  {
    let current = manager.centralState
    radio.update(current)
    state.stateKnown = true
    state.resumeAll { $0 == .stateKnown ? .done : nil }
    switch manager {
    case .poweredOn:
      state.resumeAll { $0 == .poweredOn ? .done : nil }
      return []
    case .unsupported, .unauthorized:
      state.resumeAll { $0 == .poweredOn ? .failed(.notPoweredOn(current)) : nil }
    case .unknown, .resetting, .poweredOff: break
    }
    // Off, resetting or forbidden: the system drops every link and pending connect without
    // a disconnect callback, and stops scanning.
    for id in state.entries.keys { end(id, .other("Bluetooth is \(current)"), &state) }
    state.restored = []
    guard let scan = state.scan else { return [] }
    state.scan = nil
    return [scan.continuation]
  }

  /// Re-attaches what the system kept for us. A peripheral restored disconnected (it was
  /// lost while the app was not running) is not kept.
  private func restore(_ restored: RestoredStateMirror, _ state: inout State) {
    for item in restored.peripherals {
      state.known.insert(item.peripheral)
      let connected: Bool
      switch item.state {
      case .connected: connected = true
      case .connecting: connected = false
      case .disconnected, .disconnecting: continue
      }
      state.nextGeneration += 1
      state.entries[item.peripheral] = Entry(
        connected: connected, restored: true, generation: state.nextGeneration)
      state.restored.insert(item.peripheral)
    }
  }

  /// The link to (or pending connect of) `id` is over: every wait on it fails with `reason`,
  /// its events end with it.
  func end(_ id: PeripheralID, _ reason: DisconnectReason, _ state: inout State) {
    state.lastReason[id] = reason
    state.restored.remove(id)
    guard let entry = state.entries.removeValue(forKey: id) else { return }
    entry.events?.yield(.disconnected(reason))
    entry.events?.finish()
    state.resumeAll { expectation in
      guard expectation.peripheral == id else { return nil }
      return expectation == .gone(id) ? .done : .failed(.disconnected(reason))
    }
  }
}
