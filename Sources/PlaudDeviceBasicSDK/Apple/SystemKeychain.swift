#if canImport(Security)
  import Foundation
  import RecorderKit
  import Security

  /// The `SecItem` functions on generic passwords as a `KeychainMirror`: translation only.
  public struct SystemKeychain: KeychainMirror {
    public init() {}

    private func query(service: String, account: String) -> [String: Any] {
      [
        kSecClass as String: kSecClassGenericPassword,
        kSecAttrService as String: service,
        kSecAttrAccount as String: account,
      ]
    }

    public func add(service: String, account: String, data: [UInt8]) -> Int32 {
      var item = query(service: service, account: account)
      item[kSecValueData as String] = Data(data)
      item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
      return SecItemAdd(item as CFDictionary, nil)
    }

    public func update(service: String, account: String, data: [UInt8]) -> Int32 {
      let changes: [String: Any] = [kSecValueData as String: Data(data)]
      return SecItemUpdate(
        query(service: service, account: account) as CFDictionary, changes as CFDictionary)
    }

    public func copy(service: String, account: String) -> (status: Int32, data: [UInt8]?) {
      var search = query(service: service, account: account)
      search[kSecReturnData as String] = true
      search[kSecMatchLimit as String] = kSecMatchLimitOne
      var result: CFTypeRef?
      let status = SecItemCopyMatching(search as CFDictionary, &result)
      return (status, (result as? Data).map { [UInt8]($0) })
    }

    public func delete(service: String, account: String) -> Int32 {
      SecItemDelete(query(service: service, account: account) as CFDictionary)
    }
  }
#endif
