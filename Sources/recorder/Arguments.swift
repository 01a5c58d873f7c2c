// The command-line parser: the whole of it lives in this file, shaped like
// swift-argument-parser (a command type per subcommand, `--help` at every level, options
// by long name) so that swapping ArgumentParser in later is mechanical.

import RecorderKit

/// Exit codes, one meaning each (also listed by `recorder --help`).
enum ExitCode: Int32 {
  case success = 0
  /// The command ran and failed (device refused, sync incomplete, …).
  case failure = 1
  /// A sync completed but gave some recordings up for the run (their device bytes could not
  /// be taken or exported): they stay on the device; `--json` lists them with `givenUp`.
  case givenUp = 3
  /// A sync completed but a finish step (`--exec`, `--webhook`, `--sidecar`) is still owed
  /// after its attempts in this run: the next run tries it again.
  case stepsOwed = 4
  /// Bad arguments: the usage line was printed.
  case usage = 64
  /// Input data was malformed (a frame, an audio file).
  case dataError = 65
  /// The device or a needed service could not be reached.
  case unavailable = 69
  /// A local file could not be read or written (a full disk, a missing folder).
  case ioError = 74
  /// Try again later: another sync holds the folder's lock (`recorder sync --wait` waits).
  case busy = 75
  /// The device rejected the token: retrying cannot help.
  case noPermission = 77
}

/// A mistake in the arguments; printed with the command's usage line, exit 64.
struct UsageError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// A failure with its exit code and a one-line reason for stderr.
struct CommandFailure: Error, CustomStringConvertible {
  var code: ExitCode
  var description: String
  init(_ code: ExitCode, _ description: String) {
    self.code = code
    self.description = description
  }
}

/// One subcommand: its name, its help text, how it parses its arguments, and how it runs.
protocol RecorderCommand {
  /// The word after `recorder`.
  static var name: String { get }
  /// One line for the top-level help.
  static var abstract: String { get }
  /// The full help: usage line, arguments and options.
  static var help: String { get }
  /// Reads this command's options from `arguments`; unknown leftovers are an error.
  init(arguments: inout Arguments) throws
  /// Does the work; stdout for results, stderr for progress and errors.
  func run() async throws
}

/// The arguments after the subcommand, consumed by name as a command reads them.
struct Arguments {
  private var tokens: [String]

  init(_ tokens: [String]) { self.tokens = tokens }

  /// True when `--help` or `-h` is anywhere in the arguments.
  var wantsHelp: Bool { tokens.contains("--help") || tokens.contains("-h") }

  /// Removes and returns the first argument when it is a word, not an option (`passive
  /// run …`): the nested subcommand.
  mutating func subcommand() -> String? {
    guard let first = tokens.first, !first.hasPrefix("-") else { return nil }
    tokens.removeFirst()
    return first
  }

  /// Removes `--name` if present.
  mutating func flag(_ name: String) -> Bool {
    guard let index = tokens.firstIndex(of: "--" + name) else { return false }
    tokens.remove(at: index)
    return true
  }

  /// Removes `--name VALUE` or `--name=VALUE` and returns VALUE.
  mutating func option(_ name: String) throws -> String? {
    let long = "--" + name
    if let index = tokens.firstIndex(where: { $0.hasPrefix(long + "=") }) {
      let value = String(tokens[index].dropFirst(long.count + 1))
      tokens.remove(at: index)
      return value
    }
    guard let index = tokens.firstIndex(of: long) else { return nil }
    guard index + 1 < tokens.count else { throw UsageError("\(long) needs a value") }
    let value = tokens[index + 1]
    tokens.removeSubrange(index...index + 1)
    return value
  }

  /// An option converted to `T` (integers, doubles); a value that does not convert is an error.
  mutating func option<T: LosslessStringConvertible>(_ name: String, as type: T.Type) throws -> T? {
    guard let text = try option(name) else { return nil }
    guard let value = T(text) else {
      throw UsageError("--\(name): '\(EchoedValue(text))' is not a valid value")
    }
    return value
  }

  /// A required option.
  mutating func required(_ name: String) throws -> String {
    guard let value = try option(name) else { throw UsageError("--\(name) is required") }
    return value
  }

  /// An option limited to `choices`.
  mutating func choice(_ name: String, _ choices: [String]) throws -> String? {
    guard let value = try option(name) else { return nil }
    guard choices.contains(value) else {
      throw UsageError(
        "--\(name) must be one of \(choices.joined(separator: ", ")), not '\(EchoedValue(value))'")
    }
    return value
  }

  /// Every remaining argument that is not an option, in order; call after all options.
  mutating func positionals() throws -> [String] {
    if let stray = tokens.first(where: { $0.hasPrefix("--") }) {
      throw UsageError("unknown option \(EchoedValue(stray))")
    }
    defer { tokens.removeAll() }
    return tokens
  }

  /// Fails if anything was left unread.
  func finish() throws {
    if let first = tokens.first {
      throw UsageError("unexpected argument '\(EchoedValue(first))'")
    }
  }
}

/// Runs `commands` for the process arguments and returns the exit code.
func runCommandLine(_ commands: [any RecorderCommand.Type], arguments: [String]) async -> ExitCode {
  let topHelp = topLevelHelp(commands)
  guard let word = arguments.first, word != "--help", word != "-h", word != "help" else {
    print(topHelp)
    return arguments.isEmpty ? .usage : .success
  }
  if word == "--version" {
    print(RecorderVersion.text)
    return .success
  }
  guard let command = commands.first(where: { $0.name == word }) else {
    printError("unknown command '\(EchoedValue(word))'\n\n\(topHelp)")
    return .usage
  }
  var rest = Arguments(Array(arguments.dropFirst()))
  if rest.wantsHelp {
    print(command.help)
    return .success
  }
  do {
    let instance = try command.init(arguments: &rest)
    try await instance.run()
    return .success
  } catch let error as UsageError {
    printError("error: \(error)\n\n\(command.help)")
    return .usage
  } catch let error as CommandFailure {
    printError("error: \(error)")
    return error.code
  } catch {
    printError("error: \(error)")
    return .failure
  }
}

private func topLevelHelp(_ commands: [any RecorderCommand.Type]) -> String {
  let width = commands.map { $0.name.count }.max() ?? 0
  let lines = commands.map { "  " + $0.name.padding(width) + "  " + $0.abstract }
  return """
    OVERVIEW: RecorderKit's command-line tool for Plaud Note / NotePin voice recorders.

    USAGE: recorder <command> [options]   (recorder <command> --help for details)

    COMMANDS:
    \(lines.joined(separator: "\n"))

    EXIT CODES: 0 ok · 1 failed · 3 some recordings given up (kept) · 4 a finish step still owed · 64 bad arguments · 65 malformed data · 69 device
    unreachable · 74 local file error · 75 folder locked by another sync · 77 token rejected
    """
}

extension String {
  func padding(_ width: Int) -> String {
    self + String(repeating: " ", count: max(0, width - count))
  }
}
