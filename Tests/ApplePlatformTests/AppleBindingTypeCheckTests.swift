import Foundation
import TestSupport
import Testing

/// The Apple-only binding files, type-checked here against stand-in frameworks, so a
/// misspelt selector or a wrong delegate signature fails on Linux, not first on a Mac.
@Suite("Apple-only bindings type-check against stand-in frameworks", .serialized, .blockingWaits)
struct AppleBindingTypeCheckTests {
  @Test("RecorderCoreBluetooth's CoreBluetooth binding")
  func coreBluetooth() throws {
    let check = try AppleBindingTypeCheck()
    defer { check.cleanUp() }
    let standIn = try check.buildStandIn("CoreBluetooth")
    #expect(standIn.succeeded, "\(standIn.output)")
    let files = try AppleBindingTypeCheck.sources("Sources/RecorderCoreBluetooth")
    #expect(files.contains { $0.lastPathComponent == "SystemCentralManager.swift" })
    let result = try check.typeCheck(module: "RecorderCoreBluetooth", files: files)
    #expect(result.succeeded, "\(result.output)")
    #expect(!result.output.contains("warning:"), "\(result.output)")
  }

  @Test("RecorderCrypto as built on Apple platforms: CryptoKit AEADs and digests, Security RSA")
  func cryptoEngine() throws {
    let check = try AppleBindingTypeCheck()
    defer { check.cleanUp() }
    for framework in ["CryptoKit", "Security"] {
      let standIn = try check.buildStandIn(framework)
      #expect(standIn.succeeded, "\(framework): \(standIn.output)")
    }
    let files = try AppleBindingTypeCheck.sources("Sources/RecorderCrypto")
    #expect(files.contains { $0.lastPathComponent == "AppleCryptoEngine.swift" })
    // With a CryptoKit to import, the Apple engine is in and the libcrypto one is out.
    let result = try check.typeCheck(module: "RecorderCrypto", files: files)
    #expect(result.succeeded, "\(result.output)")
    #expect(!result.output.contains("warning:"), "\(result.output)")
  }

  /// Package.swift on a Mac once scripts/build-apple-xcframeworks.sh has run: Opus, LAME and
  /// libogg become binary targets; without the frameworks they stay system libraries.
  @Test("the manifest takes the audio xcframeworks when ./Frameworks has them")
  func manifestUsesXCFrameworks() throws {
    let check = try AppleBindingTypeCheck()
    defer { check.cleanUp() }
    let manifest = AppleBindingTypeCheck.packageRoot.appendingPathComponent("Package.swift")
    try FileManager.default.copyItem(
      at: manifest, to: check.directory.appendingPathComponent("Package.swift"))
    func audioTargets() throws -> [String: String] {
      let dump = try AppleBindingTypeCheck.run(
        "swift",
        [
          "package", "--package-path", check.directory.path, "--manifest-cache", "none",
          "dump-package",
        ])
      let json = try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any]
      let targets = json?["targets"] as? [[String: Any]] ?? []
      var types: [String: String] = [:]
      for target in targets {
        guard let name = target["name"] as? String, ["COpus", "CLame", "COgg"].contains(name)
        else { continue }
        types[name] = target["type"] as? String
      }
      return types
    }
    #expect(try audioTargets() == ["COpus": "system", "CLame": "system", "COgg": "system"])
    // All three or none: a half-built Frameworks folder keeps the system libraries.
    for (index, name) in ["COpus", "CLame", "COgg"].enumerated() {
      #expect(
        try audioTargets().values.allSatisfy { $0 == "system" }, "\(index) of 3 frameworks there")
      try FileManager.default.createDirectory(
        at: check.directory.appendingPathComponent("Frameworks/\(name).xcframework"),
        withIntermediateDirectories: true)
    }
    #expect(try audioTargets() == ["COpus": "binary", "CLame": "binary", "COgg": "binary"])
  }

  @Test("a misspelt delegate method in a binding fails the check")
  func misspeltDelegateFails() throws {
    let check = try AppleBindingTypeCheck()
    defer { check.cleanUp() }
    _ = try check.buildStandIn("CoreBluetooth")
    var files = try AppleBindingTypeCheck.sources("Sources/RecorderCoreBluetooth")
    let delegate = try #require(
      files.firstIndex { $0.lastPathComponent == "SystemCentralManager+Delegate.swift" })
    let text = try String(contentsOf: files[delegate], encoding: .utf8)
      .replacingOccurrences(of: "toSendWriteWithoutResponse", with: "toSendWriteWithoutRespons")
    let misspelt = check.directory.appendingPathComponent("SystemCentralManager+Delegate.swift")
    try text.write(to: misspelt, atomically: true, encoding: .utf8)
    files[delegate] = misspelt
    let result = try check.typeCheck(module: "RecorderCoreBluetooth", files: files)
    #expect(!result.succeeded)
    #expect(result.output.contains("CBPeripheralDelegate"))
  }

  @Test("the facade's platform bindings: hotspot, beacons, background time, Keychain")
  func platformServices() throws {
    let check = try AppleBindingTypeCheck()
    defer { check.cleanUp() }
    for framework in [
      "CoreBluetooth", "NetworkExtension", "CoreLocation", "UIKit", "BackgroundTasks", "Security",
    ] {
      let standIn = try check.buildStandIn(framework)
      #expect(standIn.succeeded, "\(framework): \(standIn.output)")
    }
    // RecorderCoreBluetooth as built on Apple platforms (with its CoreBluetooth binding).
    let coreBluetooth = try check.emitModule(
      "RecorderCoreBluetooth", files: AppleBindingTypeCheck.sources("Sources/RecorderCoreBluetooth")
    )
    #expect(coreBluetooth.succeeded, "\(coreBluetooth.output)")
    // The whole facade module: its Apple default wiring uses the facade's own types.
    let files = try AppleBindingTypeCheck.sources("Sources/PlaudDeviceBasicSDK")
    #expect(files.filter { $0.path.contains("/Apple/") }.count >= 5)
    let result = try check.typeCheck(
      module: "PlaudDeviceBasicSDK", files: files,
      clangModules: [
        "COpus", "CLame", "COgg", "CSQLite", "CCrypto", "COpusShim", "CCurl",
      ])
    #expect(result.succeeded, "\(result.output)")
    #expect(!result.output.contains("warning:"), "\(result.output)")
  }
}
