import Foundation
import RecorderKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `recorder token`: the device handshake token a partner account's user JWT implies
/// (PROTOCOL.md §8), derived by ``UserToken`` (the same code the cloud commands use). The
/// token is a secret: it is read from a file, never from the command line, and written only to
/// a 0600 file (`--out`) or to a stdout that is not a terminal.
struct TokenCommand: RecorderCommand {
  static let name = "token"
  static let abstract = "Write the device token a partner user JWT implies (to a file or a pipe)."
  static let help = """
    OVERVIEW: Reads a partner account's user access token (a JWT) and writes the device
    handshake token it implies (PROTOCOL.md §8): the JWT's `sub` claim without a leading
    `client_user_` and with every `-` removed. A recorder bound through that partner account
    takes it; Mode B devices also need the serial signature and an enrolled key, and for a
    device bound to the consumer app no way to get the token is known (docs/linux-gateway.md,
    "Your device token"). The JWT's signature is not checked: only the cloud can judge it.

    The token is written to FILE with --out (mode 0600, replacing FILE atomically), or to
    stdout when stdout is not a terminal (a pipe or a file). It is never shown on a terminal.

    USAGE: recorder token --user-token-file F [--out FILE]

    OPTIONS:
      --user-token-file F   The user access token (JWT): the first line of F. Keep it 0600.
      --out FILE            Write the device token, one line, to FILE (0600) instead of stdout.
      -h, --help            Show this help.
    """

  /// Largest user-token file read (a JWT is a few hundred bytes; ``UserToken`` takes 16 KiB).
  static let maximumFileSize = 64 * 1024

  var userTokenFile: String
  var out: String?

  init(arguments: inout Arguments) throws {
    userTokenFile = try arguments.required("user-token-file")
    out = try arguments.option("out")
    try arguments.finish()
  }

  func run() async throws {
    guard out != nil || isatty(1) == 0 else {
      throw CommandFailure(
        .usage,
        "the device token is a secret and is not shown on a terminal: write it to a file with"
          + " --out FILE (made 0600), or pipe it")
    }
    let token = try Self.deviceToken(fromFile: userTokenFile)
    let line = token.revealed + "\n"
    if let out {
      try Self.writeSecret(line, to: out)
    } else {
      try Self.writeAll(line, to: 1, path: "stdout")
    }
  }

  /// The handshake token of the JWT on the first line of `path`. Errors name the file and the
  /// rule the JWT broke, never its content.
  static func deviceToken(fromFile path: String) throws -> DeviceToken {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw CommandFailure(
        .ioError,
        "cannot read the user token file \(EchoedValue(path)): \(String(cString: strerror(errno)))")
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      throw CommandFailure(.ioError, "the user token file \(EchoedValue(path)) is not a file")
    }
    guard info.st_size <= maximumFileSize else {
      throw CommandFailure(
        .dataError,
        "the user token file \(EchoedValue(path)) is larger than \(maximumFileSize) bytes:"
          + " not a user access token")
    }
    do {
      return try UserToken(jwt: try DeviceOptions.readTokenFile(path)).deviceToken
    } catch let error as CloudError {
      throw CommandFailure(.dataError, "the token in \(EchoedValue(path)): \(error)")
    }
  }

  /// Writes `text` to `path` with mode 0600: a new file beside it, synced, renamed over `path`,
  /// the folder synced. `path` is never opened itself, so a link there is replaced, not
  /// followed.
  static func writeSecret(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    let folder = url.deletingLastPathComponent().path
    let temporary =
      folder + "/." + url.lastPathComponent
      + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw ioFailure(path) }
    var failure: (any Error)?
    do {
      // The umask can only take bits away; 0600 whatever it is.
      guard fchmod(descriptor, 0o600) == 0 else { throw ioFailure(path) }
      try writeAll(text, to: descriptor, path: path)
      guard fsync(descriptor) == 0 else { throw ioFailure(path) }
    } catch {
      failure = error
    }
    if close(descriptor) != 0, failure == nil { failure = ioFailure(path) }
    if let failure {
      unlink(temporary)
      throw failure
    }
    guard rename(temporary, path) == 0 else {
      let failure = ioFailure(path)
      unlink(temporary)
      throw failure
    }
    let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folderDescriptor >= 0 {
      _ = fsync(folderDescriptor)
      close(folderDescriptor)
    }
  }

  /// Every byte of `text` to `descriptor`.
  static func writeAll(_ text: String, to descriptor: Int32, path: String) throws {
    var text = text
    try text.withUTF8 { buffer in
      var sent = 0
      while sent < buffer.count {
        guard let base = buffer.baseAddress else { return }
        let result = write(descriptor, base + sent, buffer.count - sent)
        if result < 0, errno == EINTR { continue }
        guard result > 0 else { throw ioFailure(path) }
        sent += result
      }
    }
  }

  /// A write failure naming `path` and the system's reason.
  private static func ioFailure(_ path: String) -> CommandFailure {
    CommandFailure(
      .ioError, "cannot write \(EchoedValue(path)): \(String(cString: strerror(errno)))")
  }
}
