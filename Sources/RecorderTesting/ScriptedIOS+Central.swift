import RecorderBluetooth
import RecorderConcurrency
import RecorderCoreBluetooth

// Core Bluetooth under ScriptedIOS: the app's managers over the one system Bluetooth, with
// background scanning, pending connects and state restoration as Apple documents them.
extension ScriptedIOS {
  /// A `CBCentralManager` for the app of the current launch (pass it to
  /// `CoreBluetoothCentral`'s `makeManager`). With a restore identifier whose state the
  /// system preserved, `events` gets `willRestoreState` before this returns, then the radio
  /// state.
  public func centralManager(
    restoreIdentifier: String?, events: @escaping CoreBluetoothCentral.EventSink
  ) -> any CentralManagerMirror {
    let (id, restored, radio) = state.withLock {
      state -> (Int, RestoredStateMirror?, ManagerStateMirror) in
      state.nextManager += 1
      var entry = ManagerEntry(
        generation: state.generation, restoreIdentifier: restoreIdentifier, sink: events)
      var restored: RestoredStateMirror?
      if let restoreIdentifier,
        let preserved = state.preserved.removeValue(forKey: restoreIdentifier)
      {
        entry.pending = preserved.pending
        entry.connected = preserved.connected
        entry.scanning = preserved.scanning
        entry.scanServices = preserved.scanServices
        let peripherals =
          preserved.connected.sorted { $0.rawValue < $1.rawValue }.map {
            RestoredStateMirror.RestoredPeripheral(peripheral: $0, state: .connected)
          }
          + preserved.pending.sorted { $0.rawValue < $1.rawValue }.map {
            RestoredStateMirror.RestoredPeripheral(peripheral: $0, state: .connecting)
          }
        restored = RestoredStateMirror(
          peripherals: peripherals, scanServices: preserved.scanning ? preserved.scanServices : nil)
      }
      state.managers[state.nextManager] = entry
      return (state.nextManager, restored, state.systemState)
    }
    if let restored { events(.willRestoreState(restored)) }
    if radio != .unknown { events(.didUpdateState(radio)) }
    return AppCentralManager(system: self, id: id)
  }

  /// The live manager `id`, or nil when its launch ended or the app is not running code.
  func liveManager(_ id: Int, _ state: inout SystemState) -> ManagerEntry? {
    guard let entry = state.managers[id], entry.generation == state.generation,
      state.app == .foreground || state.app == .background
    else {
      state.record.callsWhileNotRunning += 1
      return nil
    }
    return entry
  }

  /// The scan the system runs for every scanning manager: nil services when any asks for
  /// nil, else all services asked for; nil result: no scan.
  func systemScan(_ state: SystemState) -> [BluetoothUUID]?? {
    let scans =
      state.managers.values.filter(\.scanning).map(\.scanServices)
      + state.preserved.values.filter(\.scanning).map(\.scanServices)
    guard !scans.isEmpty else { return .none }
    if scans.contains(where: { $0 == nil }) { return .some(nil) }
    var union: [BluetoothUUID] = []
    for services in scans.compactMap({ $0 }) {
      for service in services where !union.contains(service) { union.append(service) }
    }
    return .some(union)
  }

  // MARK: - The system's callbacks

  /// A callback of the system's Bluetooth: to the manager it belongs to, under the rules.
  func systemEvent(_ event: CentralManagerEvent) {
    switch event {
    case .didUpdateState(let radio):
      let sinks = state.withLock { state -> [CoreBluetoothCentral.EventSink] in
        state.systemState = radio
        return state.app.isInMemory ? state.managers.values.map(\.sink) : []
      }
      for sink in sinks { sink(event) }
    case .willRestoreState: break
    case .didDiscover(let advertisement): discovered(advertisement)
    default:
      guard let peripheral = event.peripheral else { return }
      peripheralEvent(event, peripheral)
    }
  }

