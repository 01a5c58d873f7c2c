import HealthProfiles
import RecorderBluetooth
import RecorderConcurrency

/// An emulated Bluetooth SIG health peripheral (thermometer, scale, blood-pressure monitor,
/// pulse oximeter), modelled on how such devices behave in the hand: it is off until the user
/// takes a measurement, then advertises with that one reading, indicates it to a subscribed
/// (and, where the profile needs it, bonded) central, and powers off a while later. A new
/// power-on carries a new reading; a reading is indicated at most once.
///
/// Advertising repeats every ``Configuration/advertisingInterval`` while the peripheral is on
/// and not connected, as a scanner that reports duplicates hears it, so "it stopped
/// advertising" is observable as silence.
///
/// Pairing: a peripheral with ``Configuration/requiresPairing`` refuses to indicate to an
/// unbonded central (ATT error 0x05, insufficient authentication, on the CCCD write). Reading
/// its pairing characteristic bonds (as the OS pairs on an encrypted characteristic): the
/// link reports `bonding`, the user takes ``Configuration/pairingTime`` to follow the
/// instructions, then `bonded`. The bond outlives power cycles (it is in the device's flash).
public actor EmulatedHealthPeripheral {
  public struct Configuration: Sendable {
    public var kind: HealthPeripheralKind
    /// The address it advertises (static: health peripherals rarely rotate).
    public var address: PeripheralID
    public var name: String
    public var requiresPairing: Bool
    /// Time between advertisements while on and not connected.
    public var advertisingInterval: Duration = .seconds(1)
    /// How long the user takes to follow the pairing instructions.
    public var pairingTime: Duration = .seconds(2)
    /// From the central's subscription to the indication of the reading.
    public var indicationDelay: Duration = .milliseconds(200)
    /// After its reading was indicated and the central left, it keeps advertising this long,
    /// then powers off; nil keeps it on until ``powerOff()``.
    public var powerOffAfterRead: Duration? = nil
    /// Connection setup time.
    public var connectionSetupTime: Duration = .milliseconds(30)
    public var rssi = -58

    public init(kind: HealthPeripheralKind, address: PeripheralID? = nil, name: String? = nil) {
      self.kind = kind
      self.address = address ?? PeripheralID("EMU-\(kind.rawValue.uppercased())")
      self.name = name ?? "Emulated \(kind.rawValue)"
      requiresPairing = kind.requiresPairing
    }
  }

  public let configuration: Configuration
  let time: EmulatorTime

  /// True from ``powerOn(reading:)`` to ``powerOff()``.
  public private(set) var isPoweredOn = false
  /// The reading of this power-on, until it is indicated.
  private var pendingReading: [UInt8]?
  /// Every reading indicated, in order (what a central could have received).
  public private(set) var deliveredReadings: [[UInt8]] = []
  /// How many times it was powered on.
  public private(set) var powerOnCount = 0
  /// Bonded with the (one) phone.
  public private(set) var isBonded = false
  /// Connections accepted so far.
  public private(set) var connectionCount = 0

  private var connection: HealthConnection?
  private var nextConnectionID = 1
  private var observers = AdvertisementObservers()
  private var advertisingTask: Task<Void, Never>?
  private var powerOffTask: Task<Void, Never>?
  /// Bumped at every power change, so a stale timer does nothing.
  private var powerEpoch = 0

  public init(configuration: Configuration, time: EmulatorTime) {
    self.configuration = configuration
    self.time = time
  }

  public var address: PeripheralID { configuration.address }
  public var kind: HealthPeripheralKind { configuration.kind }

  /// The service UUID this peripheral offers.
  public var serviceUUID: BluetoothUUID { BluetoothUUID(configuration.kind.serviceUUID) }

  // MARK: Power

  /// The user takes a measurement: the peripheral powers on with `reading` (nil: a generated
  /// one, ``HealthReading/make(_:sequence:time:)``) and starts advertising. Already on: the
  /// new reading replaces an undelivered one.
  public func powerOn(reading: [UInt8]? = nil) {
    powerOnCount += 1
    pendingReading = reading ?? HealthReading.make(configuration.kind, sequence: powerOnCount)
    powerEpoch += 1
    powerOffTask?.cancel()
    powerOffTask = nil
    isPoweredOn = true
    startAdvertising()
  }

  /// Powers off: advertising stops, a connection drops (link loss), an undelivered reading
  /// is lost.
  public func powerOff() {
    guard isPoweredOn else { return }
    isPoweredOn = false
    powerEpoch += 1
    pendingReading = nil
    powerOffTask?.cancel()
    powerOffTask = nil
    stopAdvertising()
    if let link = connection { end(link.id, reason: .linkLoss) }
  }

  /// Whether a reading is waiting to be indicated.
  public var hasPendingReading: Bool { pendingReading != nil }

  // MARK: Advertising

  var isAdvertising: Bool { isPoweredOn && connection == nil }

  /// The advertisement it sends now, nil when not advertising.
  public var currentAdvertisement: Advertisement? {
    guard isAdvertising else { return nil }
    return Advertisement(
      peripheral: configuration.address, localName: configuration.name, manufacturerData: nil,
      serviceUUIDs: [serviceUUID], rssi: configuration.rssi)
  }

  /// Every advertisement a scanner hears, duplicates included: one at once when advertising,
  /// then one per advertising interval while it advertises. Ends when the consumer stops.
  public func observeAdvertising() -> AsyncStream<Advertisement> { advertisementStream() }

  func relayAdvertising(_ deliver: @escaping @Sendable (Advertisement) -> Void) -> Int {
    observers.add(deliver, current: currentAdvertisement)
  }

  func stopRelaying(_ key: Int) { observers.remove(key) }

  private func startAdvertising() {
    advertisingTask?.cancel()
    guard isAdvertising else { return }
    let epoch = powerEpoch
    let interval = configuration.advertisingInterval
    let time = self.time
    publish()
    advertisingTask = Task {
      var next = time.now + interval
      while !Task.isCancelled {
        do { try await time.sleep(until: next) } catch { return }
        guard self.advertiseAgain(epoch: epoch) else { return }
        next = time.now + interval
      }
    }
  }

  private func advertiseAgain(epoch: Int) -> Bool {
    guard epoch == powerEpoch, isAdvertising else { return false }
    publish()
    return true
  }

  private func stopAdvertising() {
    advertisingTask?.cancel()
    advertisingTask = nil
  }

  private func publish() {
    guard let advertisement = currentAdvertisement else { return }
    observers.publish(advertisement)
  }

  // MARK: Connections

  /// Accepts a connection to `peripheral` discovering `services`.
  /// - Throws: `connectTimeout` while it is not advertising at that address (off, or
  ///   connected to another central), `serviceNotFound` for a service it lacks.
  func accept(_ peripheral: PeripheralID, services: [BluetoothUUID]) async throws(LinkError)
    -> HealthPeripheralLink
  {
    guard isAdvertising, peripheral == configuration.address else { throw .connectTimeout }
    if let missing = services.first(where: { $0 != serviceUUID }) {
      throw .serviceNotFound(missing)
    }
    await time.reach(time.now + configuration.connectionSetupTime)
    guard isAdvertising else { throw .connectTimeout }
    let id = nextConnectionID
    nextConnectionID += 1
    connectionCount += 1
    let (events, continuation) = BackpressureStream<LinkEvent>.makeStream()
    let subscribed = Locked(false)
    connection = HealthConnection(
      id: id, events: continuation, subscribed: subscribed,
      unreadHold: time.holdWhileUnread(.emulatorIndication) {
        subscribed.withLock { $0 } ? continuation.buffered : 0
      })
    stopAdvertising()
    return HealthPeripheralLink(
      peripheral: self, connectionID: id, address: peripheral, events: events)
  }

  func live(_ id: Int) throws(LinkError) -> HealthConnection {
    guard let link = connection, link.id == id else { throw .disconnected(.localRequest) }
    return link
  }

  /// The pairing characteristic bonds; the measurement is indicate-only.
  func read(_ id: Int, _ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    let link = try live(id)
    let kind = configuration.kind
    if characteristic == BluetoothUUID(kind.measurement.uuid) { throw .attError(0x02) }
    guard characteristic == BluetoothUUID(kind.pairingCharacteristicUUID) else {
      throw .characteristicNotFound(characteristic)
    }
    if configuration.requiresPairing, !isBonded {
      link.events.yield(.bondStateChanged(.bonding))
      do { try await time.sleep(until: time.now + configuration.pairingTime) } catch {
        throw .cancelled
      }
      guard connection?.id == id else { throw .disconnected(.linkLoss) }
      isBonded = true
      link.events.yield(.bondStateChanged(.bonded))
    }
    return HealthReading.pairingValue(kind)
  }

  /// Subscribing to the measurement sends the pending reading (once) after
  /// ``Configuration/indicationDelay``.
  func setNotifications(_ id: Int, enabled: Bool, for characteristic: BluetoothUUID)
    throws(LinkError)
  {
    _ = try live(id)
    guard characteristic == BluetoothUUID(configuration.kind.measurement.uuid) else {
      throw .characteristicNotFound(characteristic)
    }
    guard !configuration.requiresPairing || isBonded else { throw .attError(0x05) }
    connection?.subscribed.withLock { $0 = enabled }
    guard enabled, pendingReading != nil else { return }
    let deadline = time.now + configuration.indicationDelay
    let time = self.time
    Task {
      do { try await time.sleep(until: deadline) } catch { return }
      self.indicate(id)
    }
  }

  private func indicate(_ id: Int) {
    guard let link = connection, link.id == id, link.subscribed.withLock({ $0 }),
      let reading = pendingReading
    else { return }
    pendingReading = nil
    deliveredReadings.append(reading)
    link.events.yield(
      .notification(
        characteristic: BluetoothUUID(configuration.kind.measurement.uuid), value: reading))
  }

  func bondState(_ id: Int) -> BondState {
    guard connection?.id == id else { return .none }
    return isBonded ? .bonded : .none
  }

  /// Ends connection `id`: its events end with `reason`; the peripheral advertises again
  /// (and, once its reading went out, powers off after ``Configuration/powerOffAfterRead``).
  func end(_ id: Int, reason: DisconnectReason) {
    guard let link = connection, link.id == id else { return }
    connection = nil
    link.events.yield(.disconnected(reason))
    link.events.finish()
    guard isPoweredOn else { return }
    startAdvertising()
    if pendingReading == nil, let linger = configuration.powerOffAfterRead {
      schedulePowerOff(after: linger)
    }
  }

  private func schedulePowerOff(after linger: Duration) {
    let epoch = powerEpoch
    let deadline = time.now + linger
    let time = self.time
    powerOffTask?.cancel()
    powerOffTask = Task {
      do { try await time.sleep(until: deadline) } catch { return }
      self.powerOffIfStill(epoch)
    }
  }

  private func powerOffIfStill(_ epoch: Int) {
    guard epoch == powerEpoch else { return }
    powerOff()
  }
}

