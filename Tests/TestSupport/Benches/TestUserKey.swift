import RecorderCrypto
import RecorderKit
import RecorderProtocol

/// The port versions sync tests run against: the V0095 Note's (plain) and a Mode B device's.
package enum PortVersions {
  package static let plainAndModeB: [UInt16] = [
    ProtocolDefaults.portVersion, ProtocolDefaults.modeBPortVersion,
  ]
}

/// One RSA-2048 user key for the whole test process (generating one takes ~0.1 s): any key
/// works against a fresh Mode B emulator, which asks for it with `FE11`.
package enum TestUserKey {
  private static let shared = Result { try RSAPrivateKey.generate(bits: 2048) }

  package static func key() throws -> RSAPrivateKey { try shared.get() }

  package static func credentials() throws -> ModeBCredentials {
    ModeBCredentials(userKey: try key())
  }
}
