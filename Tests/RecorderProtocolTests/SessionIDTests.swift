import Foundation
import Testing

@testable import RecorderProtocol

/// `SessionID` must read, print and encode exactly as the bare `UInt32` it replaced: file
/// names, logs, CLI output, JSON reports and journal/manifest files depend on it.
@Suite("SessionID")
struct SessionIDTests {
  /// The session of the USB file `1775393534.ASR` (PROTOCOL.md §5).
  static let usbFile = SessionID(1_775_393_534)

  @Test("prints as the plain decimal number, alone and inside collections")
  func description() {
    #expect("\(Self.usbFile)" == "1775393534")
    #expect(String(describing: Self.usbFile) == "1775393534")
    #expect("\([SessionID(1), SessionID(UInt32.max)])" == "[1, 4294967295]")
    #expect(String(describing: Optional(Self.usbFile)) == "Optional(1775393534)")
  }

  @Test("encodes to JSON as a bare number and decodes back")
  func codableIsABareNumber() throws {
    struct Manifest: Codable, Equatable {
      var sessionId: SessionID
      var deleted: [SessionID]
    }
    let manifest = Manifest(sessionId: Self.usbFile, deleted: [0, 1, 4_294_967_295])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let json = String(decoding: try encoder.encode(manifest), as: UTF8.self)
    #expect(json == #"{"deleted":[0,1,4294967295],"sessionId":1775393534}"#)
    #expect(try JSONDecoder().decode(Manifest.self, from: Data(json.utf8)) == manifest)
  }

  @Test("decoding refuses what no u32 can hold")
  func decodingRefusesOutOfRange() {
    for text in ["-1", "4294967296", "1.5", #""1775393534""#, #"{"rawValue":1}"#] {
      #expect(throws: DecodingError.self, "\(text)") {
        try JSONDecoder().decode(SessionID.self, from: Data(text.utf8))
      }
    }
  }

  @Test("orders as its unix seconds: older recordings first")
  func ordering() {
    let ids: [SessionID] = [1_775_395_282, 0, 1_775_393_534, 4_294_967_295]
    #expect(ids.sorted().map(\.rawValue) == [0, 1_775_393_534, 1_775_395_282, 4_294_967_295])
    #expect(SessionID(1) < SessionID(2) && !(SessionID(2) < SessionID(2)))
    #expect(ids.max() == SessionID(UInt32.max))
  }

  @Test("a literal, init(_:) and init(rawValue:) are the same id")
  func construction() {
    let literal: SessionID = 1_775_393_534
    #expect(literal == Self.usbFile)
    #expect(SessionID(rawValue: 1_775_393_534) == Self.usbFile)
    #expect(Self.usbFile.rawValue == 1_775_393_534)
    #expect(Set([literal, Self.usbFile]).count == 1)
  }
}
