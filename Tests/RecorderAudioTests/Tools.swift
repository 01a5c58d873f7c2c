import Foundation
import RecorderEmulator
import Testing

@testable import RecorderAudio

/// Runs an outside tool (ffprobe, ffmpeg, opusinfo) and captures its output.
struct ToolRun {
  var status: Int32
  var stdout: Data
  var stderr: String
  var text: String { String(decoding: stdout, as: UTF8.self) }
}

func runTool(_ name: String, _ arguments: [String]) throws -> ToolRun {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [name] + arguments
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  // Our tools print little on stderr; stdout is drained before waiting.
  let data = out.fileHandleForReading.readDataToEndOfFile()
  let errors = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return ToolRun(
    status: process.terminationStatus, stdout: data, stderr: String(decoding: errors, as: UTF8.self)
  )
}

/// ffprobe's container duration in seconds.
func probedDuration(_ path: String) throws -> Double {
  let run = try runTool(
    "ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
  guard run.status == 0,
    let value = Double(run.text.trimmingCharacters(in: .whitespacesAndNewlines))
  else { throw TestFileError(description: "ffprobe failed on \(path): \(run.stderr)") }
  return value
}

/// A fresh speech-like device recording of `frames` frames in a temporary file.
func makeRecording(_ name: String, channels: Int, frames: Int, seed: UInt64) throws -> String {
  let path = temporaryPath(name)
  try DeviceRecordingWriter.writeSpeech(
    toPath: path, format: try DeviceAudioFormat(channels: channels), frameCount: frames, seed: seed)
  return path
}

/// Our own decode of a whole raw recording at `sampleRate`, interleaved.
func decodeAll(_ bytes: [UInt8], channels: Int, sampleRate: Int = 16_000) throws -> [Int16] {
  let decoder = try DeviceOpusDecoder(channels: channels, sampleRate: sampleRate)
  let frameBytes = 80 * channels
  var pcm: [Int16] = []
  for start in stride(from: 0, to: bytes.count, by: frameBytes) {
    pcm += try decoder.decode(Array(bytes[start..<start + frameBytes]), offset: start)
  }
  return pcm
}

func int16s(_ bytes: [UInt8]) -> [Int16] {
  stride(from: 0, to: bytes.count - 1, by: 2).map {
    Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
  }
}
