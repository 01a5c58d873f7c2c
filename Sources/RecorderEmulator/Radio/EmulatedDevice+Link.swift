import RecorderBluetooth
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol

/// What the link pump does next.
enum PumpStep: Sendable {
  case event(at: Duration)
  /// Writers were given room and have not acted yet: wait for them (the clock stays held).
  case writersRefilling
  case idle
  case closed
}

// The radio side of the device: advertising, connections, the write queue, connection
// events. Called by `EmulatorCentral` / `EmulatorLink` and the link pump.
extension EmulatedDevice {
  // MARK: Advertising

  /// True while the device is heard: in range and not connected.
  var isAdvertising: Bool { inRange && connection == nil && !restarting && !bleHeldForWiFi }

  /// The advertisement the device sends now, nil when it is not advertising. Its version
  /// field is the firmware running now: after an update, the new one.
  public var currentAdvertisement: Advertisement? {
    guard isAdvertising else { return nil }
    var running = configuration
    running.firmware = firmware
    return Advertisement(
      peripheral: address, localName: name,
      manufacturerData: running.manufacturerData,
      serviceUUIDs: [RecorderGATT.service, RecorderGATT.batteryService],
      rssi: configuration.rssi)
  }

  /// Advertisements as a scanning central hears them: the current one at once, then each
  /// time it changes or reappears (after a disconnect, a reboot with a new address, coming
  /// back in range), like CoreBluetooth without duplicates. Ends when the consumer stops.
  public func observeAdvertising() -> AsyncStream<Advertisement> { advertisementStream() }

  func relayAdvertising(_ deliver: @escaping @Sendable (Advertisement) -> Void) -> Int {
    advertisingObservers.add(deliver, current: currentAdvertisement)
  }

  func stopRelaying(_ key: Int) { advertisingObservers.remove(key) }

  func publishAdvertisement() {
    guard let advertisement = currentAdvertisement else { return }
    advertisingObservers.publish(advertisement)
  }

  /// True when `peripheral` is an address this device used before a reboot.
  func usedAddress(_ peripheral: PeripheralID) -> Bool { pastAddresses.contains(peripheral) }

  // MARK: Connecting

  /// Accepts a central's connection to `peripheral` (the address it heard).
  /// - Throws: `RecorderLink/LinkError/connectTimeout` when the device is not advertising
  ///   at that address (connected elsewhere, out of range, address rotated).
  func acceptConnection(to peripheral: PeripheralID) async throws(LinkError) -> EmulatorLink {
    guard isAdvertising, address == peripheral else { throw .connectTimeout }
    await time.reach(time.now + configuration.link.connectionSetupTime)
    guard isAdvertising, address == peripheral else { throw .connectTimeout }
    // A connect withdrawn during the set-up never becomes a connection.
    guard !Task.isCancelled else { throw .cancelled }
    let id = nextConnectionID
    nextConnectionID += 1
    let (events, eventContinuation) = BackpressureStream<LinkEvent>.makeStream()
    let (wake, wakeContinuation) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let now = time.now
    var link = Connection(
      id: id, peripheral: peripheral, events: eventContinuation, wake: wakeContinuation,
      anchor: now)
    link.preHandshake = PreHandshakeAssembler(indexBase: configuration.modeB.phoneChunkIndexBase)
    let deadline = now + configuration.authenticationTimeout
    let time = self.time
    link.authenticationTimer = Task {
      do { try await time.sleep(until: deadline) } catch { return }
      self.authenticationTimedOut(id)
    }
    link.unreadHold = time.holdWhileUnread(.emulatorUnread) { eventContinuation.unconsumed }
    connection = link
    awaitCentralWrite(id, .emulatorSetUpGrace)
    counterValues.connections += 1
    let limit = configuration.link.consumerBufferLimit
    Task {
      await LinkPump.run(
        device: self, connection: id, wake: wake, events: eventContinuation, time: time,
        bufferLimit: limit)
    }
    return EmulatorLink(device: self, connectionID: id, peripheral: peripheral, events: events)
  }

  /// Real time the link holds a manual clock at most while it waits for the central's turn
  /// (``awaitCentralWrite(_:_:)``): ample for a central's task hops and RSA work on a busy
  /// machine, and short enough that a central which never writes still meets the
  /// authentication timeout.
  static let setUpGrace: Duration = .seconds(2)

