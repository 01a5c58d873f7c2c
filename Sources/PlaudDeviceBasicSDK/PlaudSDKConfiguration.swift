import Foundation
import RecorderKit

/// What the facade runs on: the Bluetooth central, the storage root, the clock and the
/// beacon service. Set it with ``PlaudDeviceAgent/configure(_:)`` before the first access to
/// ``PlaudDeviceAgent/shared`` (the vendor's SDK has no such hook: it always uses
/// CoreBluetooth). On Linux, in CI and in the iOS Simulator, pass a `TCPCentral` connected to
/// `recorder emulate`; in tests, an `EmulatorCentral` and a manual clock.
public struct PlaudSDKConfiguration: Sendable {
  /// The central to scan and connect with; nil reports `bleConnectState(-1)` and
  /// `bleScanOverTime()` (no radio).
  public var central: (any RecorderCentral)?
  /// Where the journal, raw device files and default exports live (shared/DESIGN.md).
  public var storageRoot: String
  /// The clock every wait goes through.
  public var clock: RecorderClock
  /// Beacon wake-up (iOS: Core Location; elsewhere injected).
  public var beaconMonitor: any BeaconMonitor
  /// How long `startScan()` listens before stopping (and `bleScanOverTime()` if nothing was
  /// heard).
  public var scanTimeout: Duration = .seconds(30)
  /// How long `connectBySN(_:)` looks for the serial.
  public var findTimeout: Duration = .seconds(10)
  /// Wall-clock unix seconds (TIME_SYNC, LIST tags); replace for deterministic tests.
  public var unixTime: @Sendable () -> UInt32 = {
    UInt32(clamping: Int(Date().timeIntervalSince1970))
  }
  /// Local time-zone offset in seconds, sent with TIME_SYNC and reported by `bleBind`.
  public var timeZoneSeconds: @Sendable () -> Int = { TimeZone.current.secondsFromGMT() }

  /// - Parameters:
  ///   - central: the radio (nil: none).
  ///   - storageRoot: default `<temporary directory>/PlaudDeviceBasicSDK`.
  ///   - clock: default the continuous clock.
  ///   - beaconMonitor: default none (never wakes).
  public init(
    central: (any RecorderCentral)? = nil,
    storageRoot: String = NSTemporaryDirectory() + "PlaudDeviceBasicSDK",
    clock: RecorderClock? = nil,
    beaconMonitor: any BeaconMonitor = UnavailableBeaconMonitor()
  ) {
    self.central = central
    self.storageRoot = storageRoot
    self.clock = clock ?? .continuous
    self.beaconMonitor = beaconMonitor
  }
}
