/// Why ``Recorders/recoverBoundRecorder(serial:cloud:)`` could not free the recorder.
public enum RecoveryError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The cloud's binding query failed.
  case cloud(CloudError)
  /// The cloud says the recorder is bound to an account now: only that account can unbind it.
  case boundNow
  /// The cloud knows no earlier account of the recorder: nothing to try.
  case noHistory
  /// No earlier account's handshake was accepted (`tried` accounts, at most
  /// ``Recorders/maximumRecoveryAccounts``); the last attempt's failure.
  case noAccountMatched(tried: Int, lastFailure: String)
  /// An earlier account's handshake was accepted, but DEPAIR failed or was refused.
  case depairFailed(String)
  /// The recorder was freed, but connecting as this user then failed.
  case reconnectFailed(String)

  public var description: String {
    switch self {
    case .cloud(let error): "the cloud's binding query failed: \(error)"
    case .boundNow:
      "the cloud says the recorder is bound to another account now: that account must unbind it"
    case .noHistory: "the cloud knows no earlier account of this recorder: nothing to try"
    case .noAccountMatched(let tried, let failure):
      "none of the \(tried) earlier accounts was accepted (last: \(failure))"
    case .depairFailed(let reason): "an earlier account was accepted, but DEPAIR failed: \(reason)"
    case .reconnectFailed(let reason):
      "the recorder was freed, but connecting as this user failed: \(reason)"
    }
  }
}

/// The vendor's recovery of a Mode B recorder still locked to an earlier account (PROTOCOL.md
/// §4 [sdk-code]), for a recorder that drops this user's handshake
/// (``DeviceError/boundToAnotherAccount(_:)``) while the cloud says nobody holds it.
extension Recorders {
  /// Earlier accounts tried at most, newest first [sdk-code].
  public static let maximumRecoveryAccounts = 5

  /// Frees the recorder `serial` from an earlier account's lock and connects to it as `cloud`'s
  /// user:
  /// 1. asks the cloud for its binding; a recorder bound now ends here (``RecoveryError/boundNow``);
  /// 2. for each earlier account of `bind_history` (newest first, each once, at most
  ///    ``maximumRecoveryAccounts``): connects with a force-clear pre-handshake (`FE20`, Mode B)
  ///    and that account's id, turned into a handshake token as a JWT `sub` is, in place of this
  ///    user's; the current user's serial signature and key are reused;
  /// 3. on the first handshake accepted: DEPAIR (the recorder forgets the account; its address
  ///    may change), then finds it by serial again and connects as this user.
  ///
  /// Every connection goes through ``connect(serial:heard:session:)``, on the door's clock and
  /// search bound. Account ids and tokens never appear in errors.
  /// - Returns: the connection as this user; the caller closes it.
  public func recoverBoundRecorder(serial: String, cloud: CloudClient) async throws(RecoveryError)
    -> RecorderConnection
  {
    let status: CloudBindingStatus
    do {
      status = try await cloud.bindingStatus(serial: serial)
    } catch {
      throw .cloud(error)
    }
    if status.isBound == true { throw .boundNow }
    var seen: Set<String> = []
    let accounts = status.history.filter { seen.insert($0).inserted }
      .prefix(Self.maximumRecoveryAccounts)
    guard !accounts.isEmpty else { throw .noHistory }
    var current = configuration.session
    current.token = await cloud.userToken.deviceToken
    var lastFailure = "no account id gave a handshake token"
    for account in accounts {
      guard let token = try? UserToken.deviceToken(fromSubject: account) else { continue }
      var attempt = current
      attempt.token = token
      attempt.modeB?.forceClear = true
      let unlocked: RecorderConnection
      do {
        unlocked = try await connect(serial: serial, session: attempt)
      } catch {
        lastFailure = "\(error)"
        continue
      }
      let depaired: Int
      do {
        depaired = try await unlocked.session.depair(.thisConnection)
      } catch {
        await unlocked.close()
        throw .depairFailed("\(error)")
      }
      await unlocked.close()
      guard depaired == 0 else { throw .depairFailed("status \(depaired)") }
      do {
        return try await connect(serial: serial, session: current)
      } catch {
        throw .reconnectFailed("\(error)")
      }
    }
    throw .noAccountMatched(tried: accounts.count, lastFailure: lastFailure)
  }
}