  /// It is the central's turn to write (the link is up, or the device sent what the central
  /// must answer): a manual clock holds still until the central's next write, the link's end
  /// or ``setUpGrace`` of real time, whichever comes first. The central's work in between
  /// (task hops, RSA) takes real time and no simulated time, so a device timer must not be
  /// jumped to meanwhile. A no-op on a real clock or while such a hold is already in force.
  ///
  /// With a `horizon`, time may still move up to that much past now meanwhile (and no
  /// further): for a central that paces its writes by sleeping on the same clock.
  func awaitCentralWrite(_ id: Int, _ hold: ClockHold, horizon: Duration? = nil) {
    guard let link = connection, link.id == id, link.setUpGrace == nil,
      let token = horizon.map({ time.beginWork(hold, upTo: time.now + $0) })
        ?? time.beginWork(hold)
    else { return }
    connection?.setUpGrace = token
    Task {
      try? await Task.sleep(for: Self.setUpGrace)
      self.endSetUpGrace(id, ifStill: token)
    }
  }

  /// The central wrote (or the grace ran out): its turn is over.
  func endSetUpGrace(_ id: Int, ifStill token: ManualClock.WorkToken? = nil) {
    guard connection?.id == id else { return }
    if let token, connection?.setUpGrace !== token { return }
    connection?.setUpGrace?.end()
    connection?.setUpGrace = nil
  }

  /// Mode B: the central is answering the key exchange and the device's reply goes out at
  /// `replyAt`; the central then has ``DeviceConfiguration/authenticationTimeout`` from there
  /// to write again (the device's own slowness never counts against it).
  func extendAuthentication(from replyAt: Duration) {
    guard let link = connection, !link.authenticated, link.authenticationTimer != nil else {
      return
    }
    link.authenticationTimer?.cancel()
    let id = link.id
    let deadline = replyAt + configuration.authenticationTimeout
    let time = self.time
    connection?.authenticationTimer = Task {
      do { try await time.sleep(until: deadline) } catch { return }
      self.authenticationTimedOut(id)
    }
  }

  func authenticationTimedOut(_ id: Int) {
    guard let link = connection, link.id == id, !link.authenticated, !link.rejected else { return }
    disconnect(id, reason: .remoteTerminated)
  }

  func timedFaultsDue() {
    guard let at = faults.dropLinkAt, time.now >= at else { return }
    faults.dropLinkAt = nil
    if let link = connection { disconnect(link.id, reason: .linkLoss) }
  }

  /// Ends connection `id` with `reason`: every waiter is released, the central's events end
  /// with `.disconnected(reason)`, the device advertises again.
  func disconnect(_ id: Int, reason: DisconnectReason) {
    guard let link = connection, link.id == id else { return }
    connection = nil
    closedReasons[id] = reason
    link.authenticationTimer?.cancel()
    link.setUpGrace?.end()
    for write in link.writeQueue { write.acknowledgement?.resume() }
    for waiter in link.roomWaiters { waiter.resume() }
    link.events.yield(.disconnected(reason))
    link.events.finish()
    link.wake.finish()
    link.busyToken?.end()
    link.pumpWaiter?.resume()
    if addressChangeOwed {
      // DEPAIR's new identity (PROTOCOL.md §4): heard under a new address from now on.
      addressChangeOwed = false
      depairAddressChanges += 1
      pastAddresses.insert(address)
      address = Self.makeAddress(seed: configuration.seed, boot: -depairAddressChanges)
    }
    publishAdvertisement()
  }

  /// The live connection `id`, or the error a central sees for a link that is gone.
  func liveConnection(_ id: Int) throws(LinkError) -> Connection {
    guard let link = connection, link.id == id else {
      throw .disconnected(closedReasons[id] ?? .localRequest)
    }
    return link
  }

  // MARK: The central's operations

  func negotiateMTU(_ id: Int, requested: Int) throws(LinkError) -> Int {
    var link = try liveConnection(id)
    link.mtu = max(LinkParameters.minimumMTU, min(requested, configuration.link.deviceMaximumMTU))
    connection = link
    return link.mtu
  }

  func maximumWriteLength(_ id: Int) -> Int {
    (connection?.id == id ? connection?.maximumValueLength : nil)
      ?? LinkParameters.minimumMTU - 3
  }

  func read(_ id: Int, _ characteristic: BluetoothUUID) throws(LinkError) -> [UInt8] {
    _ = try liveConnection(id)
    guard characteristic == RecorderGATT.batteryLevel else {
      throw .characteristicNotFound(characteristic)
    }
    return [batteryLevel]
  }

