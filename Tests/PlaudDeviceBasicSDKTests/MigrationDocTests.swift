import Foundation
import Testing

/// docs/migrating-from-vendor-sdk.md lists every vendor member in scope with its status: the
/// table must name exactly the checklist's members (``VendorChecklist``, the list the
/// vendor-shape tests reference), each once, each with a known status.
@Suite("Facade: the migration doc's member table")
struct MigrationDocTests {
  static let statuses: Set<String> = ["works", "works differently", "not supported"]

  /// The rows of the doc's "Every vendor member and its status" table.
  static func documentedRows() throws -> [(type: String, member: String, status: String)] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let text = try String(
      contentsOf: root.appendingPathComponent("docs/migrating-from-vendor-sdk.md"),
      encoding: .utf8)
    let heading = "## Every vendor member and its status"
    let section = try #require(text.range(of: heading)).upperBound
    var rows: [(type: String, member: String, status: String)] = []
    for line in text[section...].split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("## ") { break }
      guard line.hasPrefix("| "), !line.hasPrefix("| type |"), !line.hasPrefix("|---") else {
        continue
      }
      let cells = line.dropFirst(2).dropLast(2).components(separatedBy: " | ")
      try #require(cells.count == 4, "a table row has 4 cells: \(line)")
      rows.append((cells[0], cells[1], cells[2]))
    }
    return rows
  }

  @Test("the table names every checklist member once, with a known status")
  func tableMatchesTheChecklist() throws {
    let documented = try Self.documentedRows()
    let listed = VendorChecklist.rows.map { "\($0.type) \($0.member)" }
    #expect(VendorChecklist.rows.count == 289)
    let rows = documented.map { "\($0.type) \($0.member)" }
    let missing = listed.filter { !rows.contains($0) }
    let extra = rows.filter { !listed.contains($0) }
    #expect(missing.isEmpty, "members the doc does not list: \(missing)")
    #expect(extra.isEmpty, "rows naming no checklist member: \(extra)")
    #expect(rows.count == listed.count, "each member once")
    for row in documented where !Self.statuses.contains(row.status) {
      Issue.record("unknown status '\(row.status)' for \(row.member)")
    }
  }
}
