import Foundation
import TestSupport
import Testing

/// The README's Swift blocks compiled as an app compiles them: against the built modules,
/// outside the package, so only public API is in reach. A flow that names a `package`
/// declaration, or a call the README spells in a way that does not compile, fails here.
@Suite("README flows compile as an app's code (public API only)", .serialized, .blockingWaits)
struct ReadmeFlowsTypeCheckTests {
  /// The modules an app imports for the README's flows (the emulator and the test doubles
  /// for the blocks that run against them).
  static let imports = ["RecorderKit", "RecorderRemoteLink", "RecorderTesting", "RecorderEmulator"]

  /// What the blocks take as given, one parameter each; a block may redeclare one.
  static let givens = """
    token: DeviceToken, port: UInt16, joinPort: UInt16, root: String, serial: String,
    rawPath: String, dir: String, id: SessionID, jwt: String, central: any Central,
    recorders: Recorders, engine: SyncEngine, journal: Journal, session: DeviceSession,
    configuration: DeviceSession.Configuration
    """

  /// The C targets the imported modules' interfaces need (their module maps).
  static let clangModules = [
    "COpus", "CLame", "COgg", "CSQLite", "CCrypto", "COpusShim", "CCurl", "CDBus",
  ]

  /// The fenced `swift` blocks of `markdown`, in order.
  static func swiftBlocks(_ markdown: String) -> [String] {
    var blocks: [String] = []
    var current: [Substring]?
    for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
      if current == nil, line.hasPrefix("```swift") {
        current = []
      } else if current != nil, line.hasPrefix("```") {
        blocks.append(current!.joined(separator: "\n"))
        current = nil
      } else {
        current?.append(line)
      }
    }
    return blocks
  }

  /// One source file: each block the body of an async throwing function over the givens.
  static func program(_ blocks: [String]) -> String {
    var text = imports.map { "import \($0)\n" }.joined()
    for (index, block) in blocks.enumerated() {
      text += "\nfunc readmeFlow\(index)(\(givens)) async throws {\n\(block)\n}\n"
    }
    return text
  }

  func typeCheck(_ source: String, check: AppleBindingTypeCheck) throws
    -> AppleBindingTypeCheck.Result
  {
    let file = check.directory.appendingPathComponent("ReadmeFlows.swift")
    try source.write(to: file, atomically: true, encoding: .utf8)
    return try check.typeCheck(
      module: "ReadmeApp", files: [file], clangModules: Self.clangModules, inPackage: false)
  }

  @Test("every Swift block of the README type-checks outside the package")
  func readmeBlocksCompile() throws {
    let readme = try String(
      contentsOf: AppleBindingTypeCheck.packageRoot.appendingPathComponent("README.md"),
      encoding: .utf8)
    let blocks = Self.swiftBlocks(readme)
    #expect(blocks.count >= 8, "the README's flows: \(blocks.count) Swift blocks")
    let check = try AppleBindingTypeCheck()
    defer { check.cleanUp() }
    let result = try typeCheck(Self.program(blocks), check: check)
    #expect(result.succeeded, "\(result.output)")
  }

  @Test("the check reaches no package declaration: a flow naming one fails")
  func packageDeclarationsAreOutOfReach() throws {
    let check = try AppleBindingTypeCheck()
    defer { check.cleanUp() }
    // `RetryPolicy.seeded(_:)` is `package`: in the package it compiles, outside it does not.
    let block = "let jitter = RetryPolicy.seeded(1)\n_ = jitter"
    let outside = try typeCheck(Self.program([block]), check: check)
    #expect(!outside.succeeded)
    #expect(outside.output.contains("seeded"), "\(outside.output)")
  }
}