  func setNotifications(_ id: Int, enabled: Bool, for characteristic: BluetoothUUID)
    throws(LinkError)
  {
    var link = try liveConnection(id)
    switch characteristic {
    case RecorderGATT.notifyCharacteristic: link.notifying = enabled
    case RecorderGATT.batteryLevel: link.batteryNotifying = enabled
    default: throw .characteristicNotFound(characteristic)
    }
    connection = link
  }

  /// Queues a write toward the device, waiting for room in the link's queue (back pressure);
  /// with response, also waits until the device has received it.
  func write(_ id: Int, value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    let link = try liveConnection(id)
    guard characteristic == RecorderGATT.writeCharacteristic else {
      throw .characteristicNotFound(characteristic)
    }
    guard value.count <= link.maximumValueLength else {
      throw .valueTooLong(length: value.count, maximum: link.maximumValueLength)
    }
    while let current = connection, current.id == id,
      current.writeQueue.count >= configuration.link.writeQueueCapacity
    {
      await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
        connection?.roomWaiters.append(waiter)
        connection?.owesReadySignal = true
      }
      writerActed(id)
    }
    _ = try liveConnection(id)
    if type == .withResponse {
      await withCheckedContinuation { (acknowledgement: CheckedContinuation<Void, Never>) in
        connection?.writeQueue.append(
          Connection.PendingWrite(value: value, acknowledgement: acknowledgement))
        markBusy()
        endSetUpGrace(id)
      }
      _ = try liveConnection(id)
    } else {
      connection?.writeQueue.append(Connection.PendingWrite(value: value, acknowledgement: nil))
      markBusy()
    }
    endSetUpGrace(id)
  }

  /// Queues `values` (writes without response) in order, as many at a time as the queue has
  /// room for, waiting for room in between: the phone's stack refills the queue in one step
  /// after each connection event, as a real phone's would long before the next event.
  func writeBatch(_ id: Int, values: [[UInt8]], to characteristic: BluetoothUUID)
    async throws(LinkError)
  {
    guard characteristic == RecorderGATT.writeCharacteristic else {
      throw .characteristicNotFound(characteristic)
    }
    var index = 0
    while index < values.count {
      let link = try liveConnection(id)
      let room = configuration.link.writeQueueCapacity - link.writeQueue.count
      guard room > 0 else {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
          connection?.roomWaiters.append(waiter)
          connection?.owesReadySignal = true
        }
        writerActed(id)
        continue
      }
      let end = min(values.count, index + room)
      for value in values[index..<end] {
        guard value.count <= link.maximumValueLength else {
          throw .valueTooLong(length: value.count, maximum: link.maximumValueLength)
        }
        connection?.writeQueue.append(Connection.PendingWrite(value: value, acknowledgement: nil))
      }
      index = end
      markBusy()
      endSetUpGrace(id)
    }
  }

  /// A writer given room is running again (it queues its write next, or waits again): the
  /// pump may schedule the next connection event.
  func writerActed(_ id: Int) {
    guard connection?.id == id, let count = connection?.writersGivenRoom, count > 0 else { return }
    connection?.writersGivenRoom = count - 1
    connection?.wake.yield()
  }

  /// The link has traffic: hold a manual clock still and wake the pump.
  func markBusy() {
    guard let link = connection else { return }
    if link.busyToken == nil { connection?.busyToken = time.beginWork(.emulatorLinkBusy) }
    link.wake.yield()
    if !link.writeQueue.isEmpty { resumePumpWaiter(link.id) }
  }

  /// Queues a notification on the vendor characteristic.
  func notify(_ value: [UInt8], readyAt: Duration? = nil) {
    guard connection != nil else { return }
    var item = Connection.Outgoing(
      characteristic: RecorderGATT.notifyCharacteristic, value: value,
      readyAt: readyAt ?? time.now)
    if connection?.dropAfterNextReply == true {
      item.dropsLinkAfter = true
      connection?.dropAfterNextReply = false
    }
    connection?.outgoing.append(item)
    markBusy()
  }

  // MARK: Connection events

  /// When the next connection event with traffic happens, or idle / closed.
  func pumpStep(_ id: Int) -> PumpStep {
    guard let link = connection, link.id == id else { return .closed }
    // A phone refills its write queue within microseconds of being told there is room, long
    // before the next connection event: never run one while a writer given room has not
    // acted yet (it wakes the pump when it has).
    if link.writersGivenRoom > 0 {
      if connection?.busyToken == nil { connection?.busyToken = time.beginWork(.emulatorLinkBusy) }
      return .writersRefilling
    }
    let now = time.now
    var due: Duration? = link.writeQueue.isEmpty ? nil : now
    if let first = link.outgoing.first { due = min(due ?? first.readyAt, first.readyAt) }
    if let stream = link.sync, let ready = streamReadyTime(stream, now: now) {
      due = min(due ?? ready, ready)
    }
    guard let due else {
      connection?.busyToken?.end()
      connection?.busyToken = nil
      return .idle
    }
    if connection?.busyToken == nil { connection?.busyToken = time.beginWork(.emulatorLinkBusy) }
    let interval = nanoseconds(configuration.link.connectionInterval)
    let anchor = nanoseconds(link.anchor)
    let target = max(nanoseconds(due), nanoseconds(now))
    var event = anchor + (max(0, target - anchor) + interval - 1) / interval * interval
    if let last = link.lastEvent, event <= nanoseconds(last) {
      event = nanoseconds(last) + interval
    }
    return .event(at: .nanoseconds(event))
  }

  /// Returns when the central's consumer has fewer than `limit` events unread, or a write is
  /// waiting to reach the device (writes flow even when the app is not reading, as on a
  /// real radio; only notifications wait for the consumer).
  func waitForConsumerOrWrite(
    _ id: Int, events: BackpressureStream<LinkEvent>.Continuation, limit: Int
  ) async {
    guard let link = connection, link.id == id, link.writeQueue.isEmpty,
      events.buffered >= limit
    else { return }
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      connection?.pumpWaiter = waiter
      Task {
        await events.waitForRoom(below: limit)
        self.resumePumpWaiter(id)
      }
    }
  }

  func resumePumpWaiter(_ id: Int) {
    guard connection?.id == id, let waiter = connection?.pumpWaiter else { return }
    connection?.pumpWaiter = nil
    waiter.resume()
  }

  /// One connection event at `instant`: up to the link's packets each way.
  func runConnectionEvent(_ id: Int, at instant: Duration) {
    guard connection?.id == id else { return }
    connection?.lastEvent = instant
    counterValues.connectionEvents += 1
    if let at = faults.dropLinkAt, instant >= at {
      timedFaultsDue()
      return
    }
    deliverWrites(id, at: instant)
    sendNotifications(id, at: instant)
  }

  private func deliverWrites(_ id: Int, at instant: Duration) {
    var budget = 1.0
    while budget > 1e-9, let link = connection, link.id == id, !link.writeQueue.isEmpty {
      let write = link.writeQueue[0]
      connection?.writeQueue.removeFirst()
      budget -= 1.0 / Double(configuration.link.packetsPerEvent(valueLength: write.value.count))
      write.acknowledgement?.resume()
      handleWrite(write.value, at: instant)
    }
    guard var link = connection, link.id == id,
      link.writeQueue.count < configuration.link.writeQueueCapacity
    else { return }
    let waiters = link.roomWaiters
    link.roomWaiters = []
    link.writersGivenRoom += waiters.count
    let owed = link.owesReadySignal
    link.owesReadySignal = false
    connection = link
    for waiter in waiters { waiter.resume() }
    if owed { link.events.yield(.readyToSendWriteWithoutResponse) }
  }

  private func sendNotifications(_ id: Int, at instant: Duration) {
    var budget = 1.0
    // The pump waited for the consumer before this event unless writes were pending; then
    // notifications wait for the next event if the consumer is still behind.
    guard let link = connection, link.events.buffered < configuration.link.consumerBufferLimit
    else { return }
    while budget > 1e-9, connection?.id == id {
      guard let (item, isData) = nextOutgoing(at: instant) else { return }
      budget -= 1.0 / Double(configuration.link.packetsPerEvent(valueLength: item.value.count))
      guard isData else {
        deliver(item)
        if item.dropsLinkAfter {
          disconnect(id, reason: .linkLoss)
          return
        }
        continue
      }
      let index = dataFrameOrdinal - faultBaseDataFrames
      dataFrameOrdinal += 1
      if let every = faults.loseDataFrameEveryBytes, every > 0 {
        lossCarry += item.value.count - 10
        if lossCarry >= every {
          lossCarry -= every
          continue
        }
      }
      if faults.dropDataFrame == index {
        faults.dropDataFrame = nil
        continue
      }
      var value = item.value
      if faults.corruptDataFrame == index, value.count > 10 {
        faults.corruptDataFrame = nil
        value[10 + (value.count - 10) / 2] ^= 0x5A
      }
      let frame = Connection.Outgoing(
        characteristic: item.characteristic, value: value, readyAt: item.readyAt)
      guard deliver(frame, dataBytes: value.count - 10) else { return }
      if faults.duplicateDataFrame == index {
        faults.duplicateDataFrame = nil
        deliver(frame, dataBytes: value.count - 10)
      }
    }
  }

  /// Sends one notification now, applying the MTU rule, the subscription and the
  /// drop-at-byte fault; under Mode B it goes out sealed (the MTU rule applies to the sealed
  /// value, the byte counts to the frame inside). False when the link is gone.
  @discardableResult
  private func deliver(_ item: Connection.Outgoing, dataBytes: Int? = nil) -> Bool {
    guard let link = connection else { return false }
    let sealedLength =
      link.channel != nil && !item.plain
        && item.characteristic == RecorderGATT.notifyCharacteristic
      ? item.value.count + 4 + ChaChaPoly.tagLength : item.value.count
    guard sealedLength <= link.maximumValueLength else {
      counterValues.oversizeFramesRefused += 1
      return true
    }
    let subscribed =
      item.characteristic == RecorderGATT.batteryLevel ? link.batteryNotifying : link.notifying
    guard subscribed else {
      counterValues.notificationsUnsubscribed += 1
      return true
    }
    if let limit = faults.dropLinkAfterNotifiedBytes,
      counterValues.bytesNotified - faultBaseBytes + item.value.count > limit
    {
      faults.dropLinkAfterNotifiedBytes = nil
      disconnect(link.id, reason: .linkLoss)
      return false
    }
    let (value, replay) = sealIfModeB(item)
    link.events.yield(.notification(characteristic: item.characteristic, value: value))
    if replay {
      link.events.yield(.notification(characteristic: item.characteristic, value: value))
    }
    // The trace keeps frames as the protocol reads them (Mode B: before sealing).
    if item.value.first == 0x01 { trace(.notified(item.value)) }
    counterValues.framesNotified += 1
    counterValues.bytesNotified += item.value.count
    if let dataBytes {
      counterValues.dataFramesSent += 1
      counterValues.dataBytesSent += dataBytes
    }
    return true
  }

  /// The next notification due at `instant`: queued replies first, then the sync stream.
  private func nextOutgoing(at instant: Duration) -> (Connection.Outgoing, isData: Bool)? {
    guard let link = connection else { return nil }
    if let first = link.outgoing.first, first.readyAt <= instant {
      connection?.outgoing.removeFirst()
      return (first, false)
    }
    guard link.outgoing.isEmpty, link.sync != nil else { return nil }
    guard let frame = nextSyncFrame(at: instant) else {
      // The stream ended (terminal and tail are now queued) or waits for a live recording.
      if let first = connection?.outgoing.first, first.readyAt <= instant {
        connection?.outgoing.removeFirst()
        return (first, false)
      }
      return nil
    }
    return (
      Connection.Outgoing(
        characteristic: RecorderGATT.notifyCharacteristic, value: frame, readyAt: instant),
      true
    )
  }
}

