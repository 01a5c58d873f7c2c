// swift-tools-version:6.0
// RecorderKit: get recordings off Tinnotech-based BLE voice recorders (Plaud Note / NotePin).
// Layers and their allowed imports are in shared/DESIGN.md; the edges below are exactly those.

import PackageDescription

let package = Package(
  name: "RecorderKit",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "RecorderProtocol", targets: ["RecorderProtocol"]),
    .library(name: "RecorderKit", targets: ["RecorderKit"]),
    .library(name: "RecorderEmulator", targets: ["RecorderEmulator"]),
    .library(name: "PlaudDeviceBasicSDK", targets: ["PlaudDeviceBasicSDK"]),
    .executable(name: "recorder", targets: ["recorder"]),
    .executable(name: "recorder-bench", targets: ["RecorderBench"]),
  ],
  targets: [
    // C libraries from the system, found with pkg-config (installed by `make deps`).
    .systemLibrary(
      name: "COpus", pkgConfig: "opus",
      providers: [.apt(["libopus-dev"]), .brew(["opus"])]),
    .systemLibrary(
      name: "CLame", pkgConfig: "lame",
      providers: [.apt(["libmp3lame-dev"]), .brew(["lame"])]),
    .systemLibrary(
      name: "COgg", pkgConfig: "ogg",
      providers: [.apt(["libogg-dev"]), .brew(["libogg"])]),
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),

    // The layers of shared/DESIGN.md.
    .target(name: "RecorderProtocol"),
    // The one C file we own: non-variadic wrappers for opus_encoder_ctl (see its header).
    .target(name: "COpusShim", dependencies: ["COpus"]),
    .target(name: "RecorderAudio", dependencies: ["COpus", "COpusShim", "CLame", "COgg"]),
    .target(name: "RecorderStore", dependencies: ["CSQLite"]),
    .target(name: "RecorderLink", dependencies: ["RecorderProtocol", "CCrypto"]),
    .target(
      name: "RecorderKit",
      dependencies: [
        "RecorderProtocol", "RecorderLink", "RecorderAudio", "RecorderStore", "CCrypto",
      ]),
    .target(
      name: "RecorderEmulator",
      dependencies: ["RecorderProtocol", "RecorderLink", "RecorderAudio", "CCrypto"]),
    .target(name: "PlaudDeviceBasicSDK", dependencies: ["RecorderKit"]),
    .executableTarget(
      name: "recorder", dependencies: ["RecorderKit", "RecorderEmulator", "RecorderAudio"]),
    .executableTarget(
      name: "RecorderBench",
      dependencies: [
        "RecorderProtocol", "RecorderAudio", "RecorderKit", "RecorderEmulator", "RecorderLink",
        "RecorderStore",
      ]),

    // Seeded generators shared by the test targets (not shipped in any product).
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    .testTarget(name: "RecorderProtocolTests", dependencies: ["RecorderProtocol", "TestSupport"]),
    .testTarget(name: "RecorderStoreTests", dependencies: ["RecorderStore"]),
    .testTarget(name: "RecorderAudioTests", dependencies: ["RecorderAudio"]),
    .testTarget(
      name: "RecorderLinkTests", dependencies: ["RecorderLink", "RecorderProtocol", "TestSupport"]),
    .testTarget(
      name: "RecorderEmulatorTests",
      dependencies: [
        "RecorderEmulator", "RecorderProtocol", "RecorderLink", "RecorderAudio", "RecorderKit",
      ]),
    .testTarget(
      name: "RecorderKitTests",
      dependencies: [
        "RecorderKit", "RecorderEmulator", "RecorderProtocol", "RecorderLink", "TestSupport",
      ]),
    .testTarget(name: "CLITests", dependencies: ["recorder", "RecorderAudio"]),
    .testTarget(
      name: "PlaudDeviceBasicSDKTests",
      dependencies: ["PlaudDeviceBasicSDK", "RecorderKit", "RecorderEmulator", "RecorderLink"]),
  ]
)
