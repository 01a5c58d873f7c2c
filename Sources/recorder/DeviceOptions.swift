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
    let configuration = DeviceSession.Configuration(token: token)
    do {
      let session: DeviceSession
      if let serial {
        // An advertised serial is taken as it is; a recorder heard by name only is confirmed
        // by the serial it reports after connecting (PROTOCOL.md §1).
        session = try await scanner.connect(
          serial: serial, configuration: configuration, timeout: timeout)
      } else {
        let device = try await firstDevice(scanner)
        session = try await DeviceSession.connect(
          to: device, using: central, configuration: configuration)
      }
      return (session, central)
    } catch let error as DeviceError {
      central.close()
      let code: ExitCode = error == .tokenRejected ? .failure : .unavailable
      throw CommandFailure(code, "\(error)")
    } catch {
      central.close()
      throw error
    }
  }

  private func firstDevice(_ scanner: DeviceScanner) async throws -> DiscoveredDevice {
    let found = await firstElement(of: scanner.discover(), within: timeout, on: .continuous)
    guard let found else {
      throw CommandFailure(.unavailable, "no recorder heard within \(timeout)")
    }
    return found
  }
}
