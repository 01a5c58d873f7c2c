/// A device setting by name: the SETTINGS ids of PROTOCOL.md §3.1 [sdk]. The ids seen on the
/// wire from a real Note are 15 17 19 20 23 24 26 27 [device]; the rest come from the vendor
/// SDK only.
public enum DeviceSetting: UInt16, Sendable, CaseIterable, CustomStringConvertible {
  case backlightTime = 1
  case brightness = 2
  case language = 3
  case autoDelete = 4
  /// Voice-activity detection on/off.
  case vad = 15
  case scene = 16
  /// 2 = noise cancelling on, any other value off (``noiseCancellingOn``) [sdk-code].
  case mode = 17
  /// 0, 2 or 3.
  case vadSensitivity = 18
  /// 0–2.
  case vpuGain = 19
  case micGain = 20
  case wifiChannel = 21
  /// 0 phone, 1 record, 2 off.
  case switchRole = 22
  /// 0 off, 1 shut down, 2 15 min, 3 30 min, 4 1 h, 5 5 h.
  case autoPowerOff = 23
  case saveRaw = 24
  case autoRecord = 25
  case autoSync = 26
  case findMy = 27
  case vpuClock = 30
  case autoStop = 31
  case batteryMode = 32
  /// iBeacon wake-up (the background guide's `setIBeaconWakeupEnabled`).
  case iBeaconWakeup = 49

  /// The command-line name: kebab case (`auto-power-off`).
  public var name: String {
    switch self {
    case .backlightTime: "backlight-time"
    case .brightness: "brightness"
    case .language: "language"
    case .autoDelete: "auto-delete"
    case .vad: "vad"
    case .scene: "scene"
    case .mode: "mode"
    case .vadSensitivity: "vad-sensitivity"
    case .vpuGain: "vpu-gain"
    case .micGain: "mic-gain"
    case .wifiChannel: "wifi-channel"
    case .switchRole: "switch-role"
    case .autoPowerOff: "auto-power-off"
    case .saveRaw: "save-raw"
    case .autoRecord: "auto-record"
    case .autoSync: "auto-sync"
    case .findMy: "find-my"
    case .vpuClock: "vpu-clock"
    case .autoStop: "auto-stop"
    case .batteryMode: "battery-mode"
    case .iBeaconWakeup: "ibeacon-wakeup"
    }
  }

  public var description: String { name }

  /// Setting 17's value with noise cancelling on; any other value is off (PROTOCOL.md §3.1,
  /// §12: the SDK's code, not early notes' 1) [sdk-code].
  public static let noiseCancellingOn: UInt32 = 2

  /// What `value` means, for the settings whose values have a known meaning: setting 17
  /// `noise-cancelling-on` / `-off`; nil for the others.
  public func meaning(of value: UInt32) -> String? {
    guard self == .mode else { return nil }
    return value == Self.noiseCancellingOn ? "noise-cancelling-on" : "noise-cancelling-off"
  }

  /// The setting called `name` (kebab case), or nil.
  public init?(name: String) {
    guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
    self = found
  }
}
