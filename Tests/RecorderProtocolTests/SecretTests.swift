import Testing

@testable import RecorderProtocol

/// The handshake token is a secret (PROTOCOL.md §8): it never reaches a description, a field
/// list or an error.
@Suite("Secrets stay out of text")
struct SecretTests {
  static let secret = "SeCrEtToKeN7f3a9SeCrEtToKeN7f3a9"

  /// Text forms a log line or a failed test might print.
  static func renderings(_ value: Any) -> [String] {
    var dumped = ""
    dump(value, to: &dumped)
    return [String(describing: value), String(reflecting: value), "\(value)", dumped]
  }

  static func leaks(_ text: String) -> Bool {
    // Any 8 characters of the token in a row would be a leak.
    let token = Array(secret)
    return (0...(token.count - 8)).contains { text.contains(String(token[$0..<$0 + 8])) }
  }

  @Test("DeviceToken's description and debugDescription redact the token")
  func deviceToken() throws {
    let token = try #require(DeviceToken(Self.secret))
    #expect(!Self.leaks(token.description))
    #expect(!Self.leaks(token.debugDescription))
    #expect(token.description.contains("redacted"))
    for text in Self.renderings(token) { #expect(!Self.leaks(text), "\(text)") }
    #expect(Mirror(reflecting: token).children.isEmpty, "reflection would show the bytes")
    #expect(token.revealed == Self.secret)
  }

  @Test("a HANDSHAKE request's description, fields and decoded form never show the token")
  func handshakeRequest() throws {
    let token = try #require(DeviceToken(Self.secret))
    let request = HandshakeRequest(
      token: token,
      secondStage: .init(deviceToken: [1, 2, 3, 4, 5, 6, 7, 8], name: Array("phone".utf8)))
    let message = PhoneMessage.handshake(request)
    for text in Self.renderings(request) + Self.renderings(message) {
      #expect(!Self.leaks(text), "\(text)")
    }
    for field in request.fields + message.fields {
      #expect(!Self.leaks("\(field)"), "\(field)")
    }
    #expect(request.fields.contains(Field("tokenLength", 32)))
    let frame = try Frame(decoding: message.encoded())
    let described = try frame.describe(direction: .phoneToDevice)
    #expect(!Self.leaks("\(described)"))
  }

  @Test("FrameError descriptions never contain the frame's bytes")
  func errors() {
    // A token frame cut short, a token with one bad byte, a frame of 300 bytes.
    let tokenBytes = Array(Self.secret.utf8)
    let inputs: [(Direction, [UInt8])] = [
      (.phoneToDevice, [0x01, 0x01, 0x00, 0x02, 0x00, 0x00] + tokenBytes.prefix(20)),
      (.phoneToDevice, [0x01, 0x01, 0x00, 0x02, 0x00, 0x00] + tokenBytes.dropLast() + [0x00]),
      (.deviceToPhone, [0x02] + Array(tokenBytes.prefix(8)) + [0xFF] + tokenBytes),
      (.deviceToPhone, [0x01, 0x6C, 0x00, 0xFF] + tokenBytes),
    ]
    for (direction, wire) in inputs {
      do {
        let frame = try Frame(decoding: wire)
        _ = try frame.describe(direction: direction)
        Issue.record("\(wire.count)-byte input decoded")
      } catch {
        #expect(!Self.leaks(error.description), "\(error.description)")
        #expect(!error.description.contains(wire.hexString))
        for text in Self.renderings(error) { #expect(!Self.leaks(text)) }
      }
    }
  }
}