extension EmulatedDevice {
  /// `item`'s value as it goes on air: sealed with the next sequence once Mode B's channel
  /// is open (the tamper fault applied after sealing), and whether the replay fault asks for
  /// it to be sent twice.
  fileprivate func sealIfModeB(_ item: Connection.Outgoing) -> (value: [UInt8], replay: Bool) {
    guard !item.plain, item.characteristic == RecorderGATT.notifyCharacteristic,
      var channel = connection?.channel
    else { return (item.value, false) }
    let sequence = channel.nextSend
    var value = channel.seal(item.value)
    connection?.channel = channel
    if faults.tamperSealedSequence == sequence {
      faults.tamperSealedSequence = nil
      value[value.count / 2] ^= 0x20
    }
    guard faults.replaySealedSequence == sequence else { return (value, false) }
    faults.replaySealedSequence = nil
    return (value, true)
  }
}

/// Moves a connection's traffic through time: before each connection event it waits for the
/// central's consumer (so virtual time never runs ahead of it), then brings the clock to the
/// event (advancing a manual clock, or sleeping on a real one) and lets the device run it.
enum LinkPump {
  static func run(
    device: EmulatedDevice, connection id: Int, wake: AsyncStream<Void>,
    events: BackpressureStream<LinkEvent>.Continuation, time: EmulatorTime, bufferLimit: Int
  ) async {
    var wakeups = wake.makeAsyncIterator()
    while true {
      switch await device.pumpStep(id) {
      case .closed:
        return
      case .idle, .writersRefilling:
        guard await wakeups.next() != nil else { return }
      case .event(let instant):
        await device.waitForConsumerOrWrite(id, events: events, limit: bufferLimit)
        await time.reach(instant)
        await device.runConnectionEvent(id, at: instant)
      }
    }
  }
}
