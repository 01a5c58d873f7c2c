import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `recorder sync|ls --device usb:…` against a volume `recorder emulate usb-volume` wrote:
/// the USB transport through the real binary, killed at seeded moments.
@Suite("recorder sync --device usb against an emulated volume", .serialized, .blockingWaits)
struct USBProcessTests {
  static let serial = "888317426119251000"
  /// `SN:` and the serial, inside the pad chunk (payload at 0x2C) [device].
  static let serialRegion = 0x2C..<(0x2C + 3 + 18)

  /// One pair as the emulator wrote it, read before any sync touched it.
  struct Pair {
    var id: Int64
    var wavPath: String
    var asrPath: String
    var wav: [UInt8]
    var asr: [UInt8]
    var onVolume: Bool {
      FileManager.default.fileExists(atPath: wavPath)
        || FileManager.default.fileExists(atPath: asrPath)
    }
    var whollyOnVolume: Bool {
      FileManager.default.contents(atPath: wavPath).map(Array.init) == wav
        && FileManager.default.contents(atPath: asrPath).map(Array.init) == asr
    }
  }

  /// Writes a volume with `arguments` and reads back its pairs.
  static func volume(_ directory: TemporaryDirectory, _ path: String, _ arguments: [String]) throws
    -> [Pair]
  {
    let made = try RecorderProcess.run(
      ["emulate", "usb-volume", path, "--serial", serial] + arguments, in: directory,
      label: "volume")
    try #require(made.status == 0, "emulate usb-volume: \(made.stderr)")
    return try made.stdout.split(separator: "\n").map { line in
      let fields = line.split(separator: "\t").map(String.init)
      try #require(fields.count == 3, "line \(line)")
      return Pair(
        id: try #require(Int64(fields[0])), wavPath: fields[1], asrPath: fields[2],
        wav: Array(try #require(FileManager.default.contents(atPath: fields[1]))),
        asr: Array(try #require(FileManager.default.contents(atPath: fields[2]))))
    }
  }

  /// `copy` is `original` with exactly the serial region zeroed.
  static func isScrubbed(_ copy: [UInt8]?, of original: [UInt8]) -> Bool {
    guard let copy, copy.count == original.count else { return false }
    return copy[..<serialRegion.lowerBound] == original[..<serialRegion.lowerBound]
      && copy[serialRegion].allSatisfy { $0 == 0 }
      && copy[serialRegion.upperBound...] == original[serialRegion.upperBound...]
  }

  static func bytes(_ path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map(Array.init)
  }

  /// After any kill: a pair that left the volume (either file) has its raw copy (the ASR's
  /// bytes), its scrubbed WAV copy, its export and a journal row past `stored`; every file
  /// under a final name is whole.
  static func expectNothingDeletedEarly(_ pairs: [Pair], out: String, context: String) throws {
    let journal = out + "/journal.sqlite"
    // A kill between two of the journal's migrations (each its own transaction) leaves it
    // without the later tables: a table not there yet holds nothing, and the next run
    // migrates on.
    let tables = try journalTables(journal)
    let stages = tables.contains("recordings") ? try journalStages(journal) : [:]
    let safe: Set<String> = ["stored", "exported", "deletedFromDevice"]
    // Which recordings the journal holds a WAV copy and an mp3 export for.
    let journaled: (String) throws -> Set<Int64> = { format in
      guard tables.contains("exports") else { return [] }
      return Set(
        try sqlite(
          journal, "SELECT session_id FROM exports WHERE format = '\(format)'",
          options: ["-readonly"]
        ).split(separator: "\n").compactMap { Int64($0) })
    }
    let wavCopies = try journaled("usb-wav")
    let mp3Exports = try journaled("mp3")
    let device = out + "/" + serial
    for pair in pairs {
      let raw = bytes(device + "/\(pair.id).opus-raw")
      let wav = bytes(device + "/\(pair.id).wav")
      let export = out + "/exports/\(serial)-\(pair.id).mp3"
      if !pair.whollyOnVolume {
        #expect(raw == pair.asr, "\(context): \(pair.id) left the volume without its raw copy")
        #expect(isScrubbed(wav, of: pair.wav), "\(context): \(pair.id) left without its WAV copy")
        #expect(
          FileManager.default.fileExists(atPath: export),
          "\(context): \(pair.id) left the volume without its export")
        #expect(
          wavCopies.contains(pair.id) && mp3Exports.contains(pair.id),
          "\(context): \(pair.id) left the volume before its WAV copy and export were journaled")
        #expect(
          safe.contains(stages[pair.id] ?? "none"),
          "\(context): \(pair.id) left the volume, journal says \(stages[pair.id] ?? "nothing")")
      }
      if let raw { #expect(raw == pair.asr, "\(context): \(pair.id).opus-raw is not the ASR") }
      if let wav {
        #expect(isScrubbed(wav, of: pair.wav), "\(context): \(pair.id).wav is not the scrubbed WAV")
      }
    }
  }

  @Test(
    "kill test: seeded SIGKILLs of recorder sync --device usb, then exactly once, scrubbed, never deleted early; a damaged pair given up"
  )
  func killTest() throws {
    let seed =
      ProcessInfo.processInfo.environment["KILL_TEST_SEED"].flatMap { UInt64($0) }
      ?? UInt64(Date().timeIntervalSince1970)
    print("usb kill test seed: \(seed) (rerun with KILL_TEST_SEED=\(seed))")
    var random = SplitMix64(seed: seed)
    let directory = try TemporaryDirectory("usb-kill")
    let volume = directory.file("PLAUD_NOTE")
    let damaged = 5
    let pairs = try Self.volume(
      directory, volume,
      [
        "--recordings", "20", "--seconds", "4", "--seed", "\(seed % 1000 + 1)", "--damage",
        "\(damaged):asr-partial-frame",
      ])
    let good = pairs.enumerated().filter { $0.offset != damaged }.map(\.element)
    let out = directory.file("out")
    let sync = [
      "sync", "--device", "usb:" + volume, "--out", out, "--format", "mp3", "--scrub-serial",
      "--json",
    ]
    var kills = 0
    var run = 0
    while kills < 15 {
      run += 1
      // One kill in five lands in start-up (0-30 ms after launch); the others are timed by
      // the sync's own progress (each stderr line a step: a transfer, a store, a copy, an
      // export, a delete), 0-6 lines past the LIST, then 0-5 ms more, so kills spread over
      // every step and each run moves only a little.
      let early = Double.random(in: 0...1, using: &random) < 0.2
      let steps = Int.random(in: 0...6, using: &random)
      let delay =
        early
        ? Double.random(in: 0...0.03, using: &random) : Double.random(in: 0...0.005, using: &random)
      let child = try RecorderProcess(sync, in: directory, label: "kill-\(run)")
      if !early {
        waitUntil(timeout: .seconds(30)) {
          let text = child.stderr
          guard let list = text.range(of: "device lists") else { return !child.process.isRunning }
          return text[list.upperBound...].filter { $0 == "\n" }.count - 1 >= steps
            || !child.process.isRunning
        }
      }
      if waitUntil(timeout: .milliseconds(Int64(delay * 1000)), { !child.process.isRunning }) {
        let status = child.wait(timeout: .seconds(10))
        #expect(status == 3, "seed \(seed) run \(run): \(child.stderr)")
        break
      }
      child.kill()
      kills += 1
      let gone = pairs.filter { !$0.whollyOnVolume }.count
      print(
        "usb kill \(kills): run \(run), "
          + (early
            ? "\(Int(delay * 1000)) ms after start" : "\(steps) steps + \(Int(delay * 1000)) ms")
          + ", \(gone) pairs gone")
      try Self.expectNothingDeletedEarly(pairs, out: out, context: "seed \(seed) run \(run)")
    }
    let final = try RecorderProcess.run(sync, in: directory, label: "final")
    #expect(final.status == 3, "seed \(seed): \(final.stderr)")
    try Self.expectNothingDeletedEarly(pairs, out: out, context: "seed \(seed) final")
    // Every good pair exactly once: gone from the volume, one export each, nothing else.
    for pair in good {
      #expect(!pair.onVolume, "seed \(seed): \(pair.id) is still on the volume")
    }
    #expect(pairs[damaged].whollyOnVolume, "seed \(seed): the damaged pair was touched")
    let exports = try FileManager.default.contentsOfDirectory(atPath: out + "/exports").sorted()
    #expect(exports == good.map { "\(Self.serial)-\($0.id).mp3" }.sorted(), "seed \(seed)")
    let json = try jsonArray(final.stdout)
    let given = json.filter { !($0["givenUp"] is NSNull) }
    #expect(given.compactMap { int64($0["sessionId"]) } == [pairs[damaged].id], "seed \(seed)")
    #expect((given.first?["givenUp"] as? String)?.contains("80-byte frames") == true)
    print("usb kill test: \(kills) kills in \(run) runs, seed \(seed)")
  }

  @Test("--keep-on-device keeps every pair; the WAV copies are the volume's bytes unscrubbed")
  func keepOnDevice() throws {
    let directory = try TemporaryDirectory("usb-keep")
    let volume = directory.file("vol")
    let pairs = try Self.volume(directory, volume, ["--recordings", "3", "--seconds", "1"])
    let out = directory.file("out")
    let result = try RecorderProcess.run(
      ["sync", "--device", "usb:" + volume, "--out", out, "--keep-on-device", "--format", "opus"],
      in: directory, label: "keep")
    #expect(result.status == 0, "\(result.stderr)")
    for pair in pairs {
      #expect(pair.whollyOnVolume)
      #expect(Self.bytes(out + "/\(Self.serial)/\(pair.id).wav") == pair.wav)
      #expect(
        FileManager.default.fileExists(atPath: out + "/exports/\(Self.serial)-\(pair.id).opus"))
    }
  }

