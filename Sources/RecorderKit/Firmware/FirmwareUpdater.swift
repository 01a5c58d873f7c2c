import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// Updates one recorder's firmware end to end (PROTOCOL.md §7, §8): check → download
/// (resumable, checked against MD5 and SHA-256) → CRC → push as the device asks (PACK_REQ,
/// `03` frames) → the device checks, installs and restarts → reconnect → confirm the version.
///
/// - **Refusals before anything is sent.** A checksum mismatch, a battery below
///   ``Configuration/minimumBattery`` (not charging) or a recording in progress throw before
///   FOTA_PUSH.
/// - **Newer only.** The version installed must be newer than the one the device reports
///   (same type letter, higher code). The same version is ``FirmwareUpdateError/noUpdate(current:)``;
///   an older one, or one of another type letter, is
///   ``FirmwareUpdateError/downgradeRefused(current:offered:)`` unless
///   ``Configuration/allowDowngrade`` is set. Both are decided before anything is downloaded
///   or pushed.
/// - **Disconnects.** A push interrupted by a link loss reconnects (by serial: the address
///   rotates) and pushes again; the device resumes from the bytes it holds.
/// - **Restart.** After a good result the device restarts and is silent for a while; the
///   updater waits for the link to drop, then looks for the device until
///   ``Configuration/restartTimeout`` and confirms it runs the new version.
/// - **Progress** goes to ``progress`` (phase and 0.0–1.0), in order; it finishes when
///   ``update(using:downloadingInto:session:)`` or ``install(_:to:session:)`` returns or
///   throws, on every path.
///
/// The updater owns the sessions it is given or opens: it closes them when it replaces them,
/// consumes their ``DeviceSession/events``, and hands the final one back in the result.
public actor FirmwareUpdater {
  /// Limits and clocks.
  public struct Configuration: Sendable {
    /// Battery below this (and not charging) refuses the update (§7: 30 %) [project].
    public var minimumBattery: UInt8 = 30
    /// Reconnects allowed during one push before giving up.
    public var maximumReconnects = 30
    /// Wait between a link loss and the next connection attempt.
    public var reconnectDelay: Duration = .milliseconds(500)
    /// How long to look for the device after a link loss during the push.
    public var reconnectTimeout: Duration = .seconds(30)
    /// How long the device may take to restart and be heard again.
    public var restartTimeout: Duration = .seconds(90)
    /// The longest wait for any answer during the push (a PACK_REQ, the result).
    public var silenceTimeout: Duration = .seconds(20)
    /// The clock every wait goes through (the sessions' clock).
    public var clock: AnyClock = .continuous
    /// Install a version older than the device's (or of another type letter). Off by
    /// default: such a version is refused with
    /// ``FirmwareUpdateError/downgradeRefused(current:offered:)``. The device's own version
    /// is never installed again either way.
    public var allowDowngrade = false
    /// How the image's `03` frames are spaced (PROTOCOL.md §7).
    public var framePacing: FramePacing = .model

    public init() {}
  }

  /// How a push spaces its `03` frames.
  public enum FramePacing: Sendable, Equatable {
    /// As the vendor's SDK does (PROTOCOL.md §7): one frame every 18 ms on every model but
    /// the Note Pro, whose frames go as fast as the link takes them.
    case model
    /// Every frame as fast as the link takes it.
    case unpaced
    /// One frame per interval (measured on the configuration's clock, from one frame's
    /// hand-over to the link to the next).
    case every(Duration)
  }

  /// What a finished update leaves.
  public struct Result: Sendable {
    /// The version before and after.
    public var previousVersion: String
    public var version: String
    /// Link losses survived during the push.
    public var reconnects: Int
    /// Time on the updater's clock from the first FOTA_PUSH to the device's good result.
    public var pushDuration: Duration
    /// A session to the device on its new firmware (the caller closes it).
    public var session: DeviceSession
  }

  /// Progress, in order; finishes when the update ends. Single consumer.
  public nonisolated let progress: AsyncStream<FirmwareProgress>
  private let progressContinuation: AsyncStream<FirmwareProgress>.Continuation
  private let central: any Central
  private let serial: String
  private let sessionConfiguration: DeviceSession.Configuration
  private let configuration: Configuration

  /// An updater for the device with `serial`, reached through `central` with
  /// `sessionConfiguration` (its token and clock).
  public init(
    central: any Central, serial: String, sessionConfiguration: DeviceSession.Configuration,
    configuration: Configuration = Configuration()
  ) {
    self.central = central
    self.serial = serial
    self.sessionConfiguration = sessionConfiguration
    var configuration = configuration
    configuration.clock = sessionConfiguration.clock
    self.configuration = configuration
    (progress, progressContinuation) = AsyncStream.makeStream(of: FirmwareProgress.self)
  }

  deinit { progressContinuation.finish() }

  /// Checks the cloud for newer firmware, downloads it into `directory`, and installs it.
  /// ``progress`` finishes when this returns or throws.
  /// - Throws: ``FirmwareUpdateError/noUpdate(current:)`` when the device is up to date,
  ///   ``FirmwareUpdateError/downgradeRefused(current:offered:)`` when the cloud offers an
  ///   older version (and ``Configuration/allowDowngrade`` is off), ``FirmwareUpdateError/cloud(_:)``
  ///   for a failed check or download, and everything ``install(_:to:session:)`` throws.
  public func update(
    using cloud: CloudClient, downloadingInto directory: String, session: DeviceSession? = nil
  ) async throws(FirmwareUpdateError) -> Result {
    defer { progressContinuation.finish() }
    let session = try await sessionOrConnect(session)
    let current = await session.info.firmware ?? FirmwareVersion(type: 0x56, code: 0)
    let release: FirmwareRelease
    do {
      release = try await cloud.checkFirmware(serial: serial, current: current)
    } catch {
      await session.close()
      throw .cloud(error)
    }
    // No download URL: nothing is offered, whatever the code (PROTOCOL.md §8) [sdk-code].
    guard let target = FirmwareVersion(release.latestVersion), !release.downloadUrl.isEmpty else {
      await session.close()
      throw .noUpdate(current: current.description)
    }
    do {
      try admit(target, over: current)
    } catch {
      await session.close()
      throw error
    }
    report(FirmwareProgress(phase: .downloading, fraction: 0))
    let path = directory + "/" + Self.fileName(serial: serial, version: release.latestVersion)
    let file: FirmwareFile
    do {
      file = try await cloud.download(release, to: path) { [weak self] bytes, total in
        guard let self else { return }
        let fraction = total.map { $0 > 0 ? Double(bytes) / Double($0) : 0 } ?? 0
        self.report(
          FirmwareProgress(phase: .downloading, fraction: fraction, bytes: bytes, total: total ?? 0)
        )
      }
    } catch {
      await session.close()
      throw .cloud(error)
    }
    return try await install(file, to: target, session: session)
  }

  /// Installs `file` (already on disk and checked) as version `target`. ``progress``
  /// finishes when this returns or throws.
  /// - Throws: ``FirmwareUpdateError/noUpdate(current:)`` when the device runs `target`
  ///   already, ``FirmwareUpdateError/downgradeRefused(current:offered:)`` when `target` is
  ///   not newer (and ``Configuration/allowDowngrade`` is off),
  ///   ``FirmwareUpdateError/batteryLow(level:minimum:)``,
  ///   ``FirmwareUpdateError/recording``, ``FirmwareUpdateError/refused(status:)``,
  ///   ``FirmwareUpdateError/rejectedByDevice(result:)`` (the device keeps its firmware),
  ///   ``FirmwareUpdateError/tooManyDisconnects(_:)``,
  ///   ``FirmwareUpdateError/versionNotConfirmed(expected:found:)``, device errors.
  public func install(
    _ file: FirmwareFile, to target: FirmwareVersion, session: DeviceSession? = nil
  )
    async throws(FirmwareUpdateError) -> Result
  {
    defer { progressContinuation.finish() }
    let image = try file.bytes()
    var session = try await sessionOrConnect(session)
    let previous = await session.info.firmware ?? FirmwareVersion(type: 0x56, code: 0)
    do {
      try admit(target, over: previous)
      try await preflight(session)
    } catch {
      await session.close()
      throw error
    }
    guard let frameData = await session.firmwareFrameData() else {
      let maximum = await session.maximumWriteLength()
      await session.close()
      throw .linkTooSmall(maximumWrite: maximum)
    }
    let push = FirmwarePush(
      uid: UInt32(file.crc), from: previous, to: target, size: UInt32(image.count), crc: file.crc)
    report(FirmwareProgress(phase: .installing, fraction: 0, total: Int64(image.count)))
    let pushStarted = configuration.clock.elapsed
    var reconnects = 0
    let total = image.count
    // The image offset pushed last, for the fraction of a device event's step.
    let pushed = Locked(0)
    while true {
      let outcome: FirmwarePushEnd
      do {
        outcome = try await session.pushFirmware(
          push, image: image, frameData: frameData,
          interval: await session.firmwareFrameInterval(configuration.framePacing),
          silence: configuration.silenceTimeout,
          sent: { [weak self] offset in
            pushed.withLock { $0 = offset }
            self?.report(
              FirmwareProgress(
                phase: .installing, fraction: Double(offset) / Double(max(1, total)),
                bytes: Int64(offset), total: Int64(total)))
          },
          event: { [weak self] event in
            let offset = pushed.withLock { $0 }
            self?.report(
              FirmwareProgress(
                phase: .installing, fraction: Double(offset) / Double(max(1, total)),
                bytes: Int64(offset), total: Int64(total), deviceEvent: event))
          })
      } catch .disconnected, .timeout {
        reconnects += 1
        await session.close()
        guard reconnects <= configuration.maximumReconnects else {
          throw .tooManyDisconnects(reconnects)
        }
        session = try await reconnect(within: configuration.reconnectTimeout)
        continue
      } catch .cancelled {
        await session.close()
        throw .cancelled
      } catch {
        await session.close()
        throw .device(error)
      }
      switch outcome {
      case .refused(let status):
        await session.close()
        throw Self.refusal(status)
      case .result(let result) where result.status != 0:
        await session.close()
        throw .rejectedByDevice(result: result.status)
      case .result:
        break
      }
      break
    }
    let pushDuration = configuration.clock.elapsed - pushStarted
    report(
      FirmwareProgress(phase: .installing, fraction: 1, bytes: Int64(total), total: Int64(total)))
    report(FirmwareProgress(phase: .restarting, fraction: 0))
    // The device restarts on its own: wait for the link to drop so the device found next is
    // the restarted one, not the old firmware about to go away.
    let events = session.events
    _ = await firstElement(
      of: events, within: configuration.restartTimeout, on: configuration.clock
    ) {
      if case .disconnected = $0 { return true }
      return false
    }
    await session.close()
    report(FirmwareProgress(phase: .restarting, fraction: 0.5))
    let restarted = try await reconnect(within: configuration.restartTimeout)
    let found = await restarted.info.firmware
    guard found == target else {
      await restarted.close()
      throw .versionNotConfirmed(
        expected: target.description, found: found?.description ?? "unknown")
    }
    report(FirmwareProgress(phase: .restarting, fraction: 1))
    report(FirmwareProgress(phase: .complete, fraction: 1))
    return Result(
      previousVersion: previous.description, version: target.description, reconnects: reconnects,
      pushDuration: pushDuration, session: restarted)
  }

  // MARK: - Steps

  /// The version rule: `target` must be newer than `current` (same type letter, higher
  /// code); the same version never passes; an older one (or another type letter) passes only
  /// with ``Configuration/allowDowngrade``.
  private func admit(_ target: FirmwareVersion, over current: FirmwareVersion)
    throws(FirmwareUpdateError)
  {
    switch target.order(relativeTo: current) {
    case .newer: return
    case .same: throw .noUpdate(current: current.description)
    case .older, nil:
      guard configuration.allowDowngrade else {
        throw .downgradeRefused(current: current.description, offered: target.description)
      }
    }
  }

  /// Refuses before anything is pushed: low battery (not charging), a recording.
  private func preflight(_ session: DeviceSession) async throws(FirmwareUpdateError) {
    let battery: BatteryStatus
    let state: DeviceState
    do {
      battery = try await session.battery()
      state = try await session.state()
    } catch {
      throw .device(error)
    }
    if battery.level < configuration.minimumBattery, (battery.charging ?? 0) == 0 {
      throw .batteryLow(level: battery.level, minimum: configuration.minimumBattery)
    }
    if state.hasRecordingInProgress { throw .recording }
  }

  private func sessionOrConnect(_ session: DeviceSession?) async throws(FirmwareUpdateError)
    -> DeviceSession
  {
    if let session { return session }
    return try await reconnect(within: configuration.reconnectTimeout)
  }

  /// Finds the device by serial and opens a session, trying again until `timeout` passes.
  private func reconnect(within timeout: Duration) async throws(FirmwareUpdateError)
    -> DeviceSession
  {
    let clock = configuration.clock
    let retry = RetryPolicy.within(timeout, delay: configuration.reconnectDelay)
    return try await retry.run(on: clock, cancelled: .cancelled) {
      attempt throws(FirmwareUpdateError) -> RetryOutcome<DeviceSession, FirmwareUpdateError> in
      if Task.isCancelled { throw .cancelled }
      do throws(DeviceError) {
        let device = try await RecorderScanner(central: central, clock: clock).find(
          serial: serial, timeout: attempt.remaining ?? timeout)
        return .success(
          try await DeviceSession.connect(
            to: device, using: central, configuration: sessionConfiguration))
      } catch .tokenRejected {
        throw .device(.tokenRejected)
      } catch .cancelled {
        throw .cancelled
      } catch {
        return .failed(.device(error))
      }
    }
  }

  private static func refusal(_ status: UInt8) -> FirmwareUpdateError {
    switch status {
    case 7: .recording
    default: .refused(status: status)
    }
  }

  nonisolated private func report(_ progress: FirmwareProgress) {
    progressContinuation.yield(progress)
  }

  /// `<serial>-<version>.bin`, with anything but letters, digits, `.` and `-` replaced.
  static func fileName(serial: String, version: String) -> String {
    let safe = { (text: String) in
      String(
        text.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") ? $0 : "_" }
      )
    }
    return "\(safe(serial))-\(safe(version)).bin"
  }
}
