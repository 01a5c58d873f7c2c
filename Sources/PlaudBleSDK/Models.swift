import Foundation
import PlaudDeviceBasicSDK
import RecorderCrypto

// The vendor's value types and small protocols. Raw values: the interface prints none for
// these enums (shared/VENDOR-API.md), so each counts from 0 in declaration order, except
// ``CommonType``, whose raw value is the PROTOCOL.md §3.1 setting id it names.

/// The customer-authorisation state of the vendor's cloud (temporary, unrestricted,
/// restricted).
public enum CustomerAuth: Hashable, Sendable {
  case temp
  case notRestricted
  case restricted
}

/// The secondary-serial authorisation state (temporary, unrestricted, restricted).
public enum SSNAuth: Hashable, Sendable {
  case temp
  case notRestricted
  case restricted
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A device setting by its PROTOCOL.md §3.1 id: what `setCommonParams(dataType:value:)` and
/// `getCommonParams(dataType:)` take as `dataType`.
public enum CommonType: Int, Sendable {
  case LightDuration = 1
  case LightBright = 2
  case Language = 3
  case AutoClear = 4
  case VAD = 15
  case RecScene = 16
  case RecMode = 17
  case VadSensitivity = 18
  case VpuGain = 19
  case BatteryMode = 32
  case MicGain = 20
  case WiFiChannel = 21
  case SwitchHandle = 22
  case AutoPowerOff = 23
  case RawWaveEnabled = 24
  case RecordingAfterDisConnet = 25
  case SyncWhenIdle = 26
  case FindMyState = 27
  case VPUCLK = 30
  case StopRecordAfterCharging = 31
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Read or set.
public enum CommonAction: Int, Sendable {
  case Read
  case Set
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Backlight brightness levels.
public enum BacklightBright: Int, Sendable {
  case Bright1
  case Bright2, Bright3, Bright4, Bright5, Bright6
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Backlight durations.
public enum BacklightDuration: Int, Sendable {
  case Sec10
  case Sec20, Sec30, SecAlways
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Device languages.
public enum LanguageType: Int, Sendable {
  case SimpleChinese
  case TradChinese
  case English
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Recording scenes (1 normal, 4 music, as the device's scene numbers).
public enum RecScene: Int, Sendable {
  case Unknown
  case Normal
  case Interview
  case Classroom
  case Music
  case Meeting
  case Memo
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Recording modes (noise cancelling or not).
public enum RecMode: Int, Sendable {
  case Normal
  case NC
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Voice-activity detection sensitivities.
public enum VadSensitivity: Int, Sendable {
  case Quality
  case lowBitrate
  case Normal
  case Aggressive
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Voice pick-up gains.
public enum VpuGain: Int, Sendable {
  case Low
  case Medium
  case High
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// What the device's switch does.
public enum SwitchHandlerID: Int, Sendable {
  case CallSceneSwitching
  case Recording
}

/// The WebSocket settings (PROTOCOL.md §3.4 `0010`/`0011`: 1 URL, 2 server token, 3 device
/// token; 0 is invalid, so these count from 1).
public enum WebsocketType: UInt8, Sendable {
  case url = 1
  case serToken = 2
  case devToken = 3
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The auto-clear setting.
public enum AutoClear: Int, Sendable {
  case Close
  case Open
}

/// A day's record of the vendor's glasses accessory. RecorderKit drives no glasses: nothing
/// produces these; apps may build them.
open class GlassData: NSObject {
  public var year: Int
  public var month: Int
  public var day: Int
  public var time: Int

  public override init() {
    year = 0
    month = 0
    day = 0
    time = 0
    super.init()
  }

  public init(_ year: UInt16, _ month: UInt8, _ day: UInt8, _ time: UInt32) {
    self.year = Int(year)
    self.month = Int(month)
    self.day = Int(day)
    self.time = Int(time)
    super.init()
  }
}

/// A mark the device stored (TAGS, PROTOCOL.md §3.3: `time u32` `type u8` `status u8`, two
/// reserved bytes).
public class BleRecordMarkingTag: NSObject, @unchecked Sendable {
  // Safety: every stored property is an immutable `let` of a Sendable type.
  public final let timestamp: UInt32
  public final let type: UInt8
  public final let status: UInt8
  public final let reserved: [UInt8]

  public init(timestamp: UInt32, type: UInt8, status: UInt8, reserved: [UInt8]) {
    self.timestamp = timestamp
    self.type = type
    self.status = status
    self.reserved = reserved
    super.init()
  }
}

/// A firmware update as `BleAgent.getUpdateInfo(_:)` reports it (from the facade's cloud
/// check, `PlaudDeviceAgent.checkFirmwareUpdate`). Fields the check does not give are "".
open class UpdateInfo: NSObject {
  public var sn: String = ""
  public var swVersion: String = ""
  public var currentVersion: String = ""
  public var version: String = ""
  public var url: String = ""
  public var size: Int = 0
  public var modifyDesc: String = ""
  public var updateDesc: String = ""
  public var updatePreTip: String = ""
  public var updatingTip: String = ""
  public var failureTip: String = ""
  public var fromVersion: String = ""
  public var toVersion: String = ""
  public var md5: String = ""

  public override init() { super.init() }

  /// Whether ``version`` is newer than `device`'s firmware (`V0095`-style or `V1.2.8`-style
  /// versions compared by their numbers; false when either is unknown).
  public func hasNewVersion(_ device: BleDevice) -> Bool {
    let offered = Self.numbers(version)
    let current = Self.numbers(device.wholeVersion())
    guard !offered.isEmpty, !current.isEmpty else { return false }
    return offered.lexicographicallyPrecedes(current) == false && offered != current
  }

  /// Whether the file at `path` has MD5 ``md5`` (hex, any case); false when it cannot be read.
  public func checkMD5(path: String) -> Bool {
    guard !md5.isEmpty, let data = FileManager.default.contents(atPath: path) else {
      return false
    }
    return Digest.md5(data).hexDigits() == md5.lowercased()
  }

  /// A one-line description of the fields.
  public func toString() -> String {
    "UpdateInfo(sn: \(sn), currentVersion: \(currentVersion), version: \(version), "
      + "url: \(url), size: \(size), md5: \(md5), updateDesc: \(updateDesc))"
  }

  /// `V1.2.8` → [1, 2, 8]; `V0095` → [95].
  static func numbers(_ version: String) -> [Int] {
    version.split { !$0.isNumber }.compactMap { Int($0) }
  }
}

/// Firmware push events (all required).
public protocol OtaProtocol: AnyObject {
  func bleFotaResult(uid: Int, status: Int, errmsg: String?)
  func bleFotaPackReq(uid: Int, start: Int, end: Int)
  func bleFotaPackFin(uid: Int, status: Int, errmsg: String?)
}

/// The glasses accessory's events (all required). RecorderKit reports `glassDataClear(-1)`
/// and nothing else: it drives no glasses.
public protocol GlassProtocol: AnyObject {
  func glassData(_ delFlag: Int, _ dataArr: [GlassData])
  func glassDataClear(_ status: Int)
}

/// A live volume meter's events (all required).
public protocol VolumeProtocol: AnyObject {
  func onDuration(millisec: Int)
  func onVolume(sec: Int, volume: Int)
}

/// A live volume meter's events, with 20 ms resolution (all required).
public protocol PDVolumeProtocol: AnyObject {
  func onDuration(millisec: Int)
  func onVolume(sec: Int, volume: Int)
  func onVolumePerTwentyMsec(mescSecond: Int, volume: Int)
}

/// Decoded PCM from a pipeline (``JXPcmProcess``), or a packet that would not decode.
public protocol JXPcmProcessDelegate: AnyObject {
  func onPcmData(_ sessionId: Int, _ millSec: Int, _ pcmData: Data)
  func onDecodeErr(_ millSec: Int)
}
