import Foundation
import RecorderAudio
import RecorderKit
import RecorderProtocol

/// `recorder export`: a raw device recording (or Ogg-wrapped device audio) to mp3, wav,
/// Ogg Opus or raw PCM, streaming, with progress on stderr when it is a terminal.
struct ExportCommand: RecorderCommand {
  static let name = "export"
  static let abstract = "Export a recording file to mp3, wav, opus or pcm."
  static let help = """
    OVERVIEW: Convert a device recording (the raw Opus frames as the device stores them, or
    Ogg-wrapped device audio) into a file that plays everywhere. Streams: memory use does not
    depend on the recording's length.

    USAGE: recorder export FILE --format mp3|wav|opus|pcm [--channels N] [--out PATH]
                           [--private-key PEM]

    ARGUMENTS:
      FILE                    The recording: concatenated 80-byte Opus frames (PROTOCOL.md §5)
                              or an Ogg Opus stream of device packets, or either inside an
                              end-to-end encrypted file (a 512-byte PLAUD.AI header, §9).

    OPTIONS:
      --format F              mp3 (LAME, with a Xing/LAME info frame), wav (16-bit PCM),
                              opus (Ogg Opus, the device's packets passed through), pcm (raw
                              s16le, 16 kHz, interleaved).
      --channels N            1 = mono (a 2-channel recording is downmixed), 2 = two channels
                              (a mono recording is duplicated). Default: as recorded.
      --recorded-channels N   The device's audioChannels (1 or 2) for a raw file (default 1).
      --out PATH              Output path (default: FILE with the format's extension).
      --mp3-bitrate KBPS      MP3 constant bit rate (default 40 mono, 48 stereo).
      --mp3-vbr Q             MP3 VBR quality 0 (best) … 9 instead of a constant rate.
      --mp3-quality Q         LAME algorithm quality 0 (slow, best) … 9 (fast); default 5.
      --private-key PEM       For an end-to-end encrypted FILE: the user's RSA private key, a
                              PEM file (PKCS#1 or PKCS#8, unencrypted: no pass phrase is
                              asked for; keep it 0600). The file is decrypted as it streams
                              into a temporary 0600 file beside the output, removed afterwards.
      --json                  Print the result as one JSON object.
      -h, --help              Show this help.

    Malformed or unsupported audio, or a bad E2EE header, exits 65 naming the byte offset; an
    encrypted file without a key or with another user's key exits 77; file errors exit 74.
    """

  var input: String
  var output: String
  var options: ExportOptions
  var recordedChannels: Int
  /// --recorded-channels was given (else an E2EE header's `channels` decides).
  var recordedChannelsGiven: Bool
  var privateKey: String?
  var json: Bool

  init(arguments: inout Arguments) throws {
    guard let format = ExportFormat(rawValue: try arguments.required("format").lowercased()) else {
      throw UsageError("--format must be one of mp3, wav, opus, pcm")
    }
    let channels = try arguments.option("channels", as: Int.self)
    if let channels, channels != 1 && channels != 2 {
      throw UsageError("--channels must be 1 or 2")
    }
    let recorded = try arguments.option("recorded-channels", as: Int.self)
    recordedChannelsGiven = recorded != nil
    recordedChannels = recorded ?? 1
    privateKey = try arguments.option("private-key")
    guard recordedChannels == 1 || recordedChannels == 2 else {
      throw UsageError("--recorded-channels must be 1 or 2")
    }
    var mp3 = MP3Settings.speech
    if let kbps = try arguments.option("mp3-bitrate", as: Int.self) {
      guard (8...160).contains(kbps) else { throw UsageError("--mp3-bitrate must be 8…160") }
      mp3.bitRate = .constant(kbps: kbps)
    }
    if let quality = try arguments.option("mp3-vbr", as: Int.self) {
      guard (0...9).contains(quality) else { throw UsageError("--mp3-vbr must be 0…9") }
      mp3.bitRate = .variable(quality: quality)
    }
    if let quality = try arguments.option("mp3-quality", as: Int.self) {
      guard (0...9).contains(quality) else { throw UsageError("--mp3-quality must be 0…9") }
      mp3.encoderQuality = quality
    }
    let out = try arguments.option("out")
    json = arguments.flag("json")
    let files = try arguments.positionals()
    guard files.count == 1, let file = files.first else {
      throw UsageError(files.isEmpty ? "FILE is required" : "exactly one FILE, got \(files.count)")
    }
    input = file
    output = out ?? Self.defaultOutput(for: file, format: format)
    options = ExportOptions(format: format, channels: channels, mp3: mp3)
  }

