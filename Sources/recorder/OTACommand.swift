import Foundation
import RecorderKit
import RecorderProtocol

/// `recorder ota`: update a device's firmware from a file or from the cloud.
struct OTACommand: RecorderCommand {
  static let name = "ota"
  static let abstract =
    "Update a device's firmware (from a file, or check and download from the cloud)."
  static let help = """
    OVERVIEW: Push a firmware image to the device (PROTOCOL.md §7): checks it first (MD5 /
    SHA-256 when given), refuses a low battery or a recording, resumes after link losses,
    waits for the device to restart and confirms the new version. With --cloud instead of
    --file: check for newer firmware, download it (resumably) and push it. Only a version
    newer than the device's is installed: the same version is "up to date", an older one
    is refused unless --allow-downgrade (docs/cloud.md). Progress goes to stderr; the
    result line to stdout.

    USAGE: recorder ota --device URL --token T --file FW --version V0096 [--md5 HEX]
           recorder ota --device URL --cloud DOMAIN --user-token-file F

    OPTIONS:
    \(DeviceOptions.help)
    \(CloudOptions.help)
      --file FW             The image to push.
      --version V           The version it installs (V0096).
      --md5 HEX             Refuse the file unless its MD5 is HEX (before connecting).
      --sha256 HEX          Likewise for SHA-256.
      --download-dir DIR    Where a cloud download goes (default: a temporary directory).
      --allow-downgrade     Install a version older than the device's.
      --json                The result as one JSON object on stdout.
      -h, --help            Show this help.

    EXIT CODES: 0 updated, or already up to date (stdout says "up to date"; --json
    "result": "up to date"); 65 the image does not match its checksum, the cloud's answer is
    malformed, the version is older than the device's (without --allow-downgrade) or the
    device rejected it (it keeps its firmware); 69 device or cloud unreachable, or the cloud
    answered an unexpected status; 74 the download could not be written; 75 refused for now
    (battery, recording, busy); 77 token rejected or expired. Every failure ends the command
    with one "error:" line on stderr.
    """

  var device: DeviceOptions
  var cloud: CloudOptions?
  var file: String?
  var version: FirmwareVersion?
  var md5: String?
  var sha256: String?
  var downloadDirectory: String?
  var allowDowngrade: Bool
  var json: Bool

  init(arguments: inout Arguments) throws {
    cloud = try CloudOptions.parse(&arguments)
    device = try DeviceOptions.parse(&arguments, cloud: cloud)
    file = try arguments.option("file")
    if let text = try arguments.option("version") {
      do {
        version = try FirmwareVersion(parsing: text)
      } catch {
        // The text is not echoed: it may hold control characters.
        throw UsageError("--version: \(error)")
      }
    }
    md5 = try arguments.option("md5")
    sha256 = try arguments.option("sha256")
    downloadDirectory = try arguments.option("download-dir")
    allowDowngrade = arguments.flag("allow-downgrade")
    json = arguments.flag("json")
    try arguments.finish()
    if file != nil {
      guard version != nil else { throw UsageError("--file needs --version V") }
    } else if cloud == nil {
      throw UsageError("give --file FW --version V, or --cloud DOMAIN --user-token-file F")
    }
  }

  func run() async throws {
    // A file is checked before anything connects: a wrong image never reaches the device.
    var image: FirmwareFile?
    if let file, let version {
      do {
        let checked = try FirmwareFile(path: file, version: version.description)
        try checked.verify(md5: md5, sha256: sha256)
        image = checked
      } catch {
        throw CommandFailure(Self.exitCode(error), "\(error)")
      }
    }
    let (recorders, connection, central) = try await device.connectThroughDoor()
    defer { central.close() }
    let session = connection.session
    let serial = await session.info.serial
    var configuration = FirmwareUpdater.Configuration()
    configuration.allowDowngrade = allowDowngrade
    let updater = await recorders.firmwareUpdater(for: connection, configuration: configuration)
    // The updater finishes its progress on every path, so this ends when the update does.
    let renderer = Task { await Self.render(updater.progress) }
    let result: FirmwareUpdater.Result
    do {
      if let image, let version {
        result = try await updater.install(image, to: version, session: session)
      } else if let cloud {
        let directory = downloadDirectory ?? NSTemporaryDirectory()
        result = try await updater.update(
          using: try cloud.client(), downloadingInto: directory, session: session)
      } else {
        throw UsageError("nothing to install")
      }
    } catch FirmwareUpdateError.noUpdate(let current) {
      await renderer.value
      printUpToDate(serial: serial, version: current)
      return
    } catch let error as FirmwareUpdateError {
      await renderer.value
      throw CommandFailure(Self.exitCode(error), "\(error)")
    }
    await renderer.value
    await result.session.close()
    if json {
      print(
        renderJSON([
          Field("serial", .text(serial)), Field("previousVersion", .text(result.previousVersion)),
          Field("version", .text(result.version)), Field("reconnects", result.reconnects),
          Field("result", .text("updated")),
        ]))
    } else {
      print("updated \(serial) from \(result.previousVersion) to \(result.version)")
    }
  }

  /// The result when there is nothing newer to install (exit 0).
  private func printUpToDate(serial: String, version: String) {
    if json {
      print(
        renderJSON([
          Field("serial", .text(serial)), Field("previousVersion", .text(version)),
          Field("version", .text(version)), Field("reconnects", 0),
          Field("result", .text("up to date")),
        ]))
    } else {
      print("up to date: \(serial) runs \(version) (no newer firmware)")
    }
  }

  /// Progress lines on stderr: each phase, and every 10 % within it.
  static func render(_ progress: AsyncStream<FirmwareProgress>) async {
    var last: (FirmwarePhase, Int)?
    for await step in progress {
      let percent = Int(step.fraction * 100) / 10 * 10
      guard last.map({ $0.0 != step.phase || $0.1 != percent }) ?? true else { continue }
      last = (step.phase, percent)
      printError("\(step.phase): \(percent) %")
    }
  }

  static func exitCode(_ error: FirmwareUpdateError) -> ExitCode {
    switch error {
    case .checksumMismatch, .rejectedByDevice, .emptyImage, .imageTooLarge, .invalidVersion,
      .versionNotConfirmed, .downgradeRefused:
      .dataError
    case .batteryLow, .recording, .refused: .busy
    case .io: .ioError
    case .device(.tokenRejected): .noPermission
    case .cloud(let error): CloudOptions.exitCode(error)
    case .noUpdate: .success
    default: .unavailable
    }
  }
}

extension FirmwarePhase: CustomStringConvertible {
  public var description: String {
    switch self {
    case .downloading: "downloading"
    case .installing: "installing"
    case .restarting: "restarting"
    case .complete: "complete"
    }
  }
}
