/// The head of an HTTP/1.1 message: its start line and header fields, parsed defensively
/// (bounded size and field count, ASCII only, no obsolete line folding).
///
/// Only what the WebSocket opening handshake needs: no bodies, no chunking.
public struct HTTPUpgradeHead: Sendable, Equatable {
  /// The start line's three parts: method, target, version for a request; version, status,
  /// reason for a response.
  public var startLine: [String]
  /// Header fields in arrival order, names as sent.
  public var fields: [(name: String, value: String)]

  public static func == (lhs: HTTPUpgradeHead, rhs: HTTPUpgradeHead) -> Bool {
    lhs.startLine == rhs.startLine && lhs.fields.map(\.name) == rhs.fields.map(\.name)
      && lhs.fields.map(\.value) == rhs.fields.map(\.value)
  }

  /// The limits every parse applies.
  public struct Limits: Sendable {
    /// Bytes up to and including the blank line.
    public var maxHeadBytes: Int
    /// Header field lines.
    public var maxFields: Int
    /// 8 KiB and 64 fields by default: a device's upgrade request needs a few hundred bytes.
    public init(maxHeadBytes: Int = 8192, maxFields: Int = 64) {
      self.maxHeadBytes = maxHeadBytes
      self.maxFields = maxFields
    }
  }

  /// Looks for a complete head at the start of `bytes`. Returns nil while the blank line has
  /// not arrived (and the limit is not yet exceeded), else the head and how many bytes it used
  /// (anything after them is the first WebSocket frame data).
  public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(HTTPUpgradeError)
    -> (head: HTTPUpgradeHead, consumed: Int)?
  {
    guard let end = headEnd(bytes, limit: limits.maxHeadBytes) else {
      if bytes.count > limits.maxHeadBytes { throw .headTooLarge(limit: limits.maxHeadBytes) }
      return nil
    }
    guard end <= limits.maxHeadBytes else { throw .headTooLarge(limit: limits.maxHeadBytes) }
    let head = bytes[0..<end - 4]
    // HTTP heads are ASCII; CR only as part of CRLF.
    for (index, byte) in zip(head.indices, head) {
      if byte == 0x0D {
        guard index + 1 < head.endIndex, head[index + 1] == 0x0A else {
          throw .invalidCharacters
        }
        continue
      }
      guard byte == 0x0A || byte == 0x09 || (0x20...0x7E).contains(byte) else {
        throw .invalidCharacters
      }
    }
    let text = String(decoding: head, as: UTF8.self)
    let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
    guard let first = lines.first, !lines.contains(where: { $0.contains("\n") }) else {
      throw .invalidCharacters
    }
    let startLine = first.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
      .map(String.init)
    guard lines.count - 1 <= limits.maxFields else {
      throw .tooManyHeaderFields(limit: limits.maxFields)
    }
    var fields: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { throw .malformedHeaderField }
      let name = line[..<colon]
      guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else { throw .malformedHeaderField }
      let value = line[line.index(after: colon)...].trimmingWhitespace()
      fields.append((String(name), String(value)))
    }
    return (HTTPUpgradeHead(startLine: startLine, fields: fields), end)
  }

  /// Every value of the header `name` (case-insensitive), in order.
  public func values(_ name: String) -> [String] {
    let wanted = name.lowercased()
    return fields.filter { $0.name.lowercased() == wanted }.map(\.value)
  }

  /// The comma-separated tokens of every `name` header, lower-cased.
  public func tokens(_ name: String) -> [String] {
    values(name).flatMap { $0.split(separator: ",") }.map {
      String($0.trimmingWhitespace()).lowercased()
    }
  }

  /// The index just past "\r\n\r\n", searching at most `limit` + 4 bytes.
  private static func headEnd(_ bytes: [UInt8], limit: Int) -> Int? {
    let searchEnd = min(bytes.count, limit + 4)
    guard searchEnd >= 4 else { return nil }
    var i = 3
    while i < searchEnd {
      if bytes[i] == 0x0A && bytes[i - 1] == 0x0D && bytes[i - 2] == 0x0A && bytes[i - 3] == 0x0D {
        return i + 1
      }
      i += 1
    }
    return nil
  }

  /// RFC 9110 `tchar`.
  private static func isTokenCharacter(_ char: Character) -> Bool {
    guard let ascii = char.asciiValue else { return false }
    switch ascii {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    default: return "!#$%&'*+-.^_`|~".utf8.contains(ascii)
    }
  }
}

extension Substring {
  fileprivate func trimmingWhitespace() -> Substring {
    var slice = self
    while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
    while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
    return slice
  }
}
