import Foundation
import RecorderConcurrency
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `recorder token --user-token-file F [--out FILE]`: the device token a partner user JWT
/// implies (PROTOCOL.md §8), written to a 0600 file or a stdout that is no terminal, never to a
/// terminal, never into stderr; a malformed JWT is a typed error (65), never a crash.
@Suite("recorder token", .serialized, .blockingWaits)
struct TokenCommandProcessTests {
  /// A partner `sub` and, spelled out by hand, the token §8 makes of it (no `client_user_`,
  /// no `-`).
  static let subject = "client_user_7f3e9a2c-41b8-4d6e-9c0a-5b2f8e1d3a47"
  static let expected = "7f3e9a2c41b84d6e9c0a5b2f8e1d3a47"

  /// An unsigned JWT with `claims` as its payload (base64url, no padding).
  static func jwt(_ claims: String) -> String {
    func base64URL(_ text: String) -> String {
      Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    return base64URL(#"{"alg":"HS256","typ":"JWT"}"#) + "." + base64URL(claims) + ".c2lnbmF0dXJl"
  }

  static func write(_ text: String, to path: String, mode: Int = 0o600) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
  }

  static func mode(of path: String) throws -> Int {
    try #require(
      try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
  }

  @Test(
    "--out FILE: the token §8 derives, one line, in a 0600 file replaced atomically; stdout and stderr empty"
  )
  func writesTokenFile() throws {
    let directory = try TemporaryDirectory("token-out")
    let jwtFile = directory.file("user.jwt")
    let jwt = Self.jwt(#"{"sub":"\#(Self.subject)","exp":1893456000}"#)
    try Self.write(jwt + "\n", to: jwtFile)
    let out = directory.file("device-token")
    // Replaces an older file anyone could read; the new one is the owner's alone.
    try Self.write("old\n", to: out, mode: 0o644)

    let result = try RecorderProcess.run(
      ["token", "--user-token-file", jwtFile, "--out", out], in: directory, label: "token-out")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == Self.expected + "\n")
    #expect(try Self.mode(of: out) == 0o600)
    #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result.stdout)\(result.stderr)")
    // No temporary file is left beside it.
    let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      .filter { $0.contains("device-token") }
    #expect(left == ["device-token"], "\(left)")

    // A sub without the prefix keeps its text, less every '-'.
    try Self.write(Self.jwt(#"{"sub":"ab-cd-ef"}"#), to: jwtFile)
    let plain = try RecorderProcess.run(
      ["token", "--user-token-file", jwtFile, "--out", out], in: directory, label: "token-plain")
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "abcdef\n")
  }

  @Test(
    "stdout not a terminal (a file, a pipe): the token printed; a readable JWT file warned of, neither secret in stderr"
  )
  func printsToNonTerminal() throws {
    let directory = try TemporaryDirectory("token-stdout")
    let jwtFile = directory.file("user.jwt")
    let jwt = Self.jwt(#"{"sub":"\#(Self.subject)"}"#)
    try Self.write(jwt + "\r\n", to: jwtFile, mode: 0o644)
    let result = try RecorderProcess.run(
      ["token", "--user-token-file", jwtFile], in: directory, label: "token-stdout")
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == Self.expected + "\n")
    #expect(result.stderr.contains("warning") && result.stderr.contains("600"), "\(result.stderr)")
    #expect(!result.stderr.contains(Self.expected) && !result.stderr.contains(jwt))
    #expect(!result.stderr.contains(String(Self.subject.dropFirst("client_user_".count))))

    // Through a pipe too (RecorderTool reads both streams through pipes).
    let piped = try RecorderTool.run(["token", "--user-token-file", jwtFile])
    #expect(piped.status == 0, "\(piped.stderr)")
    #expect(piped.stdout == Self.expected + "\n")
    #expect(!piped.stderr.contains(Self.expected))
  }

  #if os(Linux)
    @Test("stdout a terminal and no --out: refused (64), told to use --out, the token not shown")
    func refusesTerminal() throws {
      let directory = try TemporaryDirectory("token-tty")
      let jwtFile = directory.file("user.jwt")
      try Self.write(Self.jwt(#"{"sub":"\#(Self.subject)"}"#), to: jwtFile)
      let terminal = try PseudoTerminal()
      let stderrPath = directory.file("tty.stderr")
      _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
      let executable = try #require(RecorderTool.executable)
      let process = Process()
      process.executableURL = executable
      process.arguments = ["token", "--user-token-file", jwtFile]
      process.standardOutput = terminal.secondary
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
      process.standardInput = FileHandle.nullDevice
      let exited = DispatchSemaphore(value: 0)
      process.terminationHandler = { _ in exited.signal() }
      try process.run()
      let finished = exited.wait(timeout: .now() + 60) == .success
      if !finished { sendSignal(process.processIdentifier, SIGKILL) }
      #expect(finished)
      let stderr = try String(contentsOfFile: stderrPath, encoding: .utf8)
      #expect(process.terminationStatus == 64, "\(stderr)")
      #expect(stderr.contains("--out"), "\(stderr)")
      #expect(!stderr.contains(Self.expected))
      #expect(!terminal.readAvailable().contains(Self.expected), "the token reached the terminal")
    }
  #endif

  @Test("malformed JWT files: a typed error each (65, or 74 for no file), nothing echoed, no crash")
  func malformedInputs() throws {
    let directory = try TemporaryDirectory("token-malformed")
    let marker = "ZQXJ"  // in every bad input: the error must never quote it
    let cases: [(name: String, content: String, status: Int32)] = [
      ("empty", "", 65),
      ("no dots", "\(marker)notajwt", 65),
      ("two parts", "\(marker).abc", 65),
      ("four parts", "a.\(marker).c.d", 65),
      ("payload not base64url", "eyJhbGciOiJub25lIn0.\(marker)!!.c", 65),
      ("payload not JSON", Self.jwt("\(marker) not json"), 65),
      ("payload an array", Self.jwt(#"["\#(marker)"]"#), 65),
      ("no sub", Self.jwt(#"{"name":"\#(marker)"}"#), 65),
      ("sub a number", Self.jwt(#"{"sub":4242,"x":"\#(marker)"}"#), 65),
      ("empty sub", Self.jwt(#"{"sub":"","x":"\#(marker)"}"#), 65),
      ("only the prefix and dashes", Self.jwt(#"{"sub":"client_user_--","x":"\#(marker)"}"#), 65),
      ("sub not ASCII", Self.jwt(#"{"sub":"client_user_\#(marker)é"}"#), 65),
      ("deep JSON", Self.jwt(String(repeating: "[", count: 5_000) + marker), 65),
      ("too large", String(repeating: marker, count: 20_000), 65),
    ]
    for (index, item) in cases.enumerated() {
      let path = directory.file("bad-\(index)")
      try Self.write(item.content, to: path)
      let result = try RecorderProcess.run(
        ["token", "--user-token-file", path], in: directory, label: "bad-\(index)")
      #expect(result.status == item.status, "\(item.name): \(result.stderr)")
      #expect(result.stderr.hasPrefix("error: "), "\(item.name): \(result.stderr)")
      #expect(!result.stderr.contains(marker), "\(item.name) echoed: \(result.stderr)")
      #expect(result.stdout.isEmpty, "\(item.name): \(result.stdout)")
    }

    let missing = try RecorderProcess.run(
      ["token", "--user-token-file", directory.file("absent")], in: directory, label: "absent")
    #expect(missing.status == 74, "\(missing.stderr)")
    let folder = try RecorderProcess.run(
      ["token", "--user-token-file", directory.path], in: directory, label: "folder")
    #expect(folder.status == 74, "\(folder.stderr)")
    let usage = try RecorderProcess.run(["token"], in: directory, label: "usage")
    #expect(usage.status == 64 && usage.stderr.contains("--user-token-file"), "\(usage.stderr)")
    let argv = try RecorderProcess.run(
      ["token", "--user-token-file", directory.file("bad-1"), "--token", "x"], in: directory,
      label: "argv")
    #expect(argv.status == 64, "no token on the command line: \(argv.stderr)")
  }

  @Test("seeded random bytes and mangled JWTs as the file: exit 0 or 65, never a crash")
  func randomInputs() throws {
    let seed =
      ProcessInfo.processInfo.environment["TOKEN_FUZZ_SEED"].flatMap { UInt64($0) }
      ?? UInt64(Date().timeIntervalSince1970)
    print("recorder token random inputs seed: \(seed) (rerun with TOKEN_FUZZ_SEED=\(seed))")
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory("token-random")
    let valid = Array(Self.jwt(#"{"sub":"\#(Self.subject)"}"#).utf8)
    for run in 0..<12 {
      var bytes: [UInt8]
      if run % 2 == 0 {
        bytes = (0..<Int.random(in: 0...400, using: &random)).map { _ in
          UInt8.random(in: 0...255, using: &random)
        }
      } else {
        bytes = valid
        for _ in 0..<Int.random(in: 1...6, using: &random) {
          bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(
            in: 0...255, using: &random)
        }
      }
      let path = directory.file("random-\(run)")
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      chmod(path, 0o600)
      let result = try RecorderProcess.run(
        ["token", "--user-token-file", path], in: directory, label: "random-\(run)")
      #expect(result.status == 0 || result.status == 65, "run \(run): \(result.stderr)")
    }
  }
}

#if os(Linux)
  /// A pseudo-terminal pair: `secondary` is a terminal for a child's stdout; what the child
  /// writes there can be read back from the primary side.
  final class PseudoTerminal {
    let primary: Int32
    let secondary: FileHandle

    init() throws {
      // posix_openpt(3) by hand (the Glibc module does not export it): the multiplexer, unlocked,
      // and the number of the terminal it made.
      primary = open("/dev/ptmx", O_RDWR | O_NOCTTY)
      guard primary >= 0 else {
        throw HarnessError("no /dev/ptmx: \(String(cString: strerror(errno)))")
      }
      var unlock: Int32 = 0
      var number: UInt32 = 0
      guard ioctl(primary, Self.setLock, &unlock) == 0,
        ioctl(primary, Self.getNumber, &number) == 0
      else {
        close(primary)
        throw HarnessError("cannot unlock a pseudo-terminal: \(String(cString: strerror(errno)))")
      }
      let descriptor = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
      guard descriptor >= 0 else {
        close(primary)
        throw HarnessError("cannot open /dev/pts/\(number)")
      }
      secondary = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
      _ = fcntl(primary, F_SETFL, fcntl(primary, F_GETFL) | O_NONBLOCK)
    }

    // <asm-generic/ioctls.h> (x86-64, arm64; function-like macros Swift cannot import):
    // TIOCSPTLCK = _IOW('T', 0x31, int), TIOCGPTN = _IOR('T', 0x30, unsigned int).
    private static let setLock: UInt = 0x4004_5431
    private static let getNumber: UInt = 0x8004_5430

    deinit { close(primary) }

    /// What was written to the terminal so far (without waiting).
    func readAvailable() -> String {
      var collected: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = read(primary, &buffer, buffer.count)
        guard count > 0 else { break }
        collected += buffer[0..<count]
      }
      return String(decoding: collected, as: UTF8.self)
    }
  }
#endif