/// The one central connected to an ``EmulatedHealthPeripheral``.
struct HealthConnection {
  let id: Int
  let events: BackpressureStream<LinkEvent>.Continuation
  /// Whether the central subscribed to the measurement (read by the clock hold's probe).
  let subscribed: Locked<Bool>
  /// Holds a manual clock while the subscribed central has its indication unread (released
  /// with the connection).
  let unreadHold: UnreadHold?
}

/// A connection to an ``EmulatedHealthPeripheral``: a thin handle, all state in the actor.
public struct HealthPeripheralLink: PeripheralLink {
  let device: EmulatedHealthPeripheral
  let connectionID: Int
  public let peripheral: PeripheralID
  public let events: BackpressureStream<LinkEvent>

  init(
    peripheral device: EmulatedHealthPeripheral, connectionID: Int, address: PeripheralID,
    events: BackpressureStream<LinkEvent>
  ) {
    self.device = device
    self.connectionID = connectionID
    self.peripheral = address
    self.events = events
  }

  /// Health peripherals keep the default ATT MTU.
  public func requestMTU(_ mtu: Int) async throws(LinkError) -> Int {
    _ = try await device.live(connectionID)
    return 23
  }

  public func maximumWriteLength(for type: WriteType) async -> Int { 20 }

  public func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    try await device.read(connectionID, characteristic)
  }

  /// Nothing on these peripherals is writable.
  public func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    _ = try await device.live(connectionID)
    throw .attError(0x03)
  }

  public func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    try await device.setNotifications(connectionID, enabled: enabled, for: characteristic)
  }

  public var bondState: BondState { get async { await device.bondState(connectionID) } }

  public func disconnect() async { await device.end(connectionID, reason: .localRequest) }
}
