import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol
import RecorderRemoteLink

/// `--device ble[:SERIAL]|tcp://HOST:PORT [--adapter hciN] [--token-file PATH | --token T]
/// [--serial S] [--timeout SECONDS]`: how the commands that talk to a device find and
/// authenticate it.
struct DeviceOptions {
  var url: String
  var address: RadioAddress
  /// The BlueZ adapter for `ble` (nil: the first powered one).
  var adapter: String?
  var token: DeviceToken
  var serial: String?
  var timeout: Duration
  /// The user key for a Mode B device (portVersion ≥ 20), read only if one is met.
  var modeB: ModeBCredentials

  /// The environment variable a token may come from.
  static let tokenVariable = "RECORDER_TOKEN"

  static let help = """
      --device URL          The device: ble (the first recorder the local Bluetooth
                            adapter hears, through BlueZ; Linux), ble:SERIAL (that
                            recorder), or tcp://HOST:PORT of `recorder emulate` (or
                            anything speaking docs/tcp-link.md).
      --adapter hciN        With ble: the Bluetooth adapter (default: the first powered).
      --token-file PATH     Read the device token from PATH (its first line). Keep it 0600:
                            a file others can read is used, with a warning on stderr.
      RECORDER_TOKEN        Or the token in this environment variable.
      --token T             Or on the command line (visible to every user in the process
                            list: prefer the two above). Printable ASCII; never printed.
      --serial S            Connect to this serial only (default: the first recorder heard).
      --timeout SECONDS     How long to look for the device (default 10).
      --private-key PEM     Mode B devices (portVersion 20 and up): the user's RSA private
                            key, a PEM file (PKCS#1 or PKCS#8, unencrypted: an encrypted
                            key is refused, no pass phrase is asked for; keep it 0600).
                            Without it the key store's key for this token is used, made on
                            first use.
      --key-store DIR       The key store (default $RECORDER_KEY_STORE, else
                            ~/.config/recorder/keys): one 0600 file per user.
    """

  static let cloudHelp = """
      --cloud DOMAIN        With --user-token-file F: for a Mode B device, the serial
                            signature comes from the partner cloud (sn-sign) and the user
                            key is registered there (gen-key); a cloud failure is a warning.
                            The device token is then the user token's unless one is given.
    """

  init(arguments: inout Arguments) throws {
    url = try arguments.required("device")
    address = try RadioAddress(url)
    adapter = try arguments.option("adapter")
    if adapter != nil, case .tcp = address { throw UsageError("--adapter goes with --device ble") }
    token = try Self.token(
      option: arguments.option("token"), file: arguments.option("token-file"),
      environment: ProcessInfo.processInfo.environment[Self.tokenVariable])
    serial = try arguments.option("serial")
    if case .ble(let bleSerial?) = address {
      if let serial, serial != bleSerial {
        throw UsageError(
          "--serial \(EchoedValue(serial)) contradicts --device ble:\(EchoedValue(bleSerial))")
      }
      serial = bleSerial
    }
    timeout = .seconds(try arguments.option("timeout", as: Double.self) ?? 10)
    modeB = try Self.modeB(&arguments, token: token)
  }

  /// `--private-key PEM` (read now, so a bad file fails before connecting) or the key
  /// store's credentials for `token`'s user (read only when a Mode B device is met).
  static func modeB(_ arguments: inout Arguments, token: DeviceToken) throws -> ModeBCredentials {
    let store = try arguments.option("key-store")
    if let path = try arguments.option("private-key") {
      if store != nil { throw UsageError("give --private-key or --key-store, not both") }
      return try privateKey(path)
    }
    let environment = ProcessInfo.processInfo.environment
    let directory =
      store ?? environment["RECORDER_KEY_STORE"]
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config/recorder/keys"
    return UserKeyRing(store: FileKeyStore(directory: directory))
      .credentials(forUser: token.revealed)
  }

