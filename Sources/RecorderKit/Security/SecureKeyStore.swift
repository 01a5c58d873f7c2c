import Foundation
import RecorderCrypto

/// Where secrets live between runs: the Keychain on Apple platforms, a 0600 file on Linux
/// (``FileKeyStore``). Injected, so tests and apps choose. Implementations never log a
/// secret, and their errors never carry one.
public protocol SecureKeyStore: Sendable {
  /// The secret saved under `account`, nil when there is none.
  func secret(for account: String) throws(KeyStoreError) -> [UInt8]?
  /// Saves `secret` under `account`, replacing any earlier one atomically.
  func store(_ secret: [UInt8], for account: String) throws(KeyStoreError)
  /// Forgets `account`'s secret (no error when there is none).
  func removeSecret(for account: String) throws(KeyStoreError)
}

/// Why a key store failed. Paths and reasons only, never a secret.
public enum KeyStoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file or folder could not be read or written.
  case io(path: String, reason: String)
  /// The file can be read by other users: refused rather than trusted (chmod 600).
  case insecurePermissions(path: String, mode: UInt16)
  /// An account name that is not a plain file name.
  case invalidAccount
  /// The saved secret is not a key.
  case unreadableKey(account: String)
  /// The Keychain answered this `OSStatus` (``KeychainKeyStore``).
  case keychain(Int32)

  public var description: String {
    switch self {
    case .io(let path, let reason): "\(path): \(reason)"
    case .insecurePermissions(let path, let mode):
      "\(path) can be read by other users (mode \(String(mode, radix: 8))): chmod 600 it"
    case .invalidAccount: "a key store account must be a plain name"
    case .unreadableKey(let account): "the key saved as \(account) is not a readable key"
    case .keychain(let status): "Keychain error \(status)"
    }
  }
}

/// ``SecureKeyStore`` as one file per account in a folder: the folder 0700, each file 0600,
/// written to a temporary file, fsync'd and renamed into place. A file others may read is
/// refused (``KeyStoreError/insecurePermissions(path:mode:)``).
public struct FileKeyStore: SecureKeyStore {
  /// The folder holding the secrets.
  public let directory: String

  public init(directory: String) { self.directory = directory }

  public func secret(for account: String) throws(KeyStoreError) -> [UInt8]? {
    let path = try self.path(account)
    var info = stat()
    guard stat(path, &info) == 0 else {
      if errno == ENOENT { return nil }
      throw .io(path: path, reason: String(cString: strerror(errno)))
    }
    guard info.st_mode & 0o077 == 0 else {
      throw .insecurePermissions(path: path, mode: UInt16(info.st_mode & 0o777))
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .io(path: path, reason: "unreadable")
    }
    return Array(data)
  }

  public func store(_ secret: [UInt8], for account: String) throws(KeyStoreError) {
    let path = try self.path(account)
    do {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    } catch {
      throw .io(path: directory, reason: "cannot create the folder")
    }
    let temporary = path + ".tmp-\(getpid())"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw .io(path: temporary, reason: String(cString: strerror(errno)))
    }
    let written = secret.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    let synced = fsync(descriptor) == 0
    close(descriptor)
    guard written == secret.count, synced, rename(temporary, path) == 0 else {
      let reason = String(cString: strerror(errno))
      unlink(temporary)
      throw .io(path: path, reason: reason)
    }
  }

  public func removeSecret(for account: String) throws(KeyStoreError) {
    let path = try self.path(account)
    guard unlink(path) == 0 || errno == ENOENT else {
      throw .io(path: path, reason: String(cString: strerror(errno)))
    }
  }

  private func path(_ account: String) throws(KeyStoreError) -> String {
    guard !account.isEmpty, !account.hasPrefix("."),
      account.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
    else { throw .invalidAccount }
    return directory + "/" + account
  }
}

/// The user's Mode B key pair, kept in a ``SecureKeyStore`` per user: the first call for a
/// user makes an RSA-2048 key and saves it (PKCS#8 PEM); later calls read it back. Another
/// user (a changed user token) gets another account, so another key, as the vendor reference
/// refreshes the key when the user token changes. The account name is a hash of the user's
/// identity, never the identity or token itself.
public struct UserKeyRing: Sendable {
  public let store: any SecureKeyStore

  public init(store: any SecureKeyStore) { self.store = store }

  /// The store account of `user` (e.g. the handshake token's text, or the JWT `sub`).
  public static func account(forUser user: String) -> String {
    "mode-b-user-key-" + Digest.sha256(Array(user.utf8)).prefix(12).hexDigits()
  }

  /// `user`'s key: read from the store, or made and saved there.
  /// - Throws: ``KeyStoreError``.
  public func userKey(forUser user: String) throws(KeyStoreError) -> RSAPrivateKey {
    let account = Self.account(forUser: user)
    if let saved = try store.secret(for: account) {
      guard let key = try? RSAPrivateKey(pem: String(decoding: saved, as: UTF8.self)) else {
        throw .unreadableKey(account: account)
      }
      return key
    }
    guard let key = try? RSAPrivateKey.generate(), let pem = try? key.pem(.pkcs8) else {
      throw .io(path: account, reason: "key generation failed")
    }
    try store.store(Array(pem.utf8), for: account)
    return key
  }

  /// Mode B credentials whose key comes from this ring for `user`, read only when a Mode B
  /// device is met.
  public func credentials(forUser user: String) -> ModeBCredentials {
    credentials(forCurrentUser: { user })
  }

  /// Mode B credentials whose key is this ring's for whoever `user` names when the key is
  /// needed (a user that can change, as an app's signed-in user does); nil then is
  /// ``ModeBError/noUserKey``.
  public func credentials(forCurrentUser user: @escaping @Sendable () -> String?)
    -> ModeBCredentials
  {
    ModeBCredentials { () throws(ModeBError) -> RSAPrivateKey in
      guard let current = user() else { throw .noUserKey }
      do throws(KeyStoreError) {
        return try userKey(forUser: current)
      } catch {
        throw .keyStore(error)
      }
    }
  }
}
