// swift-format-ignore-file
// A stand-in for Apple's Security: declarations only, for the SecItem functions on generic
// passwords the Keychain binding uses (AppleBindingTypeCheckTests). Core Foundation types
// are stood in by their toll-free bridged Foundation classes. Never run.
import Foundation

public typealias OSStatus = Int32
public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFTypeRef = AnyObject

public var kSecClass: CFString { "class" }
public var kSecClassGenericPassword: CFString { "genp" }
public var kSecAttrService: CFString { "svce" }
public var kSecAttrAccount: CFString { "acct" }
public var kSecAttrAccessible: CFString { "pdmn" }
public var kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString { "cku" }
public var kSecValueData: CFString { "v_Data" }
public var kSecReturnData: CFString { "r_Data" }
public var kSecMatchLimit: CFString { "m_Limit" }
public var kSecMatchLimitOne: CFString { "m_LimitOne" }

public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?)
  -> OSStatus { fatalError("stand-in") }
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
  fatalError("stand-in")
}
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?)
  -> OSStatus { fatalError("stand-in") }
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { fatalError("stand-in") }

// Keys (SecKey) for the RSA of RecorderCrypto's Apple engine.
public final class SecKey {}
public typealias CFData = NSData
public typealias CFError = NSError
public typealias CFIndex = Int
public var errSecSuccess: OSStatus { 0 }

public var kSecAttrKeyType: CFString { "type" }
public var kSecAttrKeyTypeRSA: CFString { "42" }
public var kSecAttrKeyClass: CFString { "kcls" }
public var kSecAttrKeyClassPublic: CFString { "0" }
public var kSecAttrKeyClassPrivate: CFString { "1" }
public var kSecAttrKeySizeInBits: CFString { "bsiz" }

public struct SecKeyAlgorithm: RawRepresentable, Hashable {
  public var rawValue: CFString
  public init(rawValue: CFString) { self.rawValue = rawValue }
  public static var rsaEncryptionPKCS1: SecKeyAlgorithm { fatalError("stand-in") }
  public static var rsaEncryptionOAEPSHA1: SecKeyAlgorithm { fatalError("stand-in") }
  public static var rsaEncryptionOAEPSHA256: SecKeyAlgorithm { fatalError("stand-in") }
}

public func SecKeyCreateRandomKey(
  _ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? { fatalError("stand-in") }
public func SecKeyCreateWithData(
  _ keyData: CFData, _ attributes: CFDictionary,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? { fatalError("stand-in") }
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? { fatalError("stand-in") }
public func SecKeyCopyExternalRepresentation(
  _ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? { fatalError("stand-in") }
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { fatalError("stand-in") }
public func SecKeyCreateEncryptedData(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? { fatalError("stand-in") }
public func SecKeyCreateDecryptedData(
  _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? { fatalError("stand-in") }

public typealias SecRandomRef = OpaquePointer
public var kSecRandomDefault: SecRandomRef? { nil }
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer)
  -> Int32 { fatalError("stand-in") }
