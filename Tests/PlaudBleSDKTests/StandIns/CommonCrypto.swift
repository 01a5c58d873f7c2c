// swift-format-ignore-file
// A stand-in for Apple's CommonCrypto (absent on Linux): the MD5 declarations the vendor's
// template app uses, with Apple's signatures, for scripts/check-vendor-template.sh. Never run.
public typealias CC_LONG = UInt32
public var CC_MD5_DIGEST_LENGTH: Int32 { 16 }
@discardableResult
public func CC_MD5(
  _ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?
) -> UnsafeMutablePointer<UInt8>? { md }
