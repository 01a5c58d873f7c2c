/// A plain HTTP/1.1 request as ``HTTPServer`` reads it: the head of ``HTTPUpgradeHead`` plus a
/// `Content-Length` body. Parsed defensively (DESIGN.md invariant 6): bounded head and body,
/// no chunked bodies, a typed error for anything else, never a trap.
public struct HTTPRequest: Sendable, Equatable {
  /// `GET`, `POST`, … as sent (methods are case-sensitive).
  public var method: String
  /// The request target as sent: path and query (`/developer/api/x?sn=1`).
  public var target: String
  /// Header fields in arrival order.
  public var head: HTTPUpgradeHead
  /// The body (`Content-Length` bytes; empty without one).
  public var body: [UInt8]

  /// The limits every parse applies.
  public struct Limits: Sendable {
    public var head: HTTPUpgradeHead.Limits
    /// Largest body accepted.
    public var maxBodyBytes: Int
    /// 8 KiB of head, 64 fields, 64 KiB of body: the cloud API's JSON bodies are tiny.
    public init(head: HTTPUpgradeHead.Limits = .init(), maxBodyBytes: Int = 64 * 1024) {
      self.head = head
      self.maxBodyBytes = maxBodyBytes
    }
  }

  public init(method: String, target: String, fields: [(String, String)] = [], body: [UInt8] = []) {
    self.method = method
    self.target = target
    head = HTTPUpgradeHead(
      startLine: [method, target, "HTTP/1.1"], fields: fields.map { (name: $0.0, value: $0.1) })
    self.body = body
  }

  /// The target's path, without the query.
  public var path: String {
    guard let mark = target.firstIndex(of: "?") else { return target }
    return String(target[..<mark])
  }

  /// The query's `name=value` pairs, percent-decoded (`+` is a space); later names win.
  public var query: [String: String] {
    guard let mark = target.firstIndex(of: "?") else { return [:] }
    var result: [String: String] = [:]
    for pair in target[target.index(after: mark)...].split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = Self.percentDecoded(parts[0])
      let value = parts.count > 1 ? Self.percentDecoded(parts[1]) : ""
      if let name, let value { result[name] = value }
    }
    return result
  }

  /// The one value of header `name` (case-insensitive); nil when absent or repeated.
  public func header(_ name: String) -> String? {
    let values = head.values(name)
    return values.count == 1 ? values[0] : nil
  }

  /// Looks for a complete request at the start of `bytes`. Returns nil while the head or
  /// the body has not fully arrived, else the request and how many bytes it used.
  public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(HTTPMessageError)
    -> (request: HTTPRequest, consumed: Int)?
  {
    let parsed: (head: HTTPUpgradeHead, consumed: Int)?
    do {
      parsed = try HTTPUpgradeHead.parse(bytes, limits: limits.head)
    } catch {
      throw .head(error)
    }
    guard let (head, headLength) = parsed else { return nil }
    let line = head.startLine
    guard line.count == 3, !line[0].isEmpty, line[0].utf8.allSatisfy(isMethodCharacter),
      line[1].hasPrefix("/"), !line[1].contains(" "), line[2] == "HTTP/1.1" || line[2] == "HTTP/1.0"
    else { throw .malformedRequestLine }
    guard head.values("Transfer-Encoding").isEmpty else { throw .transferEncodingNotSupported }
    let lengths = head.values("Content-Length")
    var length = 0
    if !lengths.isEmpty {
      guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.utf8.count <= 18,
        text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text)
      else { throw .invalidContentLength }
      length = value
    }
    guard length <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
    guard bytes.count - headLength >= length else { return nil }
    let request = HTTPRequest(
      method: line[0], target: line[1], head: head,
      body: Array(bytes[headLength..<headLength + length]))
    return (request, headLength + length)
  }

  private init(method: String, target: String, head: HTTPUpgradeHead, body: [UInt8]) {
    self.method = method
    self.target = target
    self.head = head
    self.body = body
  }

  /// Upper-case letters, as every registered method is spelled.
  private static func isMethodCharacter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) }

  private static func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      switch byte {
      case UInt8(ascii: "+"): bytes.append(0x20)
      case UInt8(ascii: "%"):
        guard let high = iterator.next().flatMap(hexValue),
          let low = iterator.next().flatMap(hexValue)
        else { return nil }
        bytes.append(high << 4 | low)
      default: bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }
}
