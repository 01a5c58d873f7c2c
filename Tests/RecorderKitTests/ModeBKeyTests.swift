import Foundation
import RecorderCrypto
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import TestSupport
import Testing

/// Issue 16's key management: the user key pair in an injected secure store (a 0600 file on
/// Linux), one per user, and the sentinel check that no key or token is ever printed.
@Suite("Mode B: user keys and secrets")
struct ModeBKeyTests {
  static func temporaryDirectory() -> String {
    NSTemporaryDirectory() + "recorder-keys-\(UUID().uuidString)"
  }

  static func mode(_ path: String) -> UInt16 {
    var info = stat()
    guard stat(path, &info) == 0 else { return 0xFFFF }
    return UInt16(info.st_mode & 0o777)
  }

  @Test("a user's key is made once, saved 0600 in a 0700 folder; another user gets another")
  func keyRing() throws {
    let directory = Self.temporaryDirectory() + "/keys"
    defer { try? FileManager.default.removeItem(atPath: directory + "/..") }
    let ring = UserKeyRing(store: FileKeyStore(directory: directory))
    let first = try ring.userKey(forUser: "user-a")
    #expect(try ring.userKey(forUser: "user-a") == first)
    let path = directory + "/" + UserKeyRing.account(forUser: "user-a")
    #expect(Self.mode(path) == 0o600)
    #expect(Self.mode(directory) == 0o700)
    #expect(!UserKeyRing.account(forUser: "user-a").contains("user-a"))
    // A changed user token: a new key, the old one kept for its user.
    let second = try ring.userKey(forUser: "user-b")
    #expect(second != first)
    #expect(try ring.userKey(forUser: "user-a") == first)
  }

  @Test("a key file other users can read is refused, not trusted")
  func insecureFileRefused() throws {
    let directory = Self.temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let store = FileKeyStore(directory: directory)
    try store.store([1, 2, 3], for: "secret")
    chmod(directory + "/secret", 0o644)
    #expect(throws: KeyStoreError.insecurePermissions(path: directory + "/secret", mode: 0o644)) {
      try store.secret(for: "secret")
    }
    #expect(throws: KeyStoreError.invalidAccount) { try store.secret(for: "../escape") }
  }

  @Test("sentinel: no key or token in any description, reflection or error of a Mode B session")
  func sentinel() async throws {
    let token = DeviceToken("5e471ne1d0not1eakth15t0ken000000")!
    let key = try TestUserKey.key()
    let secrets =
      [token.revealed]
      + (try key.pem(.pkcs8)).split(separator: "\n").dropFirst()
      .dropLast().map(String.init)
    var texts: [String] = []
    func record(_ value: Any) {
      texts.append("\(value)")
      texts.append(String(reflecting: value))
      var dumped = ""
      dump(value, to: &dumped)
      texts.append(dumped)
    }
    let credentials = ModeBCredentials(userKey: key)
    var configuration = DeviceSession.Configuration(token: token)
    configuration.modeB = credentials
    record(key)
    record(credentials)
    record(configuration)
    record(token)
    let other = try RSAPrivateKey.generate(bits: 2048)
    let bench = try SyncBench(
      seed: 16, portVersion: 20,
      modeB: ModeBParameters(provisionedUserKey: try other.publicKey()))
    defer { bench.cleanUp() }
    do {
      _ = try await bench.connect()
      Issue.record("connected with the wrong key")
    } catch {
      record(error)
    }
    for error: any Error in [
      ModeBError.wrongUserKey, ModeBError.keyStore(.unreadableKey(account: "a")),
      ModeBError.sessionKeyDidNotUnwrap, ModeBError.encryptedUserKey, CryptoError.encryptedKey,
      DeviceError.modeB(.noUserKey), SecureChannelError.replayed(sequence: 2, last: 3),
      CryptoError.decryptionFailed, KeyStoreError.io(path: "/x", reason: "y"),
    ] {
      record(error)
    }
    // Counted, never shown: a failure message must not print the secret it found.
    let leaks = texts.indices.filter { index in secrets.contains { texts[index].contains($0) } }
    #expect(leaks.isEmpty, "\(leaks.count) of \(texts.count) texts hold a key or token")
  }
}
