import Foundation
import RecorderAudio
import RecorderEmulator
import TestSupport

/// Issue 4's figures: a generated 5-hour raw device file exported to mp3 and wav next to
/// ffmpeg doing the same work in the same run, and peak RSS of a 30-minute and a 5-hour
/// export, each measured in a child process so one export's memory cannot hide another's.
enum AudioBenchmarks {
  static let longSeconds = 5 * 3600
  static let shortSeconds = 30 * 60
  /// Long recordings repeat one encoded minute (see `DeviceRecordingWriter`).
  static let cycleFrames = 3000

  static func run() throws {
    let folder = "/tmp/recorder-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let long = folder + "/5h.raw"
    let short = folder + "/30min.raw"
    emit("== audio: generating 5 h and 30 min mono device recordings")
    let generated = try time {
      try DeviceRecordingWriter.writeSpeech(
        toPath: long, format: .mono, frameCount: longSeconds * 50, seed: 1, cycleFrames: cycleFrames
      )
    }
    try DeviceRecordingWriter.writeSpeech(
      toPath: short, format: .mono, frameCount: shortSeconds * 50, seed: 1, cycleFrames: cycleFrames
    )
    emit("generated 5 h (\(fileSize(long) / 1_000_000) MB) in \(format(generated)) s")

    // Ogg Opus first: the same packets in a container ffmpeg can read (it cannot parse the
    // raw device file: there is no framing), so ffmpeg's input is this file.
    emit("times: wall s / CPU s (user + system); ratio = ours / ffmpeg by CPU (by wall)")
    let ogg = try exportChild(long, folder + "/5h.opus", "opus")
    report("ours   5 h → opus (pass-through)", ogg)
    let opusIn = ["-v", "error", "-y", "-c:a", "libopus", "-i", folder + "/5h.opus"]
    let mp3Settings = [
      "-c:a", "libmp3lame", "-b:a", "40k", "-compression_level", "5", "-ac", "1", "-ar", "16000",
    ]
    // Ours and ffmpeg alternate, so a change in the machine's load hits both alike.
    let ourMP3 = try exportChild(long, folder + "/5h.mp3", "mp3")
    report("ours   5 h → mp3 (CBR 40k, q5)", ourMP3)
    let ffMP3 = try timeTool("ffmpeg", opusIn + mp3Settings + [folder + "/ff.mp3"])
    report("ffmpeg 5 h opus → mp3 (same LAME)", ffMP3, against: ourMP3)
    let ourWAV = try exportChild(long, folder + "/5h.wav", "wav")
    report("ours   5 h → wav", ourWAV)
    let wavSettings = ["-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le"]
    let ffWAV = try timeTool("ffmpeg", opusIn + wavSettings + [folder + "/ff.wav"])
    report("ffmpeg 5 h opus → wav (48k → 16k)", ffWAV, against: ourWAV)
    let ffMP3FromWAV = try timeTool(
      "ffmpeg",
      ["-v", "error", "-y", "-i", folder + "/5h.wav"] + mp3Settings + [folder + "/ff2.mp3"])
    report("ffmpeg 5 h wav → mp3 (LAME only)", ffMP3FromWAV, against: ourMP3)

    let shortMP3 = try exportChild(short, folder + "/30min.mp3", "mp3")
    let shortWAV = try exportChild(short, folder + "/30min.wav", "wav")
    for (name, short, long) in [("mp3", shortMP3, ourMP3), ("wav", shortWAV, ourWAV)] {
      let difference = kb(abs(long.peakKB - short.peakKB))
      emit(
        "peak RSS \(name): 30 min \(kb(short.peakKB)), 5 h \(kb(long.peakKB)), difference \(difference)"
      )
    }
    for file in ["5h.mp3", "ff.mp3", "5h.wav", "5h.opus"] {
      emit("ffprobe \(file): \(try probe(folder + "/" + file)) s")
    }
  }

