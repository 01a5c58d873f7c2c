#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A fresh path in a per-process temporary folder (removed by the caller with `removeFile`);
/// a random prefix keeps tests that run in parallel from sharing files.
func temporaryPath(_ name: String) -> String {
  let folder = "/tmp/recorder-audio-tests-\(getpid())"
  mkdir(folder, 0o755)
  return folder + "/" + String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-" + name
}

func removeFile(_ path: String) { unlink(path) }

struct TestFileError: Error, CustomStringConvertible {
  var description: String
}

func readFile(_ path: String) throws -> [UInt8] {
  guard let file = fopen(path, "rb") else {
    throw TestFileError(description: "cannot open \(path)")
  }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count = fread(&chunk, 1, chunk.count, file)
    if count == 0 { break }
    bytes.append(contentsOf: chunk[0..<count])
  }
  return bytes
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
  guard let file = fopen(path, "wb") else {
    throw TestFileError(description: "cannot create \(path)")
  }
  defer { fclose(file) }
  guard fwrite(bytes, 1, bytes.count, file) == bytes.count else {
    throw TestFileError(description: "short write to \(path)")
  }
}
