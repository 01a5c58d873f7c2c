import RecorderCrypto
import RecorderProtocol

/// What a session needs to open Mode B's channel with a portVersion ≥ 20 device
/// (PROTOCOL.md §9): the user's RSA key pair and the cloud's signature of the device serial.
///
/// Holds a private key: its description is redacted, and nothing here is ever logged.
public struct ModeBCredentials: Sendable, CustomStringConvertible,
  CustomReflectable
{
  /// The cloud's `sn-sign` signature of the serial, base64-decoded (sent as `FE10`). Empty
  /// when there is none: the emulator does not check it [project]; a real device may
  /// refuse (then the cloud is needed).
  public var serialSignature: @Sendable (_ serial: String) async -> [UInt8]
  /// Sends `FE20` instead of `FE10`: the device forgets its user key and asks again.
  public var forceClear: Bool
  /// Called with the user's public key when a device asks for it (`FE11`), before it is
  /// sent: where the cloud learns the key (``usingCloud(_:report:)``). Does nothing by
  /// default.
  public var publishUserKey: @Sendable (_ publicKey: RSAPublicKey) async -> Void = { _ in }
  private var loadUserKey: @Sendable () throws(ModeBError) -> RSAPrivateKey

  /// Credentials with the user's private key in hand: it unwraps the session key (and E2EE
  /// file keys); its public half is what the device is given when it asks (`FE11`).
  public init(
    userKey: RSAPrivateKey, forceClear: Bool = false,
    serialSignature: @escaping @Sendable (_ serial: String) async -> [UInt8] = { _ in [] }
  ) {
    self.init(forceClear: forceClear, serialSignature: serialSignature) { userKey }
  }

  /// Credentials whose key is read (or made) only when a Mode B device is met, so a plain
  /// device never touches the key store: `loadUserKey` runs once per connection.
  public init(
    forceClear: Bool = false,
    serialSignature: @escaping @Sendable (_ serial: String) async -> [UInt8] = { _ in [] },
    loadUserKey: @escaping @Sendable () throws(ModeBError) -> RSAPrivateKey
  ) {
    self.forceClear = forceClear
    self.serialSignature = serialSignature
    self.loadUserKey = loadUserKey
  }

  /// Credentials from the user's private key as PEM text (PKCS#1 `RSA PRIVATE KEY` or
  /// PKCS#8 `PRIVATE KEY`), unencrypted: no pass phrase is ever asked for.
  /// - Throws: ``ModeBError/encryptedUserKey`` for a key encrypted under a pass phrase,
  ///   ``ModeBError/invalidUserKey`` for anything else (the error never quotes the text).
  public init(userKeyPEM pem: String) throws(ModeBError) {
    let key: RSAPrivateKey
    do throws(CryptoError) {
      key = try RSAPrivateKey(pem: pem)
    } catch .encryptedKey {
      throw .encryptedUserKey
    } catch {
      throw .invalidUserKey
    }
    self.init(userKey: key)
  }

  /// The user's private key.
  /// - Throws: ``ModeBError/keyStore(_:)`` when it cannot be read or made.
  public func userKey() throws(ModeBError) -> RSAPrivateKey { try loadUserKey() }

  /// These credentials with the user's key read (or made) now, once: a connection then
  /// spends none of its authentication time on it. When it cannot be read, the credentials
  /// come back unchanged and the connection meets the error where it would have.
  func withUserKeyLoaded() -> ModeBCredentials {
    guard let key = try? loadUserKey() else { return self }
    var loaded = self
    loaded.loadUserKey = { key }
    return loaded
  }

  public var description: String { "ModeBCredentials(user key redacted)" }
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Why Mode B's pre-handshake failed. Never carries key material.
public enum ModeBError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The device speaks Mode B (portVersion ≥ 20) and the session was given no user key.
  case noUserKey
  /// The device's key material did not unwrap with the user's key, or its check box did not
  /// open to `PLAUD.AI`, on two fresh links in a row: the device holds another user's public
  /// key (`FE20` or a re-bind clears it). Final. ``Recorders`` decides it
  /// (``Recorders/connect(serial:heard:session:)``); one session sees
  /// ``sessionKeyDidNotUnwrap``.
  case wrongUserKey
  /// The device's key material did not unwrap with the user's key, or its check box did not
  /// open to `PLAUD.AI`, on this link: a chunk changed on the way, or a device holding
  /// another user's key. One link cannot tell the two apart, so this may pass: a fresh link
  /// whose key unwraps says it was the link; a second failure in a row is ``wrongUserKey``.
  case sessionKeyDidNotUnwrap
  /// The device's pre-handshake chunks broke the framing rules.
  case malformedPreHandshake(PreHandshakeError)
  /// The device's key material was shorter than its layout.
  case malformedKeyMaterial
  /// A pre-handshake message of an unexpected type.
  case unexpectedMessage(type: UInt16)
  /// The user key could not be read from, or saved to, the key store.
  case keyStore(KeyStoreError)
  /// The text given as the user's private key is not an RSA private key in PEM.
  case invalidUserKey
  /// The user's private key is encrypted under a pass phrase, which is never asked for.
  case encryptedUserKey
  /// The device did not answer `FE10`/`FE20` within its bound, or ended the link before
  /// answering. A real device checks the
  /// cloud's serial signature with Plaud's key (PROTOCOL.md §9), so silence is a refusal:
  /// with no signature sent (`signed` false, no cloud given) it needs the cloud's `sn-sign`
  /// signature; with one, the signature is not this serial's or the device is locked to
  /// another account (§4). A device out of range is silent too: retryable.
  case serialSignatureUnanswered(signed: Bool)

  public var description: String {
    switch self {
    case .noUserKey:
      "the device uses Mode B security (portVersion ≥ 20): give the user's private key"
    case .wrongUserKey: "the device's session key is not for this user's key"
    case .sessionKeyDidNotUnwrap:
      "the device's session key did not unwrap with this user's key on this link"
    case .malformedPreHandshake(let error): "malformed Mode B pre-handshake: \(error)"
    case .malformedKeyMaterial: "malformed Mode B key material"
    case .unexpectedMessage(let type):
      "unexpected Mode B message 0x\(String(type, radix: 16, uppercase: true))"
    case .keyStore(let error): "user key: \(error)"
    case .invalidUserKey: "the user key is not an RSA private key in PEM (PKCS#1 or PKCS#8)"
    case .encryptedUserKey:
      "the user key is encrypted with a pass phrase, which is never asked for: give it decrypted"
    case .serialSignatureUnanswered(signed: false):
      "the device did not answer Mode B's FE10 (silent, or it ended the link): no serial"
        + " signature was sent (no cloud given),"
        + " and a device that checks the cloud's serial signature (PROTOCOL.md §9) refuses"
        + " the exchange this way: give the cloud account that issues it (sn-sign). A recorder"
        + " heard by name only may instead be a Mode A one, which ignores FE10"
    case .serialSignatureUnanswered(signed: true):
      "the device did not answer Mode B's FE10 with its serial signature (silent, or it ended"
        + " the link): the signature is"
        + " not this device's serial's, or the device is locked to another account, which"
        + " must unbind it (PROTOCOL.md §4)"
    }
  }
}

/// Why one sealed notification was refused (counted and dropped by the session).
public enum SecureChannelError: Error, Sendable, Equatable, CustomStringConvertible {
  /// It did not authenticate under the session key: changed on the way, or not sealed.
  case authenticationFailed
  /// Its sequence number does not follow the last accepted one (a replay or reordering).
  case replayed(sequence: UInt32, last: UInt32?)
  /// It opened but held fewer than the 4 bytes of a sequence number.
  case truncated

  public var description: String {
    switch self {
    case .authenticationFailed: "a sealed frame did not authenticate"
    case .replayed(let sequence, let last):
      "sealed frame seq \(sequence) after \(last.map(String.init) ?? "none"): replayed or reordered"
    case .truncated: "a sealed frame too short for its sequence number"
    }
  }
}
