import RecorderBluetooth
import RecorderConcurrency

extension CoreBluetoothCentral {
  /// How a connect finds the peripheral's connection.
  private enum Start {
    case connected(generation: Int)
    /// Someone's connect (ours or a restored one) is pending.
    case pending(restored: Bool, generation: Int)
    case issue(generation: Int)
  }

  /// Has the system connect `peripheral` (or joins a connect already pending, or a restored
  /// link); returns the connection's generation.
  func connection(to peripheral: PeripheralID, timeout: Duration?) async throws(LinkError) -> Int {
    let start = machine.state.withLock { state -> Start in
      if let entry = state.entries[peripheral] {
        return entry.connected
          ? .connected(generation: entry.generation)
          : .pending(restored: entry.restored, generation: entry.generation)
      }
      state.nextGeneration += 1
      state.entries[peripheral] = CentralMachine.Entry(
        connected: false, restored: false, generation: state.nextGeneration)
      return .issue(generation: state.nextGeneration)
    }
    let generation: Int
    let restored: Bool
    switch start {
    case .connected(let current): return current
    case .pending(let isRestored, let current): (generation, restored) = (current, isRestored)
    case .issue(let current): (generation, restored) = (current, false)
    }
    let bound =
      restored
      ? min(timeout ?? configuration.restoredConnectTimeout, configuration.restoredConnectTimeout)
      : timeout
    let manager = self.manager
    let outcome = await machine.wait(for: .connection(peripheral), timeout: bound) { state in
      if let gone = state.gone(peripheral, generation: generation) { return gone }
      return state.entries[peripheral]?.connected == true ? .done : nil
    } then: {
      if case .issue = start { manager.connect(peripheral) }
    }
    switch outcome {
    case .done: return generation
    case .failed(let error): throw error
    case .timedOut, .cancelled:
      // Our own pending connect is withdrawn; a restored one stays with the system.
      if !restored {
        manager.cancelPeripheralConnection(peripheral)
        machine.state.withLock { machine.end(peripheral, .localRequest, &$0) }
      }
      throw outcome == .cancelled ? .cancelled : .connectTimeout
    default: throw .connectTimeout
    }
  }

  /// Discovers `services` and all their characteristics, within `timeout` in all.
  func discover(
    _ services: [BluetoothUUID], of peripheral: PeripheralID, generation: Int, timeout: Duration
  ) async throws(LinkError) {
    let clock = configuration.clock
    let deadline = clock.elapsed + timeout
    let manager = self.manager
    let alive: @Sendable (inout CentralMachine.State) -> CentralMachine.Outcome? = {
      $0.gone(peripheral, generation: generation)
    }
    let found = try await outcome(
      machine.wait(for: .services(peripheral), timeout: deadline - clock.elapsed, check: alive) {
        manager.discoverServices(services.isEmpty ? nil : services, of: peripheral)
      })
    guard case .uuids(let offered) = found else { return }
    // Only the recorder's own service is required; another one asked for (the battery) is
    // discovered when offered.
    if let missing = RecorderGATT.required(of: services).first(where: { !offered.contains($0) }) {
      throw .serviceNotFound(missing)
    }
    for service in services.isEmpty ? offered : services.filter(offered.contains) {
      _ = try await outcome(
        machine.wait(
          for: .characteristics(peripheral, service: service), timeout: deadline - clock.elapsed,
          check: alive
        ) {
          manager.discoverCharacteristics(nil, for: service, of: peripheral)
        })
    }
  }

  /// The result of a wait as the boundary's error.
  func outcome(_ outcome: CentralMachine.Outcome) throws(LinkError) -> CentralMachine.Outcome {
    switch outcome {
    case .failed(let error): throw error
    case .timedOut: throw .connectTimeout
    case .cancelled: throw .cancelled
    default: return outcome
    }
  }

  /// Hands out the link of connection `generation`; a previous link to the same peripheral
  /// ends as if disconnected by request.
  func attach(_ peripheral: PeripheralID, generation: Int) throws(LinkError)
    -> CoreBluetoothLink
  {
    let (events, continuation) = BackpressureStream<LinkEvent>.makeStream()
    let error = machine.state.withLock { state -> LinkError? in
      if case .failed(let error) = state.gone(peripheral, generation: generation) { return error }
      state.entries[peripheral]?.events?.yield(.disconnected(.localRequest))
      state.entries[peripheral]?.events?.finish()
      state.entries[peripheral]?.events = continuation
      state.restored.remove(peripheral)
      return nil
    }
    if let error { throw error }
    return CoreBluetoothLink(
      peripheral: peripheral, generation: generation, events: events, central: self)
  }
}
