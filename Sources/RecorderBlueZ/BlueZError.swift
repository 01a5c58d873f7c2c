#if os(Linux)
  import RecorderBluetooth

  /// Why BlueZ cannot be used at all, found when a ``BlueZCentral`` opens: each case says
  /// what a user or an administrator can do about it.
  public enum BlueZError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system bus cannot be reached (no dbus-daemon, or a wrong `DBUS_SYSTEM_BUS_ADDRESS`).
    case busUnavailable(String)
    /// Nobody owns `org.bluez` on the system bus.
    case bluetoothdNotRunning
    /// The bus or bluetoothd refused us (D-Bus policy, polkit).
    case accessDenied(String)
    /// bluetoothd runs but has no adapter (no controller, or it is blocked by rfkill).
    case noAdapter
    /// `--adapter NAME` names no adapter bluetoothd has.
    case adapterNotFound(String, available: [String])
    /// Any other D-Bus failure while opening.
    case bus(DBusFailure)

    public var description: String {
      switch self {
      case .busUnavailable(let detail):
        "cannot reach the D-Bus system bus (\(detail)); is dbus running? "
          + "(DBUS_SYSTEM_BUS_ADDRESS overrides the address)"
      case .bluetoothdNotRunning:
        "bluetoothd is not running (no org.bluez on the system bus): "
          + "start it with `sudo systemctl start bluetooth`"
      case .accessDenied(let detail):
        "the system bus refused access to BlueZ (\(detail)): add the user to the `bluetooth` "
          + "group (`sudo usermod -aG bluetooth $USER`, then log in again) or allow it with a "
          + "D-Bus policy in /etc/dbus-1/system.d (see docs/linux-gateway.md)"
      case .noAdapter:
        "BlueZ has no Bluetooth adapter: is a controller attached and not blocked "
          + "(`rfkill list`, `bluetoothctl list`)?"
      case .adapterNotFound(let name, let available):
        "no Bluetooth adapter \(name) (BlueZ has: "
          + (available.isEmpty ? "none" : available.joined(separator: ", ")) + ")"
      case .bus(let failure): "BlueZ: \(failure)"
      }
    }

    /// The open-time error for a failure of a call to bluetoothd.
    static func opening(_ failure: DBusFailure) -> BlueZError {
      switch failure.name {
      case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
        .bluetoothdNotRunning
      case "org.freedesktop.DBus.Error.AccessDenied", "org.bluez.Error.NotAuthorized":
        .accessDenied(failure.description)
      default: .bus(failure)
      }
    }
  }

  extension LinkError {
    /// The boundary's error for a failed BlueZ call, with words a user can act on. The
    /// mapping follows BlueZ's doc/org.bluez.*.rst error lists.
    static func bluez(_ failure: DBusFailure, during operation: String) -> LinkError {
      let name = failure.name
      switch name {
      case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
        "org.freedesktop.DBus.Error.TimedOut":
        return .transport("bluetoothd did not answer \(operation) in time")
      case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.Disconnected":
        return .transport("bluetoothd is not running (no org.bluez on the system bus)")
      case "org.freedesktop.DBus.Error.AccessDenied":
        return .transport(
          "\(operation): the system bus refused access to BlueZ: add the user to the `bluetooth` "
            + "group or allow it with a D-Bus policy (docs/linux-gateway.md)")
      case "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.bluez.Error.DoesNotExist", "org.bluez.Error.NotConnected":
        return .disconnected(.linkLoss)
      case "org.bluez.Error.NotReady":
        return .notPoweredOn(.poweredOff)
      case "org.bluez.Error.NotAuthorized":
        // ATT: insufficient authorization.
        return .attError(0x08)
      case "org.bluez.Error.NotPermitted":
        // ATT: read or write not permitted.
        return .attError(operation.contains("Read") ? 0x02 : 0x03)
      case "org.bluez.Error.NotSupported":
        // ATT: request not supported.
        return .attError(0x06)
      case "org.bluez.Error.InvalidOffset":
        return .attError(0x07)
      case "org.bluez.Error.InvalidValueLength":
        return .attError(0x0D)
      case "org.bluez.Error.AuthenticationFailed", "org.bluez.Error.AuthenticationRejected",
        "org.bluez.Error.AuthenticationCanceled", "org.bluez.Error.AuthenticationTimeout":
        return .disconnected(.pairingFailed)
      default:
        return .transport("\(operation): \(failure)")
      }
    }
  }
#endif
