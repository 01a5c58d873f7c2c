import RecorderConcurrency
import RecorderCrypto

extension ModeBCredentials {
  /// These credentials with the partner cloud in the loop (PROTOCOL.md §8, docs/mode-b.md):
  /// the serial signature sent as `FE10` comes from `sn-sign` (``DeviceSession`` asks for
  /// it before connecting when the advertisement names a Mode B device), and the user's
  /// public key is registered with `gen-key` when a device asks for it (`FE11`), beside the
  /// handshake. Signatures are kept per serial for the life of the returned credentials. A cloud failure goes to
  /// `report` and the handshake goes on (an empty signature, the key not registered): the
  /// device, not the phone, decides whether that is enough.
  public func usingCloud(
    _ cloud: CloudClient, report: @escaping @Sendable (CloudError) -> Void = { _ in }
  ) -> ModeBCredentials {
    var credentials = self
    // A serial's signature does not change: asked once per serial, so a later connection
    // sends FE10 without a round trip (a device drops a central that has not authenticated
    // within about a second [device]).
    let signatures = Locked<[String: [UInt8]]>([:])
    credentials.serialSignature = { serial in
      if let known = signatures.withLock({ $0[serial] }) { return known }
      do throws(CloudError) {
        let signature = try await cloud.serialSignature(serial: serial)
        signatures.withLock { $0[serial] = signature }
        return signature
      } catch {
        report(error)
        return []
      }
    }
    // Registered beside the handshake, not before it goes on: the device is waiting for the
    // key (and drops a central that has not authenticated within about a second [device]).
    credentials.publishUserKey = { publicKey in
      Task {
        do throws(CloudError) {
          try await cloud.registerUserKey(publicKey)
        } catch {
          report(error)
        }
      }
    }
    return credentials
  }
}