  /// The PEM private key in `path` (warns when others may read it). Errors name the file,
  /// never its content.
  static func privateKey(_ path: String) throws -> ModeBCredentials {
    var info = stat()
    guard stat(path, &info) == 0, let data = FileManager.default.contents(atPath: path) else {
      throw CommandFailure(.ioError, "cannot read the private key file \(EchoedValue(path))")
    }
    if info.st_mode & 0o077 != 0 {
      printError(
        "warning: the private key file \(path) can be read by other users (mode "
          + String(info.st_mode & 0o777, radix: 8) + "); chmod 600 \(path)")
    }
    do throws(ModeBError) {
      return try ModeBCredentials(userKeyPEM: String(decoding: data, as: UTF8.self))
    } catch .encryptedUserKey {
      throw UsageError(
        "--private-key: \(path) is encrypted with a pass phrase, and recorder never asks for one:"
          + " decrypt it into a 0600 file (openssl pkey -in \(path) -out PLAIN.pem) and give that")
    } catch {
      throw UsageError("--private-key: \(path) is not an RSA private key in PEM (PKCS#1 or #8)")
    }
  }

  /// The token from exactly one of `--token`, `--token-file` or `RECORDER_TOKEN` (the
  /// options win over the environment). Errors never include the token.
  static func token(option: String?, file: String?, environment: String?) throws -> DeviceToken {
    if option != nil, file != nil { throw UsageError("give --token or --token-file, not both") }
    let text: String
    if let file {
      text = try readTokenFile(file)
    } else if let value = option ?? environment {
      text = value
    } else {
      throw UsageError(
        "a device token is needed: --token-file PATH, \(tokenVariable) in the environment, or --token T"
      )
    }
    guard !text.isEmpty, let token = DeviceToken(text) else {
      let source =
        file.map { "the token in \(EchoedValue($0))" }
        ?? (option != nil ? "--token" : tokenVariable)
      throw UsageError("\(source) must be printable ASCII")
    }
    if option != nil { warnTokenOnCommandLine() }
    return token
  }

  /// Whether the `--token` warning was printed (once per process, however many times the
  /// options are read).
  private static let warnedOfCommandLineToken = Locked(false)

  /// A token given with `--token` sits in the process list, where every user of the machine
  /// can read it: say so on stderr, once, without the token.
  private static func warnTokenOnCommandLine() {
    let first = warnedOfCommandLineToken.withLock { warned -> Bool in
      defer { warned = true }
      return !warned
    }
    guard first else { return }
    printError(
      "warning: --token puts the token on the command line, where every user of this machine "
        + "can read it (ps); give it with --token-file PATH (0600) or \(tokenVariable) instead")
  }

  /// The first line of `path`, without its line end; warns when others may read the file.
  static func readTokenFile(_ path: String) throws -> String {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw CommandFailure(
        .ioError,
        "cannot read the token file \(EchoedValue(path)): \(String(cString: strerror(errno)))")
    }
    if info.st_mode & 0o077 != 0 {
      printError(
        "warning: the token file \(path) can be read by other users (mode "
          + String(info.st_mode & 0o777, radix: 8) + "); chmod 600 \(path)")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CommandFailure(.ioError, "cannot read the token file \(EchoedValue(path))")
    }
    let firstLine =
      data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
      .first ?? []
    var bytes = Array(firstLine)
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Opens the link, finds the device, authenticates, through the front door over that one
  /// central. The caller closes the session and the central.
  func connect() async throws -> (DeviceSession, any ClosableCentral) {
    let (_, connection, central) = try await connectThroughDoor()
    return (connection.session, central)
  }

