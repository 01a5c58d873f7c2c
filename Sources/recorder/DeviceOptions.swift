import RecorderConcurrency
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink

/// `--device tcp://HOST:PORT --token T [--serial S] [--timeout SECONDS]`: how the commands
/// that talk to a device find and authenticate it.
struct DeviceOptions {
  var url: String
  var token: DeviceToken
  var serial: String?
  var timeout: Duration

  static let help = """
      --device URL          The device: tcp://HOST:PORT of `recorder emulate` (or anything
                            speaking docs/tcp-link.md).
      --token T             The device token (printable ASCII; never printed).
      --serial S            Connect to this serial only (default: the first recorder heard).
      --timeout SECONDS     How long to look for the device (default 10).
    """

  init(arguments: inout Arguments) throws {
    url = try arguments.required("device")
    let tokenText = try arguments.required("token")
    guard let token = DeviceToken(tokenText) else {
      throw UsageError("--token must be printable ASCII")
    }
    self.token = token
    serial = try arguments.option("serial")
    timeout = .seconds(try arguments.option("timeout", as: Double.self) ?? 10)
  }

  /// Opens the link, finds the device, authenticates. The caller closes the session.
  func connect() async throws -> (DeviceSession, TCPCentral) {
    let central: TCPCentral
    do {
      central = try TCPCentral(url: url)
      try await central.open()
    } catch {
      throw CommandFailure(.unavailable, "cannot reach \(url): \(error)")
    }
    let scanner = DeviceScanner(central: central)
    let device: DiscoveredDevice
    do {
      if let serial {
        device = try await scanner.find(serial: serial, timeout: timeout, clock: .continuous)
      } else {
        device = try await firstDevice(scanner)
      }
    } catch {
      central.close()
      throw CommandFailure(.unavailable, "\(error)")
    }
    do {
      let session = try await DeviceSession.connect(
        to: device, using: central, configuration: DeviceSession.Configuration(token: token))
      return (session, central)
    } catch {
      central.close()
      throw CommandFailure(Self.exitCode(connecting: error), "\(error)")
    }
  }

  /// A rejected token is final (77: retrying cannot help); anything else (timeouts, link
  /// loss, a refused session) means the device could not be reached (69) and may be retried.
  static func exitCode(connecting error: DeviceError) -> ExitCode {
    error == .tokenRejected ? .noPermission : .unavailable
  }

  private func firstDevice(_ scanner: DeviceScanner) async throws -> DiscoveredDevice {
    let found = await firstElement(of: scanner.discover(), within: timeout, on: .continuous)
    guard let found else {
      throw CommandFailure(.unavailable, "no recorder heard within \(timeout)")
    }
    return found
  }
}
