import RecorderCrypto

/// Digests of files the sync holds, read through ``FileReader`` so a failure is a
/// ``StorageError`` like every other disk error of the sync.
public enum FileDigest {
  /// Lower-case hex SHA-256 of the file at `path`, read in 64 KiB chunks (memory independent
  /// of the file's size).
  public static func sha256Hex(ofFile path: String) throws(StorageError) -> String {
    let reader = try FileReader(path: path)
    let hasher = SHA256Hasher()
    while true {
      let chunk = try reader.read(upTo: 1 << 16)
      if chunk.isEmpty { return hasher.finalizeHex() }
      hasher.update(chunk)
    }
  }
}
