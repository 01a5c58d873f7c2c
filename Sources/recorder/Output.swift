import Foundation
import RecorderKit
import RecorderProtocol

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a line to stderr (progress and errors never go to stdout). When stderr is the
/// journal (``stderrIsJournal``), every line of `text` starts with its priority as sd-daemon(3)
/// spells it (`<3>`, `<4>`, `<6>`), so `journalctl -p warning` shows the errors and warnings;
/// otherwise the text goes as is. Without a `priority`, a line saying `error:` or `warning:`
/// first is that, any other line information.
func printError(_ text: String, priority: LogPriority? = nil) {
  let priority = priority ?? LogPriority(line: text)
  printErrorInline(journalLines(text, priority: priority, journal: stderrIsJournal) + "\n")
}

/// A line's priority in the journal: the syslog levels sd-daemon(3) prefixes take.
enum LogPriority: Int, Sendable {
  case error = 3
  case warning = 4
  case info = 6

  /// What a line says it is: `error: …` an error, `warning: …` a warning, else information.
  init(line: String) {
    if line.hasPrefix("error:") {
      self = .error
    } else if line.hasPrefix("warning:") {
      self = .warning
    } else {
      self = .info
    }
  }
}

/// Whether stderr is the journal's stream: systemd sets `JOURNAL_STREAM` to `DEVICE:INODE` of
/// the stream it connects a service's stderr to (systemd.exec(5)), and stderr is that stream
/// still (not redirected somewhere else by a script in between). Read once.
let stderrIsJournal = isJournalStream(
  ProcessInfo.processInfo.environment["JOURNAL_STREAM"], descriptor: 2)

/// True when `value` (`JOURNAL_STREAM`'s `DEVICE:INODE`, both decimal) names the file
/// `descriptor` is open on.
func isJournalStream(_ value: String?, descriptor: Int32) -> Bool {
  guard let value, let colon = value.firstIndex(of: ":"),
    let device = UInt64(value[..<colon]), let inode = UInt64(value[value.index(after: colon)...])
  else { return false }
  var info = stat()
  guard fstat(descriptor, &info) == 0 else { return false }
  return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
}

/// `text` with each of its lines prefixed `<priority>` when `journal`, unchanged otherwise.
func journalLines(_ text: String, priority: LogPriority, journal: Bool) -> String {
  guard journal else { return text }
  return text.split(separator: "\n", omittingEmptySubsequences: false)
    .map { "<\(priority.rawValue)>" + $0 }.joined(separator: "\n")
}

/// Writes to stderr without a newline (progress bars redrawn in place). Uses write(2) on
/// descriptor 2: no shared FILE* state, so nothing to guard across threads.
func printErrorInline(_ text: String) {
  var line = text
  line.withUTF8 { buffer in
    var sent = 0
    while sent < buffer.count {
      guard let base = buffer.baseAddress else { return }
      let result = write(2, base + sent, buffer.count - sent)
      guard result > 0 else { return }
      sent += result
    }
  }
}

/// True when stderr is a terminal: progress bars are drawn only then.
var stderrIsTerminal: Bool { isatty(2) != 0 }

enum RecorderVersion {
  static var text: String { "recorder \(RecorderKitInfo.version)" }
}

/// Renders fields as `name: value` lines, nested records indented.
func renderText(_ fields: [Field], indent: String = "") -> String {
  var lines: [String] = []
  for field in fields {
    switch field.value {
    case .int(let value): lines.append("\(indent)\(field.name): \(value)")
    case .uint(let value) where field.name == "opcode" || field.name == "crc":
      lines.append("\(indent)\(field.name): 0x\(String(value, radix: 16)) (\(value))")
    case .uint(let value): lines.append("\(indent)\(field.name): \(value)")
    case .text(let value): lines.append("\(indent)\(field.name): \(escapingControls(value))")
    case .bytes(let value): lines.append("\(indent)\(field.name): \(value.hexString)")
    case .records(let records):
      lines.append("\(indent)\(field.name): \(records.count)")
      for (i, record) in records.enumerated() {
        lines.append("\(indent)  [\(i)]")
        lines.append(renderText(record, indent: indent + "    "))
      }
    }
  }
  return lines.joined(separator: "\n")
}

/// Text from a device (names, serials) with control characters written as `\n`, `\u{1}`, …,
/// so a value can never start a line of its own and forge a field.
func escapingControls(_ text: String) -> String {
  var out = ""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    case "\r": out += "\\r"
    case "\t": out += "\\t"
    case _
    where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
      || scalar == "\u{2028}" || scalar == "\u{2029}":
      out += "\\u{\(String(scalar.value, radix: 16))}"
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out
}

/// Renders fields as one compact JSON object.
func renderJSON(_ fields: [Field]) -> String {
  JSONValue.object(fields.map { ($0.name, $0.jsonValue) }).serialized
}
