import Foundation
import RecorderConcurrency
import RecorderKit

/// A recording on the device, as `bleFileList` and `wifiFileList` report it.
///
/// A mutable `NSObject` subclass, as the vendor's: not `Sendable`. The facade builds a fresh
/// one for each callback on the callback queue and never shares it across threads.
public final class BleFile: NSObject {
  /// The recording's id: its start time, unix seconds.
  public var sessionId: Int
  /// Bytes of raw device audio.
  public var size: Int
  /// Where a transfer would resume: the bytes already durable locally (0 when none).
  public var offset: Int
  /// The recording's scene (1 normal, 4 music, 7 call); pass it back to Wi-Fi `syncFile`.
  public var scenes: Int
  /// The serial number of the device holding the recording ("" when unknown).
  public var sn: String
  /// The duration in milliseconds, from the size (what ``duration()`` returns).
  public var durationMilliseconds: Int
  /// RecorderKit addition: audio channels.
  public var channels: Int

  public init(
    sessionId: Int, size: Int, offset: Int = 0, scenes: Int = 1, duration: Int = 0,
    channels: Int = 1, sn: String = ""
  ) {
    self.sessionId = sessionId
    self.size = size
    self.offset = offset
    self.scenes = scenes
    self.sn = sn
    durationMilliseconds = duration
    self.channels = channels
    super.init()
  }

  /// The recording's duration in whole milliseconds (the vendor's `duration()`).
  public func duration() -> Int { durationMilliseconds }

  convenience init(_ recording: Recording, offset: Int, serial: String) {
    self.init(
      sessionId: Int(recording.sessionId), size: Int(recording.size), offset: offset,
      scenes: Int(recording.scene ?? 1), duration: recording.durationMs,
      channels: recording.channels, sn: serial)
  }
}

/// A recorder heard while scanning, or the connected one.
///
/// A mutable `NSObject` subclass, as the vendor's (`PlaudBleDevice` derives from it): not
/// `Sendable`. The facade carries its fields across threads as a snapshot and hands the
/// app fresh objects.
open class BleDevice: NSObject {
  /// The serial number: the stable identity (the radio address rotates).
  public var serialNumber: String
  /// The advertised name (may be empty), or the name the device reported once connected.
  public var name: String
  /// Signal strength in dBm.
  public var rssi: Int
  /// Battery level 0–100 (0 until the connected device reports it).
  public var power: Int
  /// Whether the charger is plugged in (false until the connected device reports it).
  public var isCharging: Bool
  /// Whether the device offers Wi-Fi Fast Transfer (its handshake's `supportWifi`).
  public var supportWiFi: Bool
  /// The firmware's version code as the device sends it (`u24`: 95 for `V0095`; 0 when
  /// unknown). A code below 255 reads as four digits after ``versionTypeStr``; larger codes
  /// pack `major.minor.patch` in their three bytes.
  public var versionCode: Int
  /// The firmware's version type letter (`"V"`; "" when unknown).
  public var versionTypeStr: String
  /// PROTOCOL.md §1 port version: gates features.
  public var protVersion: Int
  /// Cloud device type, as ``PlaudFileUploader/calculateSnType(sn:)``.
  public var snType: String

  /// What the scanner heard; nil for a device an app built itself (connect then goes by
  /// serial number).
  var discovered: DiscoveredDevice?

  /// A device known by serial number only: connecting goes by serial.
  public init(sn: String) {
    serialNumber = sn
    name = ""
    rssi = 0
    power = 0
    isCharging = false
    supportWiFi = false
    versionCode = 0
    versionTypeStr = ""
    protVersion = 0
    snType = PlaudFileUploader.calculateSnType(sn: sn)
    discovered = nil
    super.init()
  }

  /// A device known by serial number (and optionally name and signal): connecting goes by
  /// serial.
  public convenience init(serialNumber: String, name: String = "", rssi: Int = 0) {
    self.init(sn: serialNumber)
    self.name = name
    self.rssi = rssi
  }

  /// A recorder as the scanner heard it. A recorder heard only by name has no serial or
  /// version until connected: "" / 0.
  convenience init(_ device: DiscoveredDevice) {
    self.init(sn: device.serial ?? "")
    name = device.name ?? ""
    rssi = device.rssi
    setFirmware(device.firmware)
    protVersion = Int(device.portVersion ?? 0)
    discovered = device
  }

  func setFirmware(_ firmware: FirmwareVersion?) {
    versionCode = Int(firmware?.code ?? 0)
    versionTypeStr = firmware.map { String(UnicodeScalar($0.type)) } ?? ""
  }
}

/// The vendor's `PlaudBleDevice`: a ``BleDevice`` an app makes from a serial number.
public final class PlaudBleDevice: BleDevice {
  public override init(sn: String) { super.init(sn: sn) }
}

/// The vendor's lower-level agent; here it exposes the connected device and its recording
/// state, which `PlaudWiFiAgent` and the template app read.
///
/// Process-wide: it reflects the agent that connected last (as the vendor's one agent).
public final class BleAgent: NSObject, Sendable {
  /// The one agent.
  public static let shared = BleAgent()

  private struct State: Sendable {
    var device: DiscoveredDevice?
    var recording = false
    var sessionId = 0
  }

  private let state = Locked(State())

  /// The device connected now (a fresh object on each read), nil when none is.
  public var bleDevice: BleDevice? { state.current.device.map(BleDevice.init) }

  /// Whether the connected device is recording (not paused): from its state at connect and
  /// each recording start, resume, pause and stop since.
  public var isRecording: Bool { state.current.recording }

  /// The recording in progress (or paused) on the connected device, 0 when none.
  public var sessionId: Int { state.current.sessionId }

  func setConnected(_ connected: DiscoveredDevice, recording: Bool, sessionId: Int) {
    state.withLock { $0 = State(device: connected, recording: recording, sessionId: sessionId) }
  }

  func setRecording(_ recording: Bool, sessionId: Int) {
    state.withLock { current in
      current.recording = recording
      current.sessionId = sessionId
    }
  }

  /// `disconnected` is gone: cleared only if it is still the one connected last (another
  /// agent of the same process may have connected since).
  func setDisconnected(_ disconnected: DiscoveredDevice?) {
    state.withLock { if $0.device == disconnected { $0 = State() } }
  }
}

extension BleDevice {
  /// A Sendable copy of a device's fields, for carrying across threads.
  struct Snapshot: Sendable {
    var serialNumber: String
    var name: String
    var rssi: Int
    var discovered: DiscoveredDevice?
    var power = 0
    var isCharging = false
    var supportWiFi = false
    var versionCode = 0
    var versionTypeStr = ""
    var protVersion = 0
  }

  var snapshot: Snapshot {
    Snapshot(
      serialNumber: serialNumber, name: name, rssi: rssi, discovered: discovered, power: power,
      isCharging: isCharging, supportWiFi: supportWiFi, versionCode: versionCode,
      versionTypeStr: versionTypeStr, protVersion: protVersion)
  }

  convenience init(snapshot: Snapshot) {
    self.init(sn: snapshot.serialNumber)
    name = snapshot.name
    rssi = snapshot.rssi
    discovered = snapshot.discovered
    power = snapshot.power
    isCharging = snapshot.isCharging
    supportWiFi = snapshot.supportWiFi
    versionCode = snapshot.versionCode
    versionTypeStr = snapshot.versionTypeStr
    protVersion = snapshot.protVersion
  }
}
