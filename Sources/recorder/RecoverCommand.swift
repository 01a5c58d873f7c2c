import RecorderKit

/// `recorder recover`: frees a Mode B recorder still locked to an earlier account.
struct RecoverCommand: RecorderCommand {
  static let name = "recover"
  static let abstract = "Free a recorder locked to an earlier account, then connect as this user."
  static let help = """
    OVERVIEW: A Mode B recorder bound to an earlier account drops this user's handshake (exit
    77: "bound to another account"). When the cloud says nobody holds it now, the vendor's
    recovery (PROTOCOL.md §4) frees it: each earlier account of the cloud's binding history
    (newest first, at most 5) is tried with a force-clear handshake; the first accepted is
    followed by DEPAIR, then the recorder is found again and connected as this user. Then
    `recorder sync` works as usual.

    USAGE: recorder recover --cloud DOMAIN --user-token-file F --device URL --serial S

    OPTIONS:
    \(CloudOptions.help)
      --device URL          The radio the recorder is reached through.
      --serial S            The recorder's serial (it asks the cloud about it).
      -h, --help            Show this help.

    EXIT CODES: 0 recovered; 77 bound to an account now, or no earlier account was
    accepted; 69 the cloud or the recorder could not be reached.
    """

  var cloud: CloudOptions
  var device: DeviceOptions

  init(arguments: inout Arguments) throws {
    guard let cloud = try CloudOptions.parse(&arguments) else {
      throw UsageError("--cloud DOMAIN --user-token-file F is required")
    }
    self.cloud = cloud
    device = try DeviceOptions.parse(&arguments, cloud: cloud)
    guard device.serial != nil else { throw UsageError("--serial S is required") }
    try arguments.finish()
  }

  func run() async throws {
    let client = try cloud.client()
    let serial = device.serial ?? ""
    let recorders = device.recorders()
    do throws(RecoveryError) {
      let connection = try await recorders.recoverBoundRecorder(serial: serial, cloud: client)
      await connection.close()
    } catch .cloud(let error) {
      throw CommandFailure(CloudOptions.exitCode(error), "\(RecoveryError.cloud(error))")
    } catch .boundNow {
      throw CommandFailure(.noPermission, "\(RecoveryError.boundNow)")
    } catch .noAccountMatched(let tried, let failure) {
      throw CommandFailure(
        .noPermission, "\(RecoveryError.noAccountMatched(tried: tried, lastFailure: failure))")
    } catch {
      throw CommandFailure(.unavailable, "\(error)")
    }
    print(
      "recovered \(escapingControls(serial)): freed from an earlier account, connected as this user"
    )
  }
}
