import Foundation
import RecorderConcurrency
import RecorderKit

/// A recording on the device, as `bleFileList` and `wifiFileList` report it.
public final class BleFile {
  /// The recording's id: its start time, unix seconds.
  public var sessionId: Int
  /// Bytes of raw device audio.
  public var size: Int
  /// Where a transfer would resume: the bytes already durable locally (0 when none).
  public var offset: Int
  /// The recording's scene (1 normal, 4 music, 7 call); pass it back to Wi-Fi `syncFile`.
  public var scenes: Int
  /// RecorderKit addition: duration in milliseconds, from the size.
  public var duration: Int
  /// RecorderKit addition: audio channels.
  public var channels: Int

  public init(
    sessionId: Int, size: Int, offset: Int = 0, scenes: Int = 1, duration: Int = 0,
    channels: Int = 1
  ) {
    self.sessionId = sessionId
    self.size = size
    self.offset = offset
    self.scenes = scenes
    self.duration = duration
    self.channels = channels
  }

  convenience init(_ recording: Recording, offset: Int) {
    self.init(
      sessionId: Int(recording.sessionId), size: Int(recording.size), offset: offset,
      scenes: Int(recording.scene ?? 1), duration: recording.durationMs,
      channels: recording.channels)
  }
}

/// A recorder heard while scanning, or the connected one.
public final class BleDevice {
  /// The serial number: the stable identity (the radio address rotates).
  public var serialNumber: String
  /// The advertised name (may be empty).
  public var name: String
  /// Signal strength in dBm.
  public var rssi: Int
  /// Firmware version text (`V0095`).
  public var versionCode: String
  /// PROTOCOL.md §1 port version: gates features.
  public var protVersion: Int
  /// Cloud device type, as ``PlaudFileUploader/calculateSnType(sn:)``.
  public var snType: String

  /// What the scanner heard; nil for a device an app built itself (connect then goes by
  /// serial number).
  let discovered: DiscoveredDevice?

  /// A device known by serial number only: connecting goes by serial.
  public init(serialNumber: String, name: String = "", rssi: Int = 0) {
    self.serialNumber = serialNumber
    self.name = name
    self.rssi = rssi
    versionCode = ""
    protVersion = 0
    snType = PlaudFileUploader.calculateSnType(sn: serialNumber)
    discovered = nil
  }

  convenience init(_ device: DiscoveredDevice) {
    self.init(device: device)
  }

  private init(device: DiscoveredDevice) {
    // A recorder heard only by name has no serial or version until connected: "" / 0.
    serialNumber = device.serial ?? ""
    name = device.name ?? ""
    rssi = device.rssi
    versionCode = device.firmware?.description ?? ""
    protVersion = Int(device.portVersion ?? 0)
    snType = PlaudFileUploader.calculateSnType(sn: device.serial ?? "")
    discovered = device
  }
}

/// The vendor's lower-level agent; here it exposes only the connected device, which
/// `PlaudWiFiAgent` needs.
public final class BleAgent: Sendable {
  /// The one agent.
  public static let shared = BleAgent()

  private let device = Locked<DiscoveredDevice?>(nil)

  /// The device connected now (a fresh object on each read), nil when none is.
  public var bleDevice: BleDevice? { device.current.map(BleDevice.init) }

  func setConnected(_ connected: DiscoveredDevice) { device.withLock { $0 = connected } }

  /// `disconnected` is gone: cleared only if it is still the one connected last (another
  /// agent of the same process may have connected since).
  func setDisconnected(_ disconnected: DiscoveredDevice?) {
    device.withLock { if $0 == disconnected { $0 = nil } }
  }
}

extension BleDevice {
  /// A Sendable copy of a device's fields, for carrying across threads.
  struct Snapshot: Sendable {
    var serialNumber: String
    var name: String
    var rssi: Int
    var discovered: DiscoveredDevice?
  }

  var snapshot: Snapshot {
    Snapshot(serialNumber: serialNumber, name: name, rssi: rssi, discovered: discovered)
  }

  convenience init(snapshot: Snapshot) {
    if let discovered = snapshot.discovered {
      self.init(discovered)
    } else {
      self.init(serialNumber: snapshot.serialNumber, name: snapshot.name, rssi: snapshot.rssi)
    }
  }
}
