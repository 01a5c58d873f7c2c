import RecorderBluetooth

/// Binding a recorder to the user, over BLE and in the cloud, as the vendor's reference
/// describes (PROTOCOL.md §8): the handshake with the token derived from the user's JWT is
/// the BLE bind; the cloud bind registers the device with the user (repeated after every
/// handshake, as the vendor template does: it is idempotent). Unbinding does the cloud
/// unbind, then DEPAIR over BLE, then disconnects.
public enum DeviceBinding {
  /// The outcome of ``connectAndBind(to:using:cloud:configuration:)``: the session is open
  /// either way; `cloudError` says why the cloud bind failed (a 403 means the device is bound
  /// to another account: the BLE link stays usable, report it).
  public struct Bound: Sendable {
    public let session: DeviceSession
    public let cloudError: CloudError?
    /// True when both the handshake and the cloud bind succeeded.
    public var isBound: Bool { cloudError == nil }
  }

  /// Connects to `device` with the handshake token of the cloud client's user token (the
  /// `token` of `configuration` is replaced by it), then binds it in the cloud.
  ///
  /// - Throws: ``DeviceError`` when the BLE side fails (``DeviceError/tokenRejected`` if the
  ///   device belongs to another account's token); cloud failures do not throw: see
  ///   ``Bound/cloudError``.
  public static func connectAndBind(
    to device: DiscoveredDevice, using central: any Central, cloud: CloudClient,
    configuration: DeviceSession.Configuration
  ) async throws(DeviceError) -> Bound {
    var configuration = configuration
    configuration.token = await cloud.userToken.deviceToken
    let session = try await DeviceSession.connect(
      to: device, using: central, configuration: configuration)
    let serial = await session.info.serial
    do {
      try await cloud.bind(serial: serial)
      return Bound(session: session, cloudError: nil)
    } catch {
      return Bound(session: session, cloudError: error)
    }
  }

  /// How an unbind went.
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

  /// Unbinds `session`'s device: cloud unbind first (so a refusal leaves the device as it
  /// was), then DEPAIR, which never erases recordings (to erase, call
  /// ``SyncWorkspace/eraseRecordings(on:force:)``), then closes the session.
  public static func unbindAndDepair(_ session: DeviceSession, cloud: CloudClient)
    async throws(UnbindError)
  {
    let serial = await session.info.serial
    do {
      try await cloud.unbind(serial: serial)
    } catch {
      throw .cloud(error)
    }
    let status: Int
    do {
      status = try await session.depair()
    } catch {
      await session.close()
      throw .device(error)
    }
    await session.close()
    guard status == 0 else { throw .depairRefused(status: status) }
  }
}
