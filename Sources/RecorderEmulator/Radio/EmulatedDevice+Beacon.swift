import RecorderBluetooth

// The iBeacon wake-up: the frame the device broadcasts beside its advertising while
// setting 49 is on (PROTOCOL.md §3.1, the identity [project]).
extension EmulatedDevice {
  /// The iBeacon wake-up setting.
  static let iBeaconSetting: UInt16 = 49

  /// The beacon heard now: ``DeviceConfiguration/beacon`` while the device is in range, not
  /// restarting, its setting 49 is 1 and (unless ``DeviceConfiguration/beaconWhileConnected``)
  /// no phone is connected; nil otherwise.
  public var currentBeacon: IBeacon? {
    guard let beacon = configuration.beacon, inRange, !restarting,
      settings[Self.iBeaconSetting] == 1,
      configuration.beaconWhileConnected || connection == nil
    else { return nil }
    return beacon
  }

  /// The beacon as a phone nearby hears it: the current one (or nil) at once, then each
  /// change. Ends when the consumer stops.
  public func observeBeacon() -> AsyncStream<IBeacon?> {
    let (stream, continuation) = AsyncStream.makeStream(of: IBeacon?.self)
    let id = nextObserverID
    nextObserverID += 1
    beaconObservers[id] = continuation
    continuation.onTermination = { _ in
      Task { await self.removeBeaconObserver(id) }
    }
    continuation.yield(currentBeacon)
    return stream
  }

  func removeBeaconObserver(_ id: Int) { beaconObservers[id] = nil }

  /// Tells the observers when the beacon heard changed.
  func publishBeacon() {
    let beacon = currentBeacon
    guard beacon != publishedBeacon else { return }
    publishedBeacon = beacon
    for observer in beaconObservers.values { observer.yield(beacon) }
  }
}