  private func discovered(_ advertisement: Advertisement) {
    let rules = self.rules
    let outcome = state.withLock {
      state -> (sinks: [CoreBluetoothCentral.EventSink], relaunch: String?) in
      state.known.insert(advertisement.peripheral)
      let foreground = state.app == .foreground
      func wanted(_ services: [BluetoothUUID]?) -> Bool {
        guard let services else {
          return foreground || !rules.nilServiceScansFindNothingInBackground
        }
        return advertisement.serviceUUIDs.contains(where: services.contains)
      }
      guard state.app.isInMemory else {
        // Only a restored scan that would report it relaunches the app.
        guard state.app == .terminatedBySystem, rules.relaunchesForBluetooth else {
          return ([], nil)
        }
        let identifier = state.preserved.first {
          $0.value.scanning && wanted($0.value.scanServices)
        }?.key
        return ([], identifier)
      }
      var sinks: [CoreBluetoothCentral.EventSink] = []
      for (id, entry) in state.managers where entry.scanning && entry.generation == state.generation
      {
        guard wanted(entry.scanServices) else {
          state.record.discoveriesWithheld += 1
          continue
        }
        if !foreground && rules.backgroundScansCoalesce {
          guard !entry.reported.contains(advertisement.peripheral) else {
            state.record.discoveriesWithheld += 1
            continue
          }
          state.managers[id]?.reported.insert(advertisement.peripheral)
        }
        sinks.append(entry.sink)
      }
      return (sinks, nil)
    }
    if let identifier = outcome.relaunch {
      relaunch(.bluetooth(restoreIdentifiers: [identifier]), into: .background)
      discovered(advertisement)
      return
    }
    guard !outcome.sinks.isEmpty else { return }
    wake()
    for sink in outcome.sinks { sink(.didDiscover(advertisement)) }
  }

  private func peripheralEvent(_ event: CentralManagerEvent, _ peripheral: PeripheralID) {
    let relaunchesForBluetooth = rules.relaunchesForBluetooth
    enum Route {
      case deliver(CoreBluetoothCentral.EventSink)
      case relaunch(String)
      case unwanted
      case none
    }
    let route = state.withLock { state -> Route in
      state.known.insert(peripheral)
      if state.app.isInMemory,
        let (id, entry) = state.managers.first(where: {
          $0.value.generation == state.generation
            && ($0.value.pending.contains(peripheral) || $0.value.connected.contains(peripheral)
              || $0.value.ending.contains(peripheral))
        })
      {
        switch event {
        case .didConnect:
          state.managers[id]?.pending.remove(peripheral)
          state.managers[id]?.connected.insert(peripheral)
        case .didFailToConnect, .didDisconnect:
          state.managers[id]?.pending.remove(peripheral)
          state.managers[id]?.connected.remove(peripheral)
          state.managers[id]?.ending.remove(peripheral)
        default: break
        }
        return .deliver(entry.sink)
      }
      if let (identifier, _) = state.preserved.first(where: {
        $0.value.pending.contains(peripheral) || $0.value.connected.contains(peripheral)
      }) {
        guard state.app == .terminatedBySystem, relaunchesForBluetooth else { return .none }
        return .relaunch(identifier)
      }
      if case .didConnect = event { return .unwanted }
      return .none
    }
    switch route {
    case .deliver(let sink):
      wake()
      sink(event)
    case .relaunch(let identifier):
      relaunch(.bluetooth(restoreIdentifiers: [identifier]), into: .background)
      peripheralEvent(event, peripheral)
    case .unwanted:
      // Nobody asked for this link any more (its connect was cancelled): the system drops it.
      system.current?.cancelPeripheralConnection(peripheral)
    case .none: break
    }
  }
}

extension CentralManagerEvent {
  /// The peripheral a callback is about (nil for radio state and restoration).
  var peripheral: PeripheralID? {
    switch self {
    case .didUpdateState, .willRestoreState: nil
    case .didDiscover(let advertisement): advertisement.peripheral
    case .didConnect(let peripheral), .didFailToConnect(let peripheral, _),
      .didDisconnect(let peripheral, _), .didDiscoverServices(let peripheral, _, _),
      .didDiscoverCharacteristics(let peripheral, _, _, _),
      .didUpdateValue(let peripheral, _, _, _), .didWriteValue(let peripheral, _, _),
      .didUpdateNotificationState(let peripheral, _, _),
      .isReadyToSendWriteWithoutResponse(let peripheral):
      peripheral
    }
  }
}

