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
