/// The `SecItem` calls on generic passwords (`kSecClassGenericPassword`, one service, an
/// account per name), mirrored so the decisions around them are tested here.
public protocol KeychainMirror: Sendable {
  /// `SecItemAdd`, accessible after first unlock on this device only.
  func add(service: String, account: String, data: [UInt8]) -> Int32
  /// `SecItemUpdate` of the item's data.
  func update(service: String, account: String, data: [UInt8]) -> Int32
  /// `SecItemCopyMatching` returning the data.
  func copy(service: String, account: String) -> (status: Int32, data: [UInt8]?)
  /// `SecItemDelete`.
  func delete(service: String, account: String) -> Int32
}

/// A ``SecureKeyStore`` on the Keychain. Items are "after first unlock, this device only":
/// a background sync after a reboot-and-unlock can read them, a backup cannot carry them.
public struct KeychainKeyStore: SecureKeyStore {
  /// `errSecSuccess`, `errSecDuplicateItem`, `errSecItemNotFound` (Security's SecBase.h).
  enum Status {
    static let success: Int32 = 0
    static let duplicateItem: Int32 = -25299
    static let itemNotFound: Int32 = -25300
  }

  private let keychain: any KeychainMirror
  private let service: String

  /// A store in `service` over `keychain` (the Apple binding, or scripted).
  public init(keychain: any KeychainMirror, service: String = "ai.recorderkit.secrets") {
    self.keychain = keychain
    self.service = service
  }

  public func secret(for account: String) throws(KeyStoreError) -> [UInt8]? {
    let (status, data) = keychain.copy(service: service, account: account)
    switch status {
    case Status.success: return data ?? []
    case Status.itemNotFound: return nil
    default: throw .keychain(status)
    }
  }

  public func store(_ secret: [UInt8], for account: String) throws(KeyStoreError) {
    var status = keychain.add(service: service, account: account, data: secret)
    if status == Status.duplicateItem {
      status = keychain.update(service: service, account: account, data: secret)
    }
    guard status == Status.success else { throw .keychain(status) }
  }

  public func removeSecret(for account: String) throws(KeyStoreError) {
    let status = keychain.delete(service: service, account: account)
    guard status == Status.success || status == Status.itemNotFound else {
      throw .keychain(status)
    }
  }
}
