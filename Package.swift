// swift-tools-version:6.1
// RecorderKit: get recordings off Tinnotech-based BLE voice recorders (Plaud Note / NotePin).
// Layers and their allowed imports are in shared/DESIGN.md; the edges below are exactly those.

import Foundation
import PackageDescription

/// Opus, LAME and libogg: system libraries found with pkg-config (Linux, Homebrew on a Mac),
/// or on Apple platforms the static xcframeworks scripts/build-apple-xcframeworks.sh builds
/// into ./Frameworks from the upstream releases, once they are there (iOS has no pkg-config).
let appleFrameworks = ["COpus", "CLame", "COgg"].allSatisfy {
  FileManager.default.fileExists(atPath: Context.packageDirectory + "/Frameworks/\($0).xcframework")
}

func audioLibrary(_ name: String, pkgConfig: String, apt: String, brew: String) -> Target {
  appleFrameworks
    ? .binaryTarget(name: name, path: "Frameworks/\(name).xcframework")
    : .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt]), .brew([brew])])
}

/// TestSupport's bench imports the facade, which on Linux imports BlueZ's C module: every
/// target importing TestSupport needs that module map too.
let dbusOnLinux: Target.Dependency = .target(name: "CDBus", condition: .when(platforms: [.linux]))

let package = Package(
  name: "RecorderKit",
  platforms: [.macOS(.v13), .iOS(.v16)],
  products: [
    .library(name: "RecorderProtocol", targets: ["RecorderProtocol"]),
    .library(name: "HealthProfiles", targets: ["HealthProfiles"]),
    .library(name: "RecorderKit", targets: ["RecorderKit"]),
    .library(name: "RecorderTesting", targets: ["RecorderTesting"]),
    .library(name: "RecorderRemoteLink", targets: ["RecorderRemoteLink"]),
    .library(name: "RecorderEmulator", targets: ["RecorderEmulator"]),
    .library(name: "PlaudDeviceBasicSDK", targets: ["PlaudDeviceBasicSDK"]),
    .library(name: "PlaudBleSDK", targets: ["PlaudBleSDK"]),
    .library(name: "PlaudWiFiSDK", targets: ["PlaudWiFiSDK"]),
    .executable(name: "recorder", targets: ["recorder"]),
  ],
  // `recorder`'s process-level power-loss hook (`make test` turns it on): off by default, so a
  // `recorder` built for use links no test double.
  traits: [
    .trait(
      name: "PowerLossHook",
      description:
        "recorder sync honours RECORDER_TEST_POWER_LOSS_AFTER (RecorderTesting's PowerLossFileSystem)"
    )
  ],
  targets: [
    // C libraries from the system, found with pkg-config (installed by `make deps`).
    audioLibrary("COpus", pkgConfig: "opus", apt: "libopus-dev", brew: "opus"),
    audioLibrary("CLame", pkgConfig: "lame", apt: "libmp3lame-dev", brew: "lame"),
    audioLibrary("COgg", pkgConfig: "ogg", apt: "libogg-dev", brew: "libogg"),
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
    // libcurl: RecorderKit's HTTP transport on Linux (URLSession on Apple platforms).
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

    // The layers of shared/DESIGN.md, bottom up.
    .target(name: "RecorderProtocol"),
    .target(name: "HealthProfiles"),
    .target(name: "RecorderConcurrency"),
    .target(
      name: "RecorderCrypto",
      // libcrypto on Linux; CryptoKit (part of the OS) on Apple platforms.
      dependencies: [.target(name: "CCrypto", condition: .when(platforms: [.linux, .android]))]),
    .target(name: "RecorderBluetooth", dependencies: ["RecorderConcurrency"]),
    .target(name: "RecorderSockets", dependencies: ["RecorderConcurrency"]),
    .target(
      name: "RecorderWebSocket",
      dependencies: ["RecorderSockets", "RecorderCrypto", "RecorderConcurrency"]),
    .target(
      name: "RecorderRemoteLink",
      dependencies: [
        "RecorderProtocol", "RecorderBluetooth", "RecorderSockets", "RecorderConcurrency",
      ]),
    // BlueZ (issue 13): libdbus-1, the Linux `Central` over it, and its tests against a mock
    // bluetoothd (python3-dbusmock on a private dbus-daemon). Linux only: the CLI depends on it
    // with a platform condition and its sources compile to nothing elsewhere.
    .systemLibrary(
      name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
    .target(
      name: "RecorderBlueZ",
      dependencies: [
        .target(name: "CDBus", condition: .when(platforms: [.linux])), "RecorderBluetooth",
        "RecorderConcurrency", "RecorderProtocol",
      ]),
    .testTarget(
      name: "RecorderBlueZTests",
      dependencies: [
        "RecorderBlueZ", "RecorderBluetooth", "RecorderConcurrency", "RecorderProtocol",
        "RecorderRemoteLink", "TestSupport", dbusOnLinux,
      ]),
    // The one C file we own: non-variadic wrappers for opus_encoder_ctl (see its header).
    .target(name: "COpusShim", dependencies: ["COpus"]),
    .target(name: "RecorderAudio", dependencies: ["COpus", "COpusShim", "CLame", "COgg"]),
    .target(name: "RecorderStore", dependencies: ["CSQLite"]),
    .target(
      name: "RecorderKit",
      dependencies: [
        "RecorderProtocol", "HealthProfiles", "RecorderConcurrency", "RecorderCrypto",
        "RecorderBluetooth",
        "RecorderSockets", "RecorderWebSocket", "RecorderAudio", "RecorderStore",
        .target(name: "CCurl", condition: .when(platforms: [.linux])),
      ]),
    // Test doubles as a product (like NIOEmbedded): never part of RecorderKit's API.
    .target(
      name: "RecorderTesting",
      dependencies: [
        "RecorderKit", "RecorderProtocol", "RecorderConcurrency", "RecorderBluetooth",
        "RecorderRemoteLink", "RecorderCoreBluetooth",
      ]),
    .target(
      name: "RecorderEmulator",
      dependencies: [
        "RecorderProtocol", "HealthProfiles", "RecorderConcurrency", "RecorderCrypto",
        "RecorderBluetooth",
        "RecorderRemoteLink", "RecorderSockets", "RecorderWebSocket", "RecorderAudio",
      ]),
    // CoreBluetooth: the logic over a mirrored shape (tested on Linux), Apple bindings thin.
    .target(
      name: "RecorderCoreBluetooth", dependencies: ["RecorderBluetooth", "RecorderConcurrency"]),
    .testTarget(
      name: "ApplePlatformTests",
      dependencies: [
        "RecorderCoreBluetooth", "RecorderBluetooth", "RecorderConcurrency", "RecorderProtocol",
        "RecorderKit", "RecorderEmulator", "RecorderTesting", "RecorderStore", "HealthProfiles",
        "PlaudDeviceBasicSDK", "TestSupport", dbusOnLinux,
      ],
      exclude: ["StandIns"]),
    .target(
      name: "PlaudDeviceBasicSDK",
      dependencies: [
        "RecorderKit", "RecorderProtocol", "RecorderConcurrency", "RecorderCoreBluetooth",
        "RecorderCrypto",
        .target(name: "RecorderBlueZ", condition: .when(platforms: [.linux])),
      ]),
    // The vendor's two lower frameworks under their own names (shared/VENDOR-API.md): each
    // re-exports the one below it, so `import PlaudBleSDK` brings the facade's BleAgent,
    // BleDevice and BleFile, and `import PlaudWiFiSDK` brings both.
    .target(
      name: "PlaudBleSDK",
      dependencies: [
        "PlaudDeviceBasicSDK", "RecorderKit", "RecorderAudio", "RecorderCrypto",
        "RecorderConcurrency", "RecorderProtocol",
      ]),
    .target(
      name: "PlaudWiFiSDK",
      dependencies: ["PlaudBleSDK", "PlaudDeviceBasicSDK", "RecorderKit", "RecorderConcurrency"]),
    .executableTarget(
      name: "recorder",
      dependencies: [
        "RecorderKit", "RecorderEmulator", "RecorderRemoteLink", "RecorderAudio", "RecorderStore",
        "RecorderProtocol", "RecorderConcurrency", "HealthProfiles", "RecorderBluetooth",
        "RecorderCrypto",
        .target(name: "RecorderTesting", condition: .when(traits: ["PowerLossHook"])),
        .target(name: "RecorderBlueZ", condition: .when(platforms: [.linux])),
      ]),
    // The benchmarks (`make bench`): no product, so nothing shipped links them or the test
    // support they use; they live apart from Sources/.
    .executableTarget(
      name: "RecorderBench",
      dependencies: [
        "RecorderProtocol", "RecorderAudio", "RecorderKit", "RecorderEmulator",
        "RecorderRemoteLink", "RecorderStore", "RecorderTesting", "RecorderWebSocket",
        "RecorderSockets", "RecorderConcurrency",
        // The BlueZ section: the mock bluetoothd and flood peripheral of TestSupport.
        "RecorderBluetooth", "TestSupport", dbusOnLinux,
        .target(name: "RecorderBlueZ", condition: .when(platforms: [.linux])),
      ],
      path: "Benchmarks/RecorderBench"),

    // The one test bench (SDK and emulator wired together: Benches/) and the support the
    // test targets and the benchmarks share (seeded generators, mock BlueZ); no product.
    .target(
      name: "TestSupport",
      dependencies: [
        "RecorderConcurrency", "RecorderBluetooth", "RecorderSockets", "RecorderProtocol",
        "RecorderKit", "RecorderEmulator", "RecorderTesting", "RecorderStore", "RecorderAudio",
        "RecorderCrypto", "RecorderRemoteLink", "HealthProfiles", "PlaudDeviceBasicSDK",
        "RecorderCoreBluetooth", dbusOnLinux,
      ],
      path: "Tests/TestSupport"),
    .testTarget(
      name: "RecorderProtocolTests", dependencies: ["RecorderProtocol", "TestSupport", dbusOnLinux]),
    .testTarget(name: "HealthProfilesTests", dependencies: ["HealthProfiles"]),
    .testTarget(
      name: "RecorderStoreTests", dependencies: ["RecorderStore", "RecorderConcurrency"]),
    .testTarget(
      name: "PassiveTests",
      dependencies: [
        "RecorderKit", "RecorderEmulator", "HealthProfiles", "RecorderStore", "RecorderTesting",
        "RecorderRemoteLink", "RecorderBluetooth", "RecorderConcurrency", "RecorderProtocol",
        "TestSupport", dbusOnLinux,
      ]),
    .testTarget(
      name: "RecorderAudioTests",
      dependencies: [
        "RecorderAudio", "RecorderEmulator", "RecorderConcurrency", "TestSupport", dbusOnLinux,
      ]),
    .testTarget(
      name: "RecorderConcurrencyTests",
      dependencies: ["RecorderConcurrency", "TestSupport", dbusOnLinux]),
    .testTarget(
      name: "RecorderWebSocketTests",
      dependencies: [
        "RecorderWebSocket", "RecorderSockets", "RecorderConcurrency", "RecorderProtocol",
        "RecorderEmulator", "TestSupport", dbusOnLinux,
      ]),
    .testTarget(
      name: "RecorderRemoteLinkTests",
      dependencies: [
        "RecorderRemoteLink", "RecorderBluetooth", "RecorderSockets", "RecorderConcurrency",
        "RecorderProtocol", "TestSupport", dbusOnLinux,
      ]),
    .testTarget(
      name: "RecorderEmulatorTests",
      dependencies: [
        "RecorderEmulator", "RecorderProtocol", "RecorderAudio", "RecorderKit", "RecorderTesting",
        "RecorderRemoteLink", "RecorderBluetooth", "RecorderConcurrency", "RecorderWebSocket",
        "RecorderSockets", "TestSupport", dbusOnLinux,
      ]),
    .testTarget(
      name: "RecorderKitTests",
      dependencies: [
        "RecorderKit", "RecorderEmulator", "RecorderProtocol", "RecorderTesting", "TestSupport",
        dbusOnLinux,
        "RecorderRemoteLink", "RecorderBluetooth", "RecorderConcurrency", "RecorderWebSocket",
        "RecorderCrypto",
      ]),
    .testTarget(
      name: "RecorderCryptoTests", dependencies: ["RecorderCrypto", "TestSupport", dbusOnLinux]),
    .testTarget(
      name: "CLITests",
      dependencies: [
        "recorder", "RecorderAudio", "RecorderEmulator", "RecorderWebSocket", "TestSupport",
        dbusOnLinux,
        "PlaudDeviceBasicSDK",
        "RecorderRemoteLink", "RecorderConcurrency",
      ]),
    .testTarget(
      name: "PlaudDeviceBasicSDKTests",
      dependencies: [
        "PlaudDeviceBasicSDK", "PlaudBleSDK", "RecorderKit", "RecorderProtocol", "RecorderEmulator",
        "RecorderTesting", "RecorderRemoteLink", "RecorderConcurrency", "TestSupport", dbusOnLinux,
        .target(name: "RecorderBlueZ", condition: .when(platforms: [.linux])),
      ]),
    .testTarget(
      name: "PlaudBleSDKTests",
      dependencies: [
        "PlaudBleSDK", "PlaudWiFiSDK", "PlaudDeviceBasicSDK", "RecorderKit", "RecorderProtocol",
        "RecorderEmulator", "RecorderAudio", "RecorderCrypto", "RecorderConcurrency",
        "TestSupport", dbusOnLinux,
      ],
      exclude: ["StandIns"]),
  ]
)