  /// FILE with its extension replaced by the format's; never FILE itself.
  static func defaultOutput(for input: String, format: ExportFormat) -> String {
    let slash = input.lastIndex(of: "/")
    var base = input
    if let dot = input.lastIndex(of: "."), slash.map({ dot > $0 }) ?? true, dot != input.startIndex
    {
      base = String(input[..<dot])
    }
    let candidate = base + "." + format.fileExtension
    return candidate == input ? input + "." + format.fileExtension : candidate
  }

  func run() async throws {
    let showProgress = stderrIsTerminal && !json
    var source = input
    var channels = recordedChannels
    if E2EEFile.isEncrypted(path: input) {
      let plain = output + ".e2ee-plain-\(getpid())"
      let header = try decrypt(to: plain)
      source = plain
      if !recordedChannelsGiven { channels = header.channels == 2 ? 2 : 1 }
    }
    defer { if source != input { unlink(source) } }
    let result: ExportResult
    do {
      result = try AudioExporter.export(
        from: source, recordedChannels: channels, to: output, options: options,
        progress: showProgress
          ? { progress in
            printError("\u{1B}[1A\u{1B}[2Kexporting: \(Int(progress.fraction * 100))%")
          }
          : nil)
    } catch {
      throw CommandFailure(Self.exitCode(for: error), "\(input): \(error)")
    }
    if json {
      print(
        #"{"output":"\#(jsonEscaped(output))","format":"\#(options.format.rawValue)","#
          + #""channels":\#(result.channels),"frames":\#(result.frames),"#
          + #""durationMs":\#(result.durationMs)}"#)
    } else {
      let seconds = Double(result.durationMs) / 1000
      print("\(output): \(options.format.rawValue), \(result.channels) ch, \(seconds) s")
    }
  }

  /// Decrypts the E2EE input into `plain` with --private-key (PROTOCOL.md §9).
  private func decrypt(to plain: String) throws -> E2EEFileHeader {
    guard let privateKey else {
      throw CommandFailure(
        .noPermission, "\(input) is end-to-end encrypted: give --private-key PEM")
    }
    let credentials = try DeviceOptions.privateKey(privateKey)
    do {
      return try E2EEFile.decrypt(input, to: plain, userKey: try credentials.userKey())
    } catch let error as E2EEError {
      let code: ExitCode =
        switch error {
        case .wrongKey, .noKey, .userKey: .noPermission
        case .header, .unknownCounterRole, .notDeviceAudio: .dataError
        case .io: .ioError
        case .unsupported: .failure
        }
      throw CommandFailure(code, "\(input): \(error)")
    }
  }

  static func exitCode(for error: AudioError) -> ExitCode {
    switch error {
    case .io: return .ioError
    case .unsupportedChannelCount, .unsupportedAudioFormat, .unexpectedTOC, .truncatedFrame,
      .opusDecodeFailed, .malformedOgg, .wavTooLarge:
      return .dataError
    case .opusSetupFailed, .opusEncodeFailed, .wrongFrameLength, .mp3EncoderFailed, .oggFailed,
      .cancelled:
      return .failure
    }
  }
}

private func jsonEscaped(_ text: String) -> String {
  var out = ""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case _ where scalar.value < 0x20:
      let hex = String(scalar.value, radix: 16)
      out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out
}