  /// Runs an mtools command on `image` to its end; its stdout.
  static func mtools(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(["MTOOLS_SKIP_CHECK": "1"]) {
      $1
    }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    try #require(process.terminationStatus == 0, "\(arguments.joined(separator: " ")) failed")
    return text
  }

  /// The volume as a real FAT file system (a mount is not available here: the files are read
  /// back out of the image with mtools, which is what a mount would show), then synced.
  @Test("emulate usb-volume --fat-image: a FAT volume labelled PLAUD_NOTE with the same files")
  func fatImage() throws {
    let directory = try TemporaryDirectory("usb-fat")
    let volume = directory.file("vol")
    let image = directory.file("volume.img")
    let pairs = try Self.volume(
      directory, volume, ["--recordings", "2", "--seconds", "1", "--fat-image", image])
    #expect(try Self.mtools(["mlabel", "-s", "-i", image, "::"]).contains("PLAUD_NOTE"))
    let mounted = directory.file("PLAUD_NOTE")
    try FileManager.default.createDirectory(atPath: mounted, withIntermediateDirectories: true)
    _ = try Self.mtools(["mcopy", "-s", "-n", "-i", image, "::/*", mounted])
    let model = try #require(FileManager.default.contents(atPath: volume + "/MODEL.txt"))
    #expect(FileManager.default.contents(atPath: mounted + "/MODEL.txt") == model)
    for pair in pairs {
      // Long names (10.3) kept, bytes unchanged.
      let relative = String(pair.wavPath.dropFirst(volume.count))
      #expect(Self.bytes(mounted + relative) == pair.wav, "\(relative)")
      let asr = String(pair.asrPath.dropFirst(volume.count))
      #expect(Self.bytes(mounted + asr) == pair.asr, "\(asr)")
    }
    let out = directory.file("out")
    let result = try RecorderProcess.run(
      ["sync", "--device", "usb:" + mounted, "--out", out, "--format", "opus", "--json"],
      in: directory, label: "fat-sync")
    #expect(result.status == 0, "\(result.stderr)")
    for pair in pairs {
      #expect(Self.bytes(out + "/\(Self.serial)/\(pair.id).opus-raw") == pair.asr)
    }
  }

