import Foundation
import RecorderCrypto
import RecorderProtocol

/// A firmware image on disk with the checksums the update needs: MD5 and SHA-256 (to check
/// it against what the cloud or the user published) and the §10 CRC the device checks.
public struct FirmwareFile: Sendable, Equatable {
  /// Where the image is.
  public let path: String
  /// The version it installs, as published (`V0096`).
  public let version: String
  /// Bytes.
  public let size: Int
  /// Lower-case hex MD5 of the whole file.
  public let md5: String
  /// Lower-case hex SHA-256 of the whole file.
  public let sha256: String
  /// CRC-16/CCITT-FALSE of the whole file (PROTOCOL.md §10): FOTA_PUSH `crc`.
  public let crc: UInt16

  /// Largest image read (the device takes a few MB at most).
  public static let maximumSize = 32 * 1024 * 1024

  /// Reads and hashes the file at `path`.
  /// - Throws: ``FirmwareUpdateError/io(path:reason:)``, ``FirmwareUpdateError/emptyImage``,
  ///   ``FirmwareUpdateError/imageTooLarge(bytes:limit:)``.
  public init(path: String, version: String) throws(FirmwareUpdateError) {
    let bytes = try Self.read(path)
    self.path = path
    self.version = version
    size = bytes.count
    md5 = Digest.md5(bytes).hexDigits()
    sha256 = Digest.sha256(bytes).hexDigits()
    crc = CRC16.checksum(bytes)
  }

  private init(moving file: FirmwareFile, to path: String) {
    self.path = path
    version = file.version
    size = file.size
    md5 = file.md5
    sha256 = file.sha256
    crc = file.crc
  }

  func moved(to path: String) -> FirmwareFile { FirmwareFile(moving: self, to: path) }

  /// Checks the file against published checksums (hex, any case); nil skips one.
  /// - Throws: ``FirmwareUpdateError/checksumMismatch(algorithm:)`` before anything is sent.
  public func verify(md5 expectedMD5: String?, sha256 expectedSHA256: String? = nil)
    throws(FirmwareUpdateError)
  {
    if let expectedMD5, expectedMD5.lowercased() != md5 {
      throw .checksumMismatch(algorithm: "MD5")
    }
    if let expectedSHA256, expectedSHA256.lowercased() != sha256 {
      throw .checksumMismatch(algorithm: "SHA-256")
    }
  }

  /// The image's bytes, re-read and re-checked against the MD5 taken at `init` (the file
  /// must not have changed since it was verified).
  func bytes() throws(FirmwareUpdateError) -> [UInt8] {
    let bytes = try Self.read(path)
    guard bytes.count == size, Digest.md5(bytes).hexDigits() == md5 else {
      throw .io(path: path, reason: "the file changed after it was checked")
    }
    return bytes
  }

  private static func read(_ path: String) throws(FirmwareUpdateError) -> [UInt8] {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw .io(path: path, reason: "cannot open")
    }
    defer { try? handle.close() }
    let data: Data?
    do {
      data = try handle.read(upToCount: maximumSize + 1)
    } catch {
      throw .io(path: path, reason: "cannot read")
    }
    let bytes = data.map { Array($0) } ?? []
    guard !bytes.isEmpty else { throw .emptyImage }
    guard bytes.count <= maximumSize else {
      throw .imageTooLarge(bytes: bytes.count, limit: maximumSize)
    }
    return bytes
  }
}

extension FirmwareUpdateError {
  /// The same failure as a cloud download reports it.
  func asCloudError(path: String) -> CloudError {
    switch self {
    case .io(let path, let reason): .io(path: path, reason: reason)
    case .checksumMismatch(let algorithm): .checksumMismatch(algorithm: algorithm)
    default: .io(path: path, reason: description)
    }
  }
}
