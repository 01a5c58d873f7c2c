import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol

/// `--cloud URL --user-token-file PATH`: the partner cloud (docs/cloud.md) and the user's
/// access token (a JWT, read from a file so it never sits on a command line).
struct CloudOptions {
  var domain: String
  var userToken: UserToken

  static let help = """
      --cloud DOMAIN        The cloud: a domain (https), or http://127.0.0.1:PORT of
                            `recorder emulate --cloud`.
      --user-token-file F   The user access token (JWT), first line of F. Keep it 0600.
    """

  /// Reads both options, or nil when `--cloud` is absent.
  static func parse(_ arguments: inout Arguments) throws -> CloudOptions? {
    let domain = try arguments.option("cloud")
    let file = try arguments.option("user-token-file")
    guard let domain else {
      if file != nil { throw UsageError("--user-token-file goes with --cloud") }
      return nil
    }
    guard let file else { throw UsageError("--cloud needs --user-token-file F") }
    do {
      return CloudOptions(
        domain: domain, userToken: try UserToken(jwt: try DeviceOptions.readTokenFile(file)))
    } catch let error as CloudError {
      throw UsageError("the token in \(EchoedValue(file)): \(error)")
    }
  }

  func client() throws -> CloudClient {
    do {
      return try CloudClient(domain: domain, userToken: userToken)
    } catch {
      throw UsageError("--cloud: \(error)")
    }
  }

  /// Exit codes for cloud failures: an expired token or a foreign binding is a permission
  /// problem (77); an unreachable cloud is 69; a malformed answer 65.
  static func exitCode(_ error: CloudError) -> ExitCode {
    switch error {
    case .tokenExpired, .boundToAnotherAccount, .malformedUserToken: .noPermission
    case .malformedResponse, .checksumMismatch: .dataError
    case .io: .ioError
    default: .unavailable
    }
  }
}

extension DeviceOptions {
  /// Device options with the token given (the handshake token of a user JWT).
  init(
    url: String, token: DeviceToken, serial: String?, timeout: Duration, modeB: ModeBCredentials,
    adapter: String? = nil
  ) throws {
    self.url = url
    address = try RadioAddress(url)
    self.adapter = adapter
    self.token = token
    if case .ble(let bleSerial?) = address { self.serial = bleSerial } else { self.serial = serial }
    self.timeout = timeout
    self.modeB = modeB
  }

  /// `--device URL [--serial S] [--timeout S]` with the device token from `cloud`'s user
  /// token when there is one (PROTOCOL.md §8), else from the usual token options. With a
  /// cloud, a Mode B device gets the cloud's serial signature and the user key is registered
  /// there (``ModeBCredentials/usingCloud(_:report:)``); a cloud failure is a warning.
  static func parse(_ arguments: inout Arguments, cloud: CloudOptions?) throws -> DeviceOptions {
    var probe = arguments
    let tokenGiven =
      try probe.option("token") != nil || probe.option("token-file") != nil
      || ProcessInfo.processInfo.environment[DeviceOptions.tokenVariable] != nil
    var options: DeviceOptions
    if let cloud, !tokenGiven {
      let token = cloud.userToken.deviceToken
      options = try DeviceOptions(
        url: try arguments.required("device"), token: token,
        serial: try arguments.option("serial"),
        timeout: .seconds(try arguments.option("timeout", as: Double.self) ?? 10),
        modeB: try DeviceOptions.modeB(&arguments, token: token),
        adapter: try arguments.option("adapter"))
    } else {
      options = try DeviceOptions(arguments: &arguments)
    }
    if let cloud {
      options.modeB = options.modeB.usingCloud(try cloud.client()) { error in
        printError("warning: the cloud, for Mode B: \(error)")
      }
    }
    return options
  }

  /// The device options of a command that talks to a device, with the optional cloud.
  static func parseWithCloud(_ arguments: inout Arguments) throws -> DeviceOptions {
    try parse(&arguments, cloud: CloudOptions.parse(&arguments))
  }
}