  @Test("--usb-source wav exports the scrubbed device WAV itself; opus from the WAV is refused")
  func wavSource() throws {
    let directory = try TemporaryDirectory("usb-wav")
    let volume = directory.file("vol")
    let pairs = try Self.volume(directory, volume, ["--recordings", "2", "--seconds", "1"])
    let out = directory.file("out")
    let result = try RecorderProcess.run(
      [
        "sync", "--device", "usb:" + volume, "--out", out, "--format", "wav", "--usb-source", "wav",
        "--scrub-serial",
      ], in: directory, label: "wav")
    #expect(result.status == 0, "\(result.stderr)")
    for pair in pairs {
      #expect(
        Self.isScrubbed(Self.bytes(out + "/exports/\(Self.serial)-\(pair.id).wav"), of: pair.wav))
      #expect(!pair.onVolume)
    }
    let refused = try RecorderProcess.run(
      [
        "sync", "--device", "usb:" + volume, "--out", out, "--format", "opus", "--usb-source",
        "wav",
      ],
      in: directory, label: "wav-opus")
    #expect(refused.status == 64)
  }

  @Test("ls --device usb:DIR lists every pair with its scene, a damaged one with the reason")
  func listDamage() throws {
    let directory = try TemporaryDirectory("usb-ls")
    let volume = directory.file("vol")
    let pairs = try Self.volume(
      directory, volume, ["--recordings", "3", "--seconds", "1", "--damage", "1:wav-header"])
    let listed = try RecorderProcess.run(
      ["ls", "--device", "usb:" + volume, "--json"], in: directory, label: "ls")
    #expect(listed.status == 0, "\(listed.stderr)")
    let rows = try jsonArray(listed.stdout)
    #expect(rows.compactMap { int64($0["sessionId"]) } == pairs.map(\.id))
    #expect(rows.compactMap { int64($0["scene"]) } == [1, 7, 1])
    #expect(rows.compactMap { int64($0["durationMs"]) } == [1_000, 1_000, 1_000])
    #expect(rows.map { $0["damaged"] is NSNull } == [true, false, true])
    #expect((rows[1]["damaged"] as? String)?.contains("sample rate 44100") == true)
    #expect(!listed.stdout.contains(Self.serial), "the serial is not listed")
    let missing = try RecorderProcess.run(
      ["ls", "--device", "usb:" + directory.file("nothing")], in: directory, label: "ls-missing")
    #expect(missing.status == 69)
  }

  @Test("--device usb finds the PLAUD_NOTE volume in the mount table (escaped path, bad lines)")
  func mountTable() throws {
    let directory = try TemporaryDirectory("usb-mount")
    let volume = directory.file("my media/PLAUD_NOTE")
    let pairs = try Self.volume(directory, volume, ["--recordings", "2", "--seconds", "1"])
    let escaped = volume.replacingOccurrences(of: " ", with: "\\040")
    let table = directory.file("mountinfo")
    try """
    22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw
    not a mountinfo line
    97 22 8:17 / \(escaped) rw,nosuid shared:50 - vfat /dev/sdb1 rw

    """.write(toFile: table, atomically: true, encoding: .utf8)
    let listed = try RecorderProcess.run(
      ["ls", "--device", "usb", "--json"], in: directory, label: "ls",
      environment: ["RECORDER_MOUNTINFO": table])
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(try jsonArray(listed.stdout).compactMap { int64($0["sessionId"]) } == pairs.map(\.id))
    try "22 1 8:2 / / rw - ext4 /dev/sda2 rw\n".write(
      toFile: table, atomically: true, encoding: .utf8)
    let none = try RecorderProcess.run(
      ["ls", "--device", "usb"], in: directory, label: "ls-none",
      environment: ["RECORDER_MOUNTINFO": table])
    #expect(none.status == 69)
    #expect(none.stderr.contains("PLAUD_NOTE"))
  }
}