  /// Runs the hidden helper subcommands; false when `arguments` is not one of them.
  static func handleHelper(_ arguments: [String]) -> Bool {
    guard let word = arguments.first else { return false }
    do {
      switch word {
      case "audio-export-child" where arguments.count == 5:
        guard let format = ExportFormat(rawValue: arguments[3]), let channels = Int(arguments[4])
        else {
          return false
        }
        _ = try AudioExporter.export(
          from: arguments[1], recordedChannels: channels, to: arguments[2],
          options: ExportOptions(format: format))
        emit("VmHWM-kB \(peakRSSKilobytes())")
        return true
      case "audio-generate" where arguments.count >= 4:
        guard let seconds = Int(arguments[2]), let channels = Int(arguments[3]) else {
          return false
        }
        let seed = arguments.count > 4 ? UInt64(arguments[4]) ?? 1 : 1
        try DeviceRecordingWriter.writeSpeech(
          toPath: arguments[1], format: try DeviceAudioFormat(channels: channels),
          frameCount: seconds * 50, seed: seed, cycleFrames: seconds > 120 ? cycleFrames : nil)
        return true
      default:
        return false
      }
    } catch {
      emit("error: \(error)")
      exit(1)
    }
  }

  /// Wall time and CPU time (user + system, all threads) of one child process. CPU time is
  /// the figure to compare on a shared machine: wall time includes waiting for other jobs.
  struct ChildRun {
    var seconds: Double
    var cpuSeconds: Double
    var peakKB: Int
  }

  /// One export in a child process: wall time, and the child's own peak RSS (VmHWM).
  static func exportChild(_ input: String, _ output: String, _ format: String) throws -> ChildRun {
    let executable = CommandLine.arguments[0]
    var outputText = ""
    let cpuBefore = childrenCPUSeconds()
    let seconds = try time {
      outputText = try runCapturing(executable, ["audio-export-child", input, output, format, "1"])
    }
    let peak =
      outputText.split(separator: "\n").compactMap { line -> Int? in
        guard line.hasPrefix("VmHWM-kB ") else { return nil }
        return Int(line.dropFirst("VmHWM-kB ".count))
      }.first ?? -1
    return ChildRun(seconds: seconds, cpuSeconds: childrenCPUSeconds() - cpuBefore, peakKB: peak)
  }

  static func timeTool(_ tool: String, _ arguments: [String]) throws -> ChildRun {
    let cpuBefore = childrenCPUSeconds()
    let seconds = try time { _ = try runCapturing("/usr/bin/env", [tool] + arguments) }
    return ChildRun(seconds: seconds, cpuSeconds: childrenCPUSeconds() - cpuBefore, peakKB: -1)
  }

  /// CPU seconds used by every waited-for child so far (getrusage RUSAGE_CHILDREN).
  static func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
      + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  }

  static func probe(_ path: String) throws -> String {
    try runCapturing(
      "/usr/bin/env",
      ["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]
    ).trimmingCharacters(in: .whitespacesAndNewlines)
  }

  struct ChildFailed: Error, CustomStringConvertible {
    var description: String
  }

  static func runCapturing(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard process.terminationStatus == 0 else {
      throw ChildFailed(description: "\(executable) \(arguments.joined(separator: " ")): \(text)")
    }
    return text
  }

  /// This process's peak resident set (VmHWM in /proc/self/status), in kB.
  static func peakRSSKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      var usage = rusage()
      getrusage(RUSAGE_SELF.rawValue, &usage)
      return usage.ru_maxrss
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
  }

  static func time(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  }

  static func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  }

  /// Prints and flushes at once, so figures appear as they are measured even when stdout is
  /// a file (fflush(nil) flushes every stream without touching the global `stdout`).
  static func emit(_ text: String) {
    print(text)
    fflush(nil)
  }

  /// One result line: label, wall / CPU seconds, peak RSS, and the ratio against ours.
  static func report(_ label: String, _ run: ChildRun, against ours: ChildRun? = nil) {
    var text = label.padding(toLength: 38, withPad: " ", startingAt: 0)
    text += "\(format(run.seconds)) / \(format(run.cpuSeconds)) s"
    if run.peakKB >= 0 { text += "   peak RSS \(kb(run.peakKB))" }
    if let ours {
      text +=
        "   ratio \(ratio(ours.cpuSeconds, run.cpuSeconds)) (\(ratio(ours.seconds, run.seconds)))"
    }
    emit(text)
  }

  static func format(_ seconds: Double) -> String { String(format: "%.2f", seconds) }
  static func ratio(_ ours: Double, _ theirs: Double) -> String {
    String(format: "%.2f", ours / theirs)
  }
  static func kb(_ value: Int) -> String { String(format: "%.1f MB", Double(value) / 1024) }
}
