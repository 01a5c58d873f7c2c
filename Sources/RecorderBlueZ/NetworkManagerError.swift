#if os(Linux)
  import Foundation

  /// Why joining a Wi-Fi network through NetworkManager failed. Each case says what a user
  /// or an administrator can do about it. No case carries the network's password: D-Bus
  /// messages are scrubbed of it before they land here.
  public enum NetworkManagerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system bus cannot be reached (no dbus-daemon, or a wrong `DBUS_SYSTEM_BUS_ADDRESS`).
    case busUnavailable(String)
    /// Nobody owns `org.freedesktop.NetworkManager` on the system bus.
    case notRunning
    /// The bus or NetworkManager (polkit) refused the call.
    case accessDenied(String)
    /// NetworkManager manages no Wi-Fi device (none, unmanaged, or blocked by rfkill).
    case noWiFiDevice
    /// No access point with this SSID appeared in NetworkManager's scans within the bound.
    case ssidNotFound(ssid: String, after: Duration)
    /// The access point turned our password down (NetworkManager's NO_SECRETS, or the
    /// supplicant's 4-way handshake failing): the device refused the password.
    case passwordRefused(ssid: String, reason: String)
    /// The activation ended without connecting, for another reason (NetworkManager's words).
    case activationFailed(ssid: String, reason: String)
    /// NetworkManager left the bus (stopped or restarted) while we were joining.
    /// `cleanedUp` tells whether the connection we had added could be deleted afterwards.
    case stopped(ssid: String, cleanedUp: Bool)
    /// NetworkManager did not finish `operation` within its bound.
    case timedOut(String)
    /// NetworkManager lacks what we need (AddAndActivateConnection2: 1.16 or later).
    case unsupported(String)
    /// Any other failure of a NetworkManager call: the operation and the D-Bus error.
    case call(String, DBusFailure)

    public var description: String {
      switch self {
      case .busUnavailable(let detail):
        "cannot reach the D-Bus system bus (\(detail)); is dbus running? "
          + "(DBUS_SYSTEM_BUS_ADDRESS overrides the address)"
      case .notRunning:
        "NetworkManager is not running (no org.freedesktop.NetworkManager on the system bus)"
      case .accessDenied(let detail):
        "NetworkManager refused us (\(detail)): the user needs the polkit permissions "
          + "org.freedesktop.NetworkManager.settings.modify.system and "
          + "org.freedesktop.NetworkManager.network-control (see docs/linux-gateway.md)"
      case .noWiFiDevice:
        "NetworkManager has no Wi-Fi device (`nmcli device` lists none of type wifi, "
          + "or it is unmanaged or blocked: `rfkill list`)"
      case .ssidNotFound(let ssid, let after):
        "no access point \(ssid) appeared in NetworkManager's scans within "
          + "\(Int(after.components.seconds)) s: is the device's hotspot up and in range?"
      case .passwordRefused(let ssid, let reason):
        "the device refused the password for \(ssid) (NetworkManager: \(reason))"
      case .activationFailed(let ssid, let reason):
        "NetworkManager could not connect to \(ssid): \(reason)"
      case .stopped(let ssid, let cleanedUp):
        "NetworkManager stopped or restarted while joining \(ssid)"
          + (cleanedUp
            ? "; the connection we had added was removed"
            : "; the connection we had added (recorder-\(ssid)-…) could not be removed: "
              + "delete it with `nmcli connection delete`")
      case .timedOut(let operation):
        "NetworkManager did not finish \(operation) in time"
      case .unsupported(let detail):
        "this NetworkManager is too old: \(detail) (1.16 or later is needed)"
      case .call(let operation, let failure):
        "NetworkManager \(operation): \(failure)"
      }
    }

    /// The error for a failed call during `operation`, the password scrubbed from NM's words.
    static func failed(_ failure: DBusFailure, during operation: String, secret: String?)
      -> NetworkManagerError
    {
      var scrubbed = failure
      if let secret, !secret.isEmpty {
        scrubbed.message = scrubbed.message.replacingOccurrences(of: secret, with: "<redacted>")
      }
      switch failure.name {
      case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
        return .notRunning
      case "org.freedesktop.DBus.Error.AccessDenied",
        "org.freedesktop.NetworkManager.PermissionDenied":
        return .accessDenied(scrubbed.description)
      case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
        "org.freedesktop.DBus.Error.TimedOut":
        return .timedOut(operation)
      case "org.freedesktop.DBus.Error.UnknownMethod":
        return .unsupported("\(operation): \(scrubbed.description)")
      default:
        return .call(operation, scrubbed)
      }
    }
  }
#endif
