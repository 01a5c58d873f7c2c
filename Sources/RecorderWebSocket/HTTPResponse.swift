/// A response ``HTTPServer`` sends, and how it sends it: whole, or (to emulate a bad network
/// or a bad server) truncated, trickled or stalled.
public struct HTTPResponse: Sendable {
  /// How the bytes go out.
  public enum Delivery: Sendable, Equatable {
    /// Head and body at once.
    case whole
    /// The head announces the whole body, but the connection closes after this many body
    /// bytes (a download cut short).
    case truncated(afterBodyBytes: Int)
    /// The body goes out `chunk` bytes at a time with `pause` of the server's clock between.
    case trickled(chunk: Int, pause: Duration)
    /// The head goes out, then nothing until the client gives up and closes.
    case stalled
  }

  public var status: Int
  /// Header fields; `Content-Length` and `Connection: close` are added when encoding.
  public var fields: [(name: String, value: String)]
  public var body: [UInt8]
  public var delivery: Delivery

  public init(
    status: Int, fields: [(name: String, value: String)] = [], body: [UInt8] = [],
    delivery: Delivery = .whole
  ) {
    self.status = status
    self.fields = fields
    self.body = body
    self.delivery = delivery
  }

  /// A JSON response (`application/json`) with `text` as its body.
  public static func json(_ status: Int, _ text: String) -> HTTPResponse {
    HTTPResponse(
      status: status, fields: [("Content-Type", "application/json")], body: Array(text.utf8))
  }

  /// The status line and header fields, CRLF-terminated, with `Content-Length` of the whole
  /// body and `Connection: close` (the server answers one request per connection).
  public func encodedHead() -> [UInt8] {
    var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
    for field in fields where !["content-length", "connection"].contains(field.name.lowercased()) {
      text += "\(field.name): \(field.value)\r\n"
    }
    text += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
    return Array(text.utf8)
  }

  /// The reason phrase of the statuses this project uses ("Status" otherwise).
  static func reason(_ status: Int) -> String {
    switch status {
    case 200: "OK"
    case 206: "Partial Content"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Method Not Allowed"
    case 413: "Content Too Large"
    case 416: "Range Not Satisfiable"
    case 431: "Request Header Fields Too Large"
    case 500: "Internal Server Error"
    case 501: "Not Implemented"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 505: "HTTP Version Not Supported"
    default: "Status"
    }
  }
}
