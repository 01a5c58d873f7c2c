#if os(Linux)
  /// NetworkManager's D-Bus names and numbers (its `nm-dbus-interface.h`), and the reading
  /// of what it sends: every value is checked for its type and range, so a property or
  /// signal of the wrong shape reads as absent, never as a crash.
  enum NetworkManagerProperties {
    static let service = "org.freedesktop.NetworkManager"
    static let managerPath = "/org/freedesktop/NetworkManager"
    static let settingsPath = "/org/freedesktop/NetworkManager/Settings"
    static let manager = "org.freedesktop.NetworkManager"
    static let settings = "org.freedesktop.NetworkManager.Settings"
    static let connection = "org.freedesktop.NetworkManager.Settings.Connection"
    static let device = "org.freedesktop.NetworkManager.Device"
    static let wireless = "org.freedesktop.NetworkManager.Device.Wireless"
    static let accessPoint = "org.freedesktop.NetworkManager.AccessPoint"
    static let active = "org.freedesktop.NetworkManager.Connection.Active"
    static let ip4Config = "org.freedesktop.NetworkManager.IP4Config"
    static let properties = "org.freedesktop.DBus.Properties"

    /// `NM_DEVICE_TYPE_WIFI`.
    static let deviceTypeWiFi: UInt32 = 2
    /// `NM_DEVICE_STATE_UNMANAGED` and `NM_DEVICE_STATE_UNAVAILABLE` (no radio, rfkill).
    static let deviceStateUnmanaged: UInt32 = 10
    static let deviceStateUnavailable: UInt32 = 20
    /// `NM_DEVICE_STATE_FAILED`.
    static let deviceStateFailed: UInt32 = 120

    /// `NMActiveConnectionState`.
    enum ActiveState: UInt32 {
      case unknown = 0
      case activating = 1
      case activated = 2
      case deactivating = 3
      case deactivated = 4
    }

    /// `NM_ACTIVE_CONNECTION_STATE_REASON_*` that mean the password was refused: NO_SECRETS
    /// (no agent could supply a better one after the first failed) and LOGIN_FAILED.
    static let passwordReasons: Set<UInt32> = [9, 10]
    /// `NM_DEVICE_STATE_REASON_*` that mean the same on the device: NO_SECRETS and
    /// SUPPLICANT_DISCONNECT (the WPA 4-way handshake failed: a wrong PSK).
    static let devicePasswordReasons: Set<UInt32> = [7, 8]

    /// NetworkManager's name for an active connection's state reason.
    static func activeReasonName(_ reason: UInt32) -> String {
      let names: [UInt32: String] = [
        0: "unknown", 1: "none", 2: "user disconnected", 3: "device disconnected",
        4: "service stopped", 5: "IP configuration invalid", 6: "connect timeout",
        7: "service start timeout", 8: "service start failed", 9: "no secrets",
        10: "login failed", 11: "connection removed", 12: "dependency failed",
        13: "device realize failed", 14: "device removed",
      ]
      return names[reason] ?? "reason \(reason)"
    }

    /// NetworkManager's name for some device state reasons (the ones a Wi-Fi join meets).
    static func deviceReasonName(_ reason: UInt32) -> String {
      let names: [UInt32: String] = [
        7: "no secrets", 8: "supplicant disconnected", 9: "supplicant configuration failed",
        10: "supplicant failed", 11: "supplicant timeout", 36: "device removed",
        53: "SSID not found",
      ]
      return names[reason] ?? "device reason \(reason)"
    }

    // MARK: Reading replies and signals

    /// An `ao` reply or property: the object paths; nil for anything else.
    static func objectPaths(_ value: DBusValue?) -> [String]? {
      guard let elements = value?.arrayValue else { return nil }
      var paths: [String] = []
      for element in elements {
        guard case .objectPath(let path) = element.unwrapped else { return nil }
        paths.append(path)
      }
      return paths
    }

    /// A single object path (`o`, possibly in a variant); nil for "/" (NM's "none").
    static func objectPath(_ value: DBusValue?) -> String? {
      guard case .objectPath(let path)? = value?.unwrapped, path != "/" else { return nil }
      return path
    }

    /// A `u`; nil for another type.
    static func uint32(_ value: DBusValue?) -> UInt32? {
      guard case .uint32(let number)? = value?.unwrapped else { return nil }
      return number
    }

    /// A device's GetAll (`a{sv}` of org.freedesktop.NetworkManager.Device): whether it is a
    /// Wi-Fi device NetworkManager can use, and its interface name.
    struct Device: Equatable {
      var isWiFi: Bool
      var usable: Bool
      var interface: String

      init?(_ all: DBusValue?) {
        guard let properties = all?.stringDictionary,
          let type = uint32(properties["DeviceType"]),
          let state = uint32(properties["State"])
        else { return nil }
        isWiFi = type == deviceTypeWiFi
        usable = state != deviceStateUnmanaged && state != deviceStateUnavailable
        interface = properties["Interface"]?.stringValue ?? ""
      }
    }

    /// An access point's `Ssid` (`ay`); nil for another type or more than 32 bytes.
    static func ssid(_ value: DBusValue?) -> [UInt8]? {
      guard case .bytes(let bytes)? = value?.unwrapped, bytes.count <= 32 else { return nil }
      return bytes
    }

    /// An active connection's `StateChanged (u state, u reason)`.
    static func activeStateChange(_ arguments: [DBusValue]) -> (
      state: ActiveState, reason: UInt32
    )? {
      guard arguments.count >= 2, let raw = uint32(arguments[0]),
        let state = ActiveState(rawValue: raw), let reason = uint32(arguments[1])
      else { return nil }
      return (state, reason)
    }

    /// A device's `StateChanged (u new, u old, u reason)`.
    static func deviceStateChange(_ arguments: [DBusValue]) -> (state: UInt32, reason: UInt32)? {
      guard arguments.count >= 3, let state = uint32(arguments[0]),
        let reason = uint32(arguments[2])
      else { return nil }
      return (state, reason)
    }

    /// AddAndActivateConnection2's reply `(o path, o active_connection, a{sv} result)`.
    static func addAndActivateReply(_ arguments: [DBusValue]) -> (
      connection: String, active: String
    )? {
      guard arguments.count >= 2, let connection = objectPath(arguments[0]),
        let active = objectPath(arguments[1])
      else { return nil }
      return (connection, active)
    }

    /// `NameOwnerChanged (s name, s old, s new)` for `name`: the new owner ("" when gone).
    static func ownerChange(_ arguments: [DBusValue], of name: String) -> (
      old: String, new: String
    )? {
      guard arguments.count == 3, case .string(let changed) = arguments[0], changed == name,
        case .string(let old) = arguments[1], case .string(let new) = arguments[2]
      else { return nil }
      return (old, new)
    }

    /// An IP4Config's `AddressData` (`aa{sv}`, each with `address` s and `prefix` u): the
    /// first well-formed IPv4 address and its prefix length.
    static func firstAddress(_ value: DBusValue?) -> (address: String, prefix: Int)? {
      guard let entries = value?.arrayValue else { return nil }
      for entry in entries {
        guard let fields = entry.stringDictionary,
          let address = fields["address"]?.stringValue, isIPv4(address),
          let prefix = uint32(fields["prefix"]), prefix <= 32
        else { continue }
        return (address, Int(prefix))
      }
      return nil
    }

    /// An IP4Config's `Gateway` (`s`), when it is a dotted IPv4 address.
    static func gateway(_ value: DBusValue?) -> String? {
      guard case .string(let text)? = value?.unwrapped, isIPv4(text) else { return nil }
      return text
    }

    /// The netmask ("255.255.255.0") of a prefix length 0–32.
    static func netmask(prefix: Int) -> String {
      let clamped = max(0, min(32, prefix))
      let mask: UInt32 = clamped == 0 ? 0 : UInt32.max << UInt32(32 - clamped)
      return [24, 16, 8, 0].map { String((mask >> UInt32($0)) & 0xFF) }.joined(separator: ".")
    }

    /// Four decimal octets 0–255, nothing else.
    static func isIPv4(_ text: String) -> Bool {
      let parts = text.split(separator: ".", omittingEmptySubsequences: false)
      return parts.count == 4
        && parts.allSatisfy { part in
          !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII)
            && part.allSatisfy(\.isNumber) && (Int(part) ?? 256) <= 255
        }
    }
  }
#endif