  /// ``connect()`` with the front door it went through (firmware and binding hang off it).
  /// The caller closes the connection and the central.
  func connectThroughDoor() async throws -> (Recorders, RecorderConnection, any ClosableCentral) {
    let central = try await address.open(adapter: adapter)
    do {
      let recorders = Recorders(radio: .shared(central), configuration: doorConfiguration)
      return (recorders, try await recorders.connect(serial: serial), central)
    } catch let error as DeviceError {
      central.close()
      throw CommandFailure(Self.exitCode(connecting: error), "\(error)")
    } catch {
      central.close()
      throw error
    }
  }

  /// The front door for a command that reconnects (`sync`): the radio is opened anew for
  /// each attempt and closed after it, so a restarted bluetoothd or a replugged adapter is
  /// found again.
  func recorders() -> Recorders {
    let (address, adapter) = (self.address, self.adapter)
    return Recorders(
      radio: .opened { requirePowered in
        let central = try await address.open(adapter: adapter, requirePowered: requirePowered)
        return (central, { central.close() })
      }, configuration: doorConfiguration)
  }

  /// The session configuration and this command's search timeout.
  private var doorConfiguration: Recorders.Configuration {
    Recorders.Configuration(session: sessionConfiguration, findTimeout: timeout)
  }

  /// The session configuration: the token and the Mode B credentials.
  var sessionConfiguration: DeviceSession.Configuration {
    var configuration = DeviceSession.Configuration(token: token)
    configuration.modeB = modeB
    return configuration
  }

  /// The exit code of a device failure: a rejected token, a Mode B key problem or a recorder
  /// bound to another account 77;
  /// anything else (timeouts, link loss, a refused session) means the device could not be
  /// reached, 69.
  static func exitCode(connecting error: DeviceError) -> ExitCode {
    switch error {
    case .tokenRejected, .modeB(.noUserKey), .modeB(.wrongUserKey), .modeB(.invalidUserKey),
      .modeB(.encryptedUserKey), .modeB(.keyStore), .boundToAnotherAccount:
      .noPermission
    default: .unavailable
    }
  }
}

/// `--device usb:PATH` (the recorder's USB volume mounted at PATH) or `--device usb` (every
/// mounted volume labelled PLAUD_NOTE, from /proc/self/mountinfo, or the file
/// `RECORDER_MOUNTINFO` names): no token, no radio.
struct USBDeviceChoice {
  /// The volumes' mount points.
  var roots: [String]

  /// The environment variable that names another mount table (tests).
  static let mountInfoVariable = "RECORDER_MOUNTINFO"

  static let help = """
      --device usb:PATH     Or a recorder's USB volume ("Access via USB") mounted at PATH;
                            --device usb: every mounted volume labelled PLAUD_NOTE. No token.
    """

  /// The choice `--device` makes when it names `usb`, its option consumed; nil (nothing
  /// consumed) for any other device.
  static func parse(_ arguments: inout Arguments) throws -> USBDeviceChoice? {
    var probe = arguments
    guard let url = try probe.option("device"), url == "usb" || url.hasPrefix("usb:") else {
      return nil
    }
    arguments = probe
    if url == "usb" {
      let table =
        ProcessInfo.processInfo.environment[mountInfoVariable] ?? MountTable.procPath
      let roots: [String]
      do { roots = try MountTable.mountedRecorderVolumes(mountInfoPath: table) } catch {
        throw CommandFailure(.ioError, "\(error)")
      }
      guard !roots.isEmpty else {
        throw CommandFailure(
          .unavailable, "no volume labelled \(MountTable.recorderLabel) is mounted")
      }
      return USBDeviceChoice(roots: roots)
    }
    let path = String(url.dropFirst("usb:".count))
    guard !path.isEmpty else { throw UsageError("--device usb:PATH needs a PATH") }
    return USBDeviceChoice(roots: [path])
  }

  /// The transport over the volume at `root`; a volume that cannot be read exits 69.
  static func transport(_ root: String, options: USBTransport.Options) throws -> USBTransport {
    do { return try USBTransport(root: root, options: options) } catch {
      throw CommandFailure(.unavailable, "\(error)")
    }
  }
}
