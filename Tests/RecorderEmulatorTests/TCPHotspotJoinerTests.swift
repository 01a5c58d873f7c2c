import RecorderKit
import RecorderRemoteLink
import RecorderSockets
import RecorderTesting
import Testing

/// `TCPHotspotJoiner`'s one rule beyond the exchange: after a join whose answer never came,
/// "a Wi-Fi session is already active" is the device saying that join took.
@Suite("TCPHotspotJoiner")
struct TCPHotspotJoinerTests {
  /// A join port that answers the joins it gets with `answers`, in order (nil: closes
  /// without answering once it read the request).
  static func scriptedJoinPort(_ answers: [String?]) throws -> (
    SocketListener, Task<Void, any Error>
  ) {
    let listener = try SocketListener(host: "127.0.0.1", port: 0)
    let task = Task {
      for answer in answers {
        let connection = try await listener.accept()
        _ = try await connection.read(upTo: HotspotJoinRequest.maximumLineLength)
        if let answer { try await connection.write(Array("\(answer)\n".utf8)) }
        connection.close()
      }
    }
    return (listener, task)
  }

  static let hotspot = DeviceHotspot(ssid: "PLAUD0123", password: "90123456")
  static let busy = "ERR \(HotspotJoinRequest.sessionAlreadyActive)"

  @Test(
    "which joins count as joined",
    arguments: [
      // The answer lost, then the device is busy with that join's session: joined.
      ([nil, busy], [false, true]),
      // Busy without a join of ours in doubt: a refusal.
      ([busy], [false]),
      // A definite answer in between settles the doubt: busy is a refusal again.
      ([nil, "ERR the hotspot is not ready yet", busy], [false, false, false]),
      // An answered join settles it too.
      ([nil, "OK", busy], [false, true, false]),
    ] as [([String?], [Bool])])
  func alreadyActiveAfterAnUnansweredJoin(answers: [String?], joined: [Bool]) async throws {
    let (listener, port) = try Self.scriptedJoinPort(answers)
    defer { listener.close() }
    let joiner = TCPHotspotJoiner(port: listener.port)
    var outcomes: [Bool] = []
    for _ in answers {
      outcomes.append((try? await joiner.join(Self.hotspot, serverPort: 9000)) != nil)
    }
    #expect(outcomes == joined)
    try await port.value
  }
}
