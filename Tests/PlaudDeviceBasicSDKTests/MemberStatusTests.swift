import Foundation
import Testing

/// The migration doc's status of each member, checked by calling the member: a **works** /
/// **works differently** row's check sees its real effect against the emulator, a **not
/// supported** row's check sees its loud failure (``MemberStatusRegistry``). Every not
/// supported row must have a check; the rows still without one are printed, by name.
@Suite("Facade: the migration doc's statuses, each checked by calling the member")
struct MemberStatusTests {
  @Test("every check names a doc row once; every not-supported row has a check; the coverage")
  func coverage() throws {
    let rows = try MigrationDocTests.documentedRows()
    let status = Dictionary(
      rows.map { ("\($0.type) \($0.member)", $0.status) }, uniquingKeysWith: { first, _ in first })
    let keys = MemberStatusRegistry.all.map(\.key)
    let duplicates = Dictionary(grouping: keys, by: { $0 }).filter { $0.value.count > 1 }.keys
    #expect(duplicates.isEmpty, "rows with two checks: \(duplicates.sorted())")
    let unknown = keys.filter { status[$0] == nil }
    #expect(unknown.isEmpty, "checks naming no doc row: \(unknown)")

    let checked = Set(keys)
    var report = ["the migration doc's statuses, checked by calling the member:"]
    var unchecked: [String: [String]] = [:]
    for name in ["works", "works differently", "not supported"] {
      let ofStatus = rows.filter { $0.status == name }.map { "\($0.type) \($0.member)" }
      let missing = ofStatus.filter { !checked.contains($0) }
      unchecked[name] = missing
      report.append(
        "  \(name): \(ofStatus.count - missing.count) of \(ofStatus.count) rows checked")
    }
    let all = rows.count
    report.append("  in all: \(checked.count) of \(all) rows checked")
    for name in ["works", "works differently"] {
      for row in unchecked[name] ?? [] { report.append("  no check yet [\(name)]: \(row)") }
    }
    print(report.joined(separator: "\n"))
    let missing = unchecked["not supported"] ?? []
    #expect(missing.isEmpty, "not-supported rows without a check that calls them: \(missing)")
  }

  @Test("on a connected emulated recorder, each row's check sees what the doc says")
  func onTheDevice() async throws { try await MemberStatusRegistry.run(.device) }

  @Test("over Wi-Fi Fast Transfer, each row's check sees what the doc says")
  func overWiFi() async throws { try await MemberStatusRegistry.run(.wifi) }

  @Test("with the cloud emulator publishing firmware, each row's check sees what the doc says")
  func withTheCloud() async throws { try await MemberStatusRegistry.run(.cloud) }

  @Test("without a device, each row's check sees what the doc says")
  func withoutADevice() async throws { try await MemberStatusRegistry.run(.offline) }
}
