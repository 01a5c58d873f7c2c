// swift-format-ignore-file
// A stand-in for Apple's CryptoKit: declarations only, with the signatures of Apple's
// documentation, for what RecorderCrypto uses (AppleBindingTypeCheckTests). Never run.
import Foundation

public struct SymmetricKey: Sendable {
  public init<D: ContiguousBytes>(data: D) { fatalError("stand-in") }
}

public protocol Digest: Sequence where Element == UInt8 {}

public struct SHA256Digest: Digest {
  public func makeIterator() -> Array<UInt8>.Iterator { fatalError("stand-in") }
}
public struct SHA256 {
  public init() {}
  public mutating func update(bufferPointer: UnsafeRawBufferPointer) {}
  public mutating func update<D: DataProtocol>(data: D) {}
  public func finalize() -> SHA256Digest { fatalError("stand-in") }
  public static func hash<D: DataProtocol>(data: D) -> SHA256Digest { fatalError("stand-in") }
}

public enum Insecure {
  public struct SHA1Digest: Digest {
    public func makeIterator() -> Array<UInt8>.Iterator { fatalError("stand-in") }
  }
  public struct MD5Digest: Digest {
    public func makeIterator() -> Array<UInt8>.Iterator { fatalError("stand-in") }
  }
  public struct SHA1 {
    public static func hash<D: DataProtocol>(data: D) -> SHA1Digest { fatalError("stand-in") }
  }
  public struct MD5 {
    public static func hash<D: DataProtocol>(data: D) -> MD5Digest { fatalError("stand-in") }
  }
}

public enum ChaChaPoly {
  public struct Nonce: Sendable {
    public init<D: DataProtocol>(data: D) throws { fatalError("stand-in") }
  }
  public struct SealedBox: Sendable {
    public var ciphertext: Data { fatalError("stand-in") }
    public var tag: Data { fatalError("stand-in") }
    public init<C: DataProtocol, T: DataProtocol>(nonce: Nonce, ciphertext: C, tag: T) throws {
      fatalError("stand-in")
    }
  }
  public static func seal<Plaintext: DataProtocol, AuthenticatedData: DataProtocol>(
    _ message: Plaintext, using key: SymmetricKey, nonce: Nonce? = nil,
    authenticating authenticatedData: AuthenticatedData
  ) throws -> SealedBox { fatalError("stand-in") }
  public static func open<AuthenticatedData: DataProtocol>(
    _ sealedBox: SealedBox, using key: SymmetricKey, authenticating authenticatedData: AuthenticatedData
  ) throws -> Data { fatalError("stand-in") }
}

public enum AES {
  public enum GCM {
    public struct Nonce: Sendable {
      public init<D: DataProtocol>(data: D) throws { fatalError("stand-in") }
    }
    public struct SealedBox: Sendable {
      public var ciphertext: Data { fatalError("stand-in") }
      public var tag: Data { fatalError("stand-in") }
      public init<C: DataProtocol, T: DataProtocol>(nonce: Nonce, ciphertext: C, tag: T) throws {
        fatalError("stand-in")
      }
    }
    public static func seal<Plaintext: DataProtocol, AuthenticatedData: DataProtocol>(
      _ message: Plaintext, using key: SymmetricKey, nonce: Nonce? = nil,
      authenticating authenticatedData: AuthenticatedData
    ) throws -> SealedBox { fatalError("stand-in") }
    public static func open<AuthenticatedData: DataProtocol>(
      _ sealedBox: SealedBox, using key: SymmetricKey,
      authenticating authenticatedData: AuthenticatedData
    ) throws -> Data { fatalError("stand-in") }
  }
}
