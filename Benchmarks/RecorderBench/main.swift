// RecorderBench: benchmarks print figures; they never fail a test run (DESIGN.md).
//
// USAGE: RecorderBench [audio|sync|wifi|ota|cloud|scale|journal|battery|export-policy|first-byte|bluez|all] [more sections]
//        (wifi also takes --megabytes N and --once)
// Each section lives in its own file and registers here; `all` (the default) runs them all.
// Hidden helpers used by the sections themselves (child processes for peak-RSS figures):
//   RecorderBench audio-export-child INPUT OUTPUT FORMAT CHANNELS
//   RecorderBench audio-generate PATH SECONDS CHANNELS [SEED]
//   RecorderBench wifi-sender tcp|ws PORT BYTES   (the sending side of the Wi-Fi figures)
//   RecorderBench bluez-flood-server              (the sender of the BlueZ figures, Linux)

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The BlueZ section needs BlueZ (Linux).
#if os(Linux)
  let bluezSections: [(name: String, run: () throws -> Void)] = [("bluez", BlueZBenchmarks.run)]
  let bluezHelper = BlueZBenchmarks.handleHelper
#else
  let bluezSections: [(name: String, run: () throws -> Void)] = []
  let bluezHelper: ([String]) -> Bool = { _ in false }
#endif

/// The benchmark sections, in the order `all` runs them.
let sections: [(name: String, run: () throws -> Void)] =
  [
    ("audio", AudioBenchmarks.run),
    ("sync", SyncBenchmarks.run),
    ("wifi", WiFiBenchmarks.run),
    ("scale", ScaleBenchmarks.run),
    ("journal", JournalBenchmarks.run),
    ("battery", BatteryBenchmarks.run),
    ("export-policy", ExportPolicyBenchmarks.run),
    ("first-byte", FirstByteBenchmarks.run),
    ("ota", OTABenchmarks.run),
    ("cloud", CloudBenchmarks.run),
  ]
  + bluezSections

let arguments = Array(CommandLine.arguments.dropFirst())
let word = arguments.first ?? "all"
do {
  if AudioBenchmarks.handleHelper(arguments) || WiFiBenchmarks.handleHelper(arguments)
    || bluezHelper(arguments)
  {
    exit(0)
  } else if word == "all" {
    for section in sections { try section.run() }
  } else if let section = sections.first(where: { $0.name == word }) {
    try section.run()
    // Several section names run those sections, in the order given, in one process.
    for name in arguments.dropFirst() {
      guard let next = sections.first(where: { $0.name == name }) else { break }
      try next.run()
    }
  } else {
    print("USAGE: RecorderBench [\((sections.map(\.name) + ["all"]).joined(separator: "|"))]")
    exit(64)
  }
} catch {
  print("benchmark failed: \(error)")
  exit(1)
}
