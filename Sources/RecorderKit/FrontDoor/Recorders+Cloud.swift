/// How ``Recorders/unbindAndDepair(_:cloud:clearingAllConnections:)`` went wrong.
public enum UnbindError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The cloud unbind failed: the device was left paired (nothing was cleared).
  case cloud(CloudError)
  /// The cloud forgot the device but DEPAIR failed (retry it once connected).
  case device(DeviceError)
  /// The device answered DEPAIR with a non-zero status.
  case depairRefused(status: Int)

  public var description: String {
    switch self {
    case .cloud(let error): "cloud unbind failed: \(error)"
    case .device(let error): "BLE depair failed: \(error)"
    case .depairRefused(let status): "the device refused DEPAIR (status \(status))"
    }
  }
}

/// Binding a recorder to the user, over BLE and in the cloud, as the vendor's reference
/// describes (PROTOCOL.md §8): the handshake with the token derived from the user's JWT is
/// the BLE bind; the cloud bind registers the device with the user (repeated after every
/// handshake, as the vendor template does: it is idempotent). Unbinding does the cloud
/// unbind, then DEPAIR over BLE, then disconnects.
extension Recorders {
  /// The outcome of ``connectAndBind(serial:heard:cloud:)``: the connection is open either
  /// way; `cloudError` says why the cloud bind failed (a 403 means the device is bound to
  /// another account: the BLE link stays usable, report it).
  public struct Binding: Sendable {
    /// The recorder, connected with the user's handshake token.
    public let connection: RecorderConnection
    /// Why the cloud bind failed, or nil.
    public let cloudError: CloudError?
    /// True when both the handshake and the cloud bind succeeded.
    public var isBound: Bool { cloudError == nil }
  }

  /// Connects (``connect(serial:heard:session:)``) with the handshake token of `cloud`'s
  /// user token in place of the door's token, then binds the recorder in the cloud.
  /// - Throws: what ``connect(serial:heard:session:)`` throws (``DeviceError/tokenRejected``
  ///   when the device belongs to another account's token); cloud failures do not throw: see
  ///   ``Binding/cloudError``.
  public func connectAndBind(
    serial: String?, heard: DiscoveredDevice? = nil, cloud: CloudClient
  ) async throws -> Binding {
    var session = configuration.session
    session.token = await cloud.userToken.deviceToken
    let connection = try await connect(serial: serial, heard: heard, session: session)
    do throws(CloudError) {
      try await bind(connection, cloud: cloud)
      return Binding(connection: connection, cloudError: nil)
    } catch {
      return Binding(connection: connection, cloudError: error)
    }
  }

  /// Binds the recorder behind `connection` to `cloud`'s user (idempotent).
  public func bind(_ connection: RecorderConnection, cloud: CloudClient) async throws(CloudError) {
    try await cloud.bind(serial: await connection.session.info.serial)
  }

  /// Unbinds the recorder behind `connection`: cloud unbind first (so a refusal leaves the
  /// device as it was), then DEPAIR, which never erases recordings (to erase, call
  /// ``SyncWorkspace/eraseRecordings(on:force:)``), then closes the connection.
  ///
  /// `clearingAllConnections` is the vendor's `depair(clear: true)`: DEPAIR clearing every
  /// connection, sent only to a device that holds no recording
  /// (``DeviceSession/depair(_:)``); a device that still holds some is
  /// refused before the cloud is asked anything.
  public func unbindAndDepair(
    _ connection: RecorderConnection, cloud: CloudClient, clearingAllConnections: Bool = false
  ) async throws(UnbindError) {
    let session = connection.session
    if clearingAllConnections {
      let held: Int
      do {
        held = try await session.listRecordings().count
      } catch {
        await connection.close()
        throw .device(error)
      }
      guard held == 0 else {
        await connection.close()
        throw .device(.depairClearRefused(recordings: held))
      }
    }
    do {
      try await cloud.unbind(serial: await session.info.serial)
    } catch {
      throw .cloud(error)
    }
    let status: Int
    do {
      status = try await session.depair(clearingAllConnections ? .allConnections : .thisConnection)
    } catch {
      await connection.close()
      throw .device(error)
    }
    await connection.close()
    guard status == 0 else { throw .depairRefused(status: status) }
  }
}
