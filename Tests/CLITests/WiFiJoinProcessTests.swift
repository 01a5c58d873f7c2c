import Foundation
import TestSupport
import Testing

/// Issue 28 item 5 at the process level: `recorder sync --wifi` joins a second time while the
/// device's Wi-Fi session from its first join is alive, against both answers a device may
/// give to that join.
extension ProcessTests {
  /// One device answer to a join while its Wi-Fi session is alive.
  struct JoinWhileActive: Sendable, CustomTestStringConvertible {
    var label: String
    var options: [String]
    /// The device's counters afterwards: joins taken while active, joins refused.
    var takenWhileActive: Int
    var refused: Int

    var testDescription: String { label }
  }

  static let joinsWhileActive: [JoinWhileActive] = [
    JoinWhileActive(
      label: "taken as already joined (default)", options: [], takenWhileActive: 1, refused: 0),
    JoinWhileActive(
      label: "refused: a session is already active",
      options: ["--wifi-refuse-join-while-active"], takenWhileActive: 0, refused: 1),
  ]

  /// The join port loses the answer to the first join the device accepts: the device has
  /// connected to the phone's server and its session is alive, but the phone saw no `OK` and
  /// joins again. Either answer to that join must end in the same Wi-Fi sync.
  @Test(
    "sync --wifi joins again after an unanswered join: the device's live session serves it",
    arguments: joinsWhileActive)
  func syncJoinsAgainWhileTheSessionIsAlive(_ answer: JoinWhileActive) throws {
    let directory = try TemporaryDirectory("wifi-join-while-active")
    let emulator = try EmulatorProcess(
      in: directory, token: Self.token, minutes: [1, 0.5], timeScale: 50,
      extra: ["--hotspot-startup", "0", "--wifi-lose-join-answer", "1"] + answer.options)
    defer { emulator.stop() }
    let manifest = try emulator.manifest()
    let out = directory.file("out")
    let result = try syncWiFiToTheEnd(emulator, out: out, in: directory, label: "sync")
    try expectSyncedOverWiFi(result, manifest, out: out)
    // Written at each DELETE, so these are the counts after the joins.
    let after = try emulator.manifest()
    #expect(after.wifiJoinsWhileActive == answer.takenWhileActive, "\(result.stderr)")
    #expect(after.wifiJoinsRefused == answer.refused, "\(result.stderr)")
  }
}
