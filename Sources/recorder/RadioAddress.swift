import RecorderBluetooth
import RecorderRemoteLink

#if os(Linux)
  import RecorderBlueZ
#endif

/// A central the CLI opened and closes when the command ends.
protocol ClosableCentral: Central {
  func close()
}

extension TCPCentral: ClosableCentral {}

#if os(Linux)
  extension BlueZCentral: ClosableCentral {}
#endif

/// What `--device` names: an emulator over the TCP link, or the local Bluetooth radio
/// through BlueZ (`ble` for the first recorder heard, `ble:SERIAL` for that one).
enum RadioAddress: Equatable {
  case tcp(String)
  case ble(serial: String?)

  init(_ text: String) throws {
    if text == "ble" {
      self = .ble(serial: nil)
    } else if text.hasPrefix("ble:") {
      let serial = String(text.dropFirst(4))
      guard !serial.isEmpty else { throw UsageError("--device ble:SERIAL needs a serial") }
      self = .ble(serial: serial)
    } else if text.hasPrefix("tcp://") {
      self = .tcp(text)
    } else {
      throw UsageError("--device must be ble, ble:SERIAL or tcp://HOST:PORT, not '\(text)'")
    }
  }

  /// Opens the central: connects to the emulator, or to bluetoothd (checking it runs, lets
  /// us in, and has a powered adapter). Failures are exit 69 (77 for a permission refusal)
  /// with a message that says what to fix.
  func open(adapter: String?, requirePowered: Bool = true) async throws -> any ClosableCentral {
    switch self {
    case .tcp(let url):
      do {
        let central = try TCPCentral(url: url)
        try await central.open()
        return central
      } catch {
        throw CommandFailure(.unavailable, "cannot reach \(url): \(error)")
      }
    case .ble:
      #if os(Linux)
        let central = BlueZCentral(options: .init(adapter: adapter))
        do {
          try await central.open()
        } catch {
          if case .accessDenied = error { throw CommandFailure(.noPermission, "\(error)") }
          throw CommandFailure(.unavailable, "\(error)")
        }
        let state = await central.state
        if requirePowered, state != .poweredOn {
          central.close()
          let name = central.adapterPath?.split(separator: "/").last.map(String.init) ?? "adapter"
          throw CommandFailure(
            .unavailable,
            "the Bluetooth adapter \(name) is \(state == .poweredOff ? "powered off" : "not ready")"
              + " (`bluetoothctl power on`, `rfkill unblock bluetooth`)")
        }
        return central
      #else
        throw CommandFailure(
          .unavailable, "--device ble needs BlueZ (Linux); on this platform use tcp://HOST:PORT")
      #endif
    }
  }
}
