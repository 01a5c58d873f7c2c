import Foundation

/// Type-checks Apple-only binding files on Linux: compiles stand-in modules (named like
/// Apple's frameworks, declarations only) from `Tests/ApplePlatformTests/StandIns`
/// into a temporary directory, then runs `swiftc -typecheck` over a module's sources with
/// those stand-ins and the package's built modules on the import path. `#if canImport(…)`
/// is then true, so the binding code is checked against the documented signatures.
struct AppleBindingTypeCheck {
  /// What `swiftc` said, and whether it succeeded.
  struct Result {
    var succeeded: Bool
    var output: String
  }

  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("apple-standins-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func cleanUp() { try? FileManager.default.removeItem(at: directory) }

  /// The built modules of this package: next to the test binary, in `Modules`.
  static var builtModules: URL {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = binary.deletingLastPathComponent()
    while directory.path != "/" {
      let modules = directory.appendingPathComponent("Modules")
      if FileManager.default.fileExists(atPath: modules.path) { return modules }
      directory = directory.deletingLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/Modules")
  }

  /// Compiles the stand-in module `name` (from `StandIns/<name>.swift`).
  func buildStandIn(_ name: String) throws -> Result {
    let source = Self.packageRoot.appendingPathComponent(
      "Tests/ApplePlatformTests/StandIns/\(name).swift")
    return try Self.swiftc([
      "-emit-module", "-parse-as-library", "-swift-version", "6", "-module-name", name,
      "-I", directory.path, source.path, "-emit-module-path",
      directory.appendingPathComponent("\(name).swiftmodule").path,
    ])
  }

  /// Type-checks `files` as module `module`, importing the stand-ins and the built modules.
  /// `clangModules` are the package's C targets the imported modules need (their module maps).
  func typeCheck(module: String, files: [URL], clangModules: [String] = []) throws -> Result {
    var arguments = [
      "-typecheck", "-swift-version", "6", "-module-name", module, "-I", directory.path, "-I",
      Self.builtModules.path,
    ]
    for clang in clangModules {
      let map = Self.packageRoot.appendingPathComponent("Sources/\(clang)/module.modulemap")
      let include = Self.packageRoot.appendingPathComponent("Sources/\(clang)/include")
      if FileManager.default.fileExists(atPath: map.path) {
        arguments += ["-Xcc", "-fmodule-map-file=\(map.path)"]
      } else {
        arguments += ["-I", include.path]
      }
    }
    return try Self.swiftc(arguments + files.map(\.path))
  }

  /// The Swift files of a source directory of the package.
  static func sources(_ directory: String) throws -> [URL] {
    let url = packageRoot.appendingPathComponent(directory)
    let files = try FileManager.default.subpathsOfDirectory(atPath: url.path)
      .filter { $0.hasSuffix(".swift") }.map { url.appendingPathComponent($0) }
    return files.sorted { $0.path < $1.path }
  }

  static func swiftc(_ arguments: [String]) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swiftc"] + arguments
    let log = FileManager.default.temporaryDirectory
      .appendingPathComponent("swiftc-\(UUID().uuidString).log")
    FileManager.default.createFile(atPath: log.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: log) }
    let handle = try FileHandle(forWritingTo: log)
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    process.waitUntilExit()
    try handle.close()
    let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    return Result(succeeded: process.terminationStatus == 0, output: output)
  }
}