/// The app's `CBCentralManager`: records what it asked the system for, then asks.
struct AppCentralManager: CentralManagerMirror {
  let system: ScriptedIOS
  let id: Int

  /// Runs `change` on the live manager's entry (and `note` on the record); false when the
  /// app cannot be calling.
  private func live(
    _ change: (inout ManagerEntry) -> Void = { _ in },
    note: (inout ScriptedIOS.Record, ScriptedIOS.AppState) -> Void = { _, _ in }
  ) -> Bool {
    system.state.withLock { state in
      guard var entry = system.liveManager(id, &state) else { return false }
      note(&state.record, state.app)
      change(&entry)
      state.managers[id] = entry
      return true
    }
  }

  private var radio: (any CentralManagerMirror)? { system.system.current }

  func scanForPeripherals(withServices services: [BluetoothUUID]?) {
    guard
      live(
        {
          $0.scanning = true
          $0.scanServices = services
          $0.reported = []
        }, note: { $0.scans.append(($1, services)) })
    else { return }
    if case .some(let scan) = system.state.withLock({ system.systemScan($0) }) {
      radio?.scanForPeripherals(withServices: scan)
    }
  }

  func stopScan() {
    guard live({ $0.scanning = false }) else { return }
    switch system.state.withLock({ system.systemScan($0) }) {
    case .some(let scan): radio?.scanForPeripherals(withServices: scan)
    case .none: radio?.stopScan()
    }
  }

  func retrievePeripherals(withIdentifiers identifiers: [PeripheralID]) -> [PeripheralID] {
    let known = system.state.withLock { $0.known }
    let more = Set(radio?.retrievePeripherals(withIdentifiers: identifiers) ?? [])
    return identifiers.filter { known.contains($0) || more.contains($0) }
  }

  func connect(_ peripheral: PeripheralID) {
    guard
      live(
        { $0.pending.insert(peripheral) }, note: { $0.connects.append(($1, peripheral)) })
    else { return }
    radio?.connect(peripheral)
  }

  func cancelPeripheralConnection(_ peripheral: PeripheralID) {
    guard
      live({
        // Its didDisconnect (or didFailToConnect) is still the app's to hear.
        if $0.pending.remove(peripheral) != nil || $0.connected.remove(peripheral) != nil {
          $0.ending.insert(peripheral)
        }
      })
    else { return }
    radio?.cancelPeripheralConnection(peripheral)
  }

  func discoverServices(_ services: [BluetoothUUID]?, of peripheral: PeripheralID) {
    guard live() else { return }
    radio?.discoverServices(services, of: peripheral)
  }

  func discoverCharacteristics(
    _ characteristics: [BluetoothUUID]?, for service: BluetoothUUID, of peripheral: PeripheralID
  ) {
    guard live() else { return }
    radio?.discoverCharacteristics(characteristics, for: service, of: peripheral)
  }

  func readValue(for characteristic: CharacteristicPath, of peripheral: PeripheralID) {
    guard live() else { return }
    radio?.readValue(for: characteristic, of: peripheral)
  }

  func writeValue(
    _ value: [UInt8], for characteristic: CharacteristicPath, type: WriteType,
    of peripheral: PeripheralID
  ) {
    guard live() else { return }
    radio?.writeValue(value, for: characteristic, type: type, of: peripheral)
  }

  func setNotifyValue(
    _ enabled: Bool, for characteristic: CharacteristicPath, of peripheral: PeripheralID
  ) {
    guard live() else { return }
    radio?.setNotifyValue(enabled, for: characteristic, of: peripheral)
  }

  func canSendWriteWithoutResponse(_ peripheral: PeripheralID) -> Bool {
    radio?.canSendWriteWithoutResponse(peripheral) ?? false
  }

  func maximumWriteValueLength(for type: WriteType, of peripheral: PeripheralID) -> Int {
    radio?.maximumWriteValueLength(for: type, of: peripheral) ?? 20
  }
}
