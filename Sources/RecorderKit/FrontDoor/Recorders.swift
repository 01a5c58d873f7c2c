import RecorderBluetooth
import RecorderConcurrency

/// The front door: find, connect to and sync recorders, through one object.
///
/// Every way into the main job (the `recorder` tool's `sync` and `sync --watch`, the vendor
/// facade, the background processor) goes through a `Recorders`: it owns how a recorder is
/// found (by serial: its radio address rotates), how it is connected to and authenticated,
/// how a sync survives a dropped link (reconnect and resume from the journal), when Wi-Fi
/// carries the backlog, and which failures are worth another attempt
/// (``RetryableError/isRetryable``).
///
/// ```swift
/// let recorders = Recorders(
///   radio: .shared(central), configuration: .init(session: .init(token: token)))
/// for try await event in recorders.sync(serial: "8881234567890123", into: engine) {
///   if case .finished(let report) = event { print(report.files.count, "files") }
/// }
/// ```
///
/// A `Recorders` is safe to use from any task. Scans share one radio scan
/// (``RecorderScanner``); a sync or a watch is one task each, ended by ending its iteration.
public final class Recorders: Sendable {
  /// How recorders are reached and authenticated.
  public struct Configuration: Sendable {
    /// The token, the Mode B user key, the clock and the limits of every session.
    public var session: DeviceSession.Configuration
    /// How long one search for a recorder may take.
    public var findTimeout: Duration
    /// Recorders met before (nil: none remembered): each connection is remembered there, and
    /// a recorder known there is connected to directly before any scan.
    public var known: KnownRecorders?

    /// - Parameters:
    ///   - session: the configuration of each session (its clock is the door's clock).
    ///   - findTimeout: how long one search may take (default 10 s).
    ///   - known: where recorders met before are remembered (default none).
    public init(
      session: DeviceSession.Configuration, findTimeout: Duration = .seconds(10),
      known: KnownRecorders? = nil
    ) {
      self.session = session
      self.findTimeout = findTimeout
      self.known = known
    }
  }

  /// How sessions are set up and how long searches take.
  public let configuration: Configuration
  let radio: RadioAccess
  /// The scanner of a shared radio (nil: each lease opens its own).
  private let sharedScanner: RecorderScanner?

  /// - Parameters:
  ///   - radio: the radio: one central for the door's life, or one opened per attempt.
  ///   - configuration: how sessions are set up.
  public init(radio: RadioAccess, configuration: Configuration) {
    self.radio = radio
    self.configuration = configuration
    if case .shared(let central) = radio.kind {
      sharedScanner = RecorderScanner(central: central, clock: configuration.session.clock)
    } else {
      sharedScanner = nil
    }
  }

  /// The clock of every wait: ``DeviceSession/Configuration/clock``.
  public var clock: AnyClock { configuration.session.clock }

  /// The shared radio's scanner (nil for a radio opened per attempt): the one to use for
  /// every scan of that radio.
  public var scanner: RecorderScanner? { sharedScanner }

  /// Connects to the recorder with `serial` (or, when nil, to the first recorder heard)
  /// and authenticates. A recorder just heard (`heard`) is connected to directly; one met
  /// before (``Configuration/known``) is connected to through the peripheral it was reached
  /// by, with no scan (the only way in the iOS background), and only when that link does
  /// not come up within ``DeviceSession/Configuration/connectTimeout`` (its address changed,
  /// say) does one search of ``Configuration/findTimeout`` look for it, by serial. Every
  /// connection is remembered in ``Configuration/known``.
  /// - Parameters:
  ///   - serial: the recorder's serial, or nil for the first recorder heard.
  ///   - heard: the recorder's advertisement when it was just heard in a scan.
  ///   - session: this connection's session configuration (another user's token, say), or
  ///     nil for ``Configuration/session``.
  ///
  /// A Mode B key material that does not unwrap (``ModeBError/sessionKeyDidNotUnwrap``) is
  /// a fault of that link until a second, fresh link to the same recorder says otherwise:
  /// the recorder is connected to once more at once, and only when its key fails to unwrap
  /// there too is the key wrong (``ModeBError/wrongUserKey``, final). A link that changes a
  /// chunk on the way costs one reconnection, never the user's key.
  /// - Returns: the connection; close it with ``RecorderConnection/close()``.
  /// - Throws: what opening the radio throws; ``DeviceError`` otherwise
  ///   (``DeviceError/deviceNotFound(serial:)``, ``DeviceError/noRecorderHeard(within:)``,
  ///   a refused handshake, ``ModeBError/wrongUserKey``, …).
  public func connect(
    serial: String?, heard: DiscoveredDevice? = nil, session: DeviceSession.Configuration? = nil
  ) async throws -> RecorderConnection {
    let lease = try await lease(requirePowered: true)
    let sessionConfiguration = session ?? configuration.session
    do throws(DeviceError) {
      let found: (session: DeviceSession, device: DiscoveredDevice)
      if let serial, heard == nil, let known = configuration.known?.device(serial: serial),
        let direct = try await Self.connectIfLinkComesUp(
          to: known, using: lease.scanner.central, configuration: sessionConfiguration)
      {
        found = (direct, known)
      } else if let serial {
        found = try await Self.onFreshLinkIfKeyDoesNotUnwrap {
          () async throws(DeviceError) in
          try await lease.scanner.connect(
            serial: serial, heard: heard, findTimeout: self.configuration.findTimeout,
            configuration: sessionConfiguration)
        }
      } else {
        let device: DiscoveredDevice
        if let heard {
          device = heard
        } else {
          device = try await lease.scanner.first(within: configuration.findTimeout)
        }
        // The same recorder again, not whichever is heard first.
        let session = try await Self.onFreshLinkIfKeyDoesNotUnwrap {
          () async throws(DeviceError) in
          try await DeviceSession.connect(
            to: device, using: lease.scanner.central, configuration: sessionConfiguration)
        }
        found = (session, device)
      }
      await remember(found.device, session: found.session)
      return RecorderConnection(
        session: found.session, device: found.device, central: lease.scanner.central,
        sessionConfiguration: sessionConfiguration, release: lease.release)
    } catch {
      lease.release()
      throw error
    }
  }

  /// A session over `known`'s peripheral, or nil when its link did not come up (the scan
  /// then looks for the recorder); an authentication failure is the recorder's answer and
  /// is thrown.
  private static func connectIfLinkComesUp(
    to known: DiscoveredDevice, using central: any Central,
    configuration: DeviceSession.Configuration
  ) async throws(DeviceError) -> DeviceSession? {
    do {
      return try await onFreshLinkIfKeyDoesNotUnwrap { () async throws(DeviceError) in
        try await DeviceSession.connect(to: known, using: central, configuration: configuration)
      }
    } catch .connectFailed {
      return nil
    }
  }

  /// Notes how the recorder of `session` was reached (``Configuration/known``).
  private func remember(_ device: DiscoveredDevice, session: DeviceSession) async {
    guard let known = configuration.known else { return }
    let serial = await session.info.serial
    guard !serial.isEmpty else { return }
    known.remember(device, serial: serial)
  }

  /// The recorder with `serial`, met before (``Configuration/known``), whenever it is next
  /// in range: ``connectWhenInRange(to:session:)`` with the device remembered.
  /// - Throws: ``DeviceError/deviceNotFound(serial:)`` when no such recorder is known; as
  ///   ``connectWhenInRange(to:session:)`` otherwise.
  public func connectWhenInRange(serial: String, session: DeviceSession.Configuration? = nil)
    async throws -> RecorderConnection
  {
    guard let device = configuration.known?.device(serial: serial) else {
      throw DeviceError.deviceNotFound(serial: serial)
    }
    return try await connectWhenInRange(to: device, session: session)
  }

  /// Connects to a recorder met before (`device`: how it was reached last time, its
  /// peripheral identity and serial) whenever it is next in range, and authenticates: no
  /// scan, no time limit (the platform's pending connect).
  /// This is the background path on iOS, where a scan finds no recorder (it advertises no
  /// service UUID) but the system completes a pending connect while the app is suspended or
  /// relaunches it for one. Cancel the calling task to withdraw it.
  /// - Returns: the connection; close it with ``RecorderConnection/close()``.
  /// - Throws: what opening the radio throws; ``DeviceError`` otherwise.
  public func connectWhenInRange(
    to device: DiscoveredDevice, session: DeviceSession.Configuration? = nil
  ) async throws -> RecorderConnection {
    let lease = try await lease(requirePowered: true)
    let sessionConfiguration = session ?? configuration.session
    do throws(DeviceError) {
      let session = try await Self.onFreshLinkIfKeyDoesNotUnwrap {
        () async throws(DeviceError) in
        try await DeviceSession.connect(
          to: device, using: lease.scanner.central, configuration: sessionConfiguration,
          whenInRange: true)
      }
      await remember(device, session: session)
      return RecorderConnection(
        session: session, device: device, central: lease.scanner.central,
        sessionConfiguration: sessionConfiguration, release: lease.release)
    } catch {
      lease.release()
      throw error
    }
  }

  /// `connect()`, and once more on a fresh link when the recorder's Mode B key material did
  /// not unwrap: a second ``ModeBError/sessionKeyDidNotUnwrap`` in a row is
  /// ``ModeBError/wrongUserKey``. Each failed session has closed its link before it throws.
  private static func onFreshLinkIfKeyDoesNotUnwrap<Connected>(
    _ connect: () async throws(DeviceError) -> Connected
  ) async throws(DeviceError) -> Connected {
    do {
      return try await connect()
    } catch .modeB(.sessionKeyDidNotUnwrap) {
      do {
        return try await connect()
      } catch .modeB(.sessionKeyDidNotUnwrap) {
        throw .modeB(.wrongUserKey)
      }
    }
  }

  /// Waits until the recorder with `serial` (any recorder when nil) is heard with the radio
  /// powered on, through a radio that is off (its state updates say when it is back) or
  /// cannot be opened (tried again every `retry`, each new reason reported once through
  /// `report`). Each listen lasts at most `listenWindow`, then the radio is opened anew.
  /// - Returns: the recorder heard; nil when the calling task is cancelled.
  package func waitUntilHeard(
    serial: String?, listenWindow: Duration = .seconds(30), retry: Duration = .seconds(1),
    report: @Sendable (WatchEvent) -> Void = { _ in }
  ) async -> DiscoveredDevice? {
    var reported: String?
    while !Task.isCancelled {
      do {
        let lease = try await lease(requirePowered: false)
        defer { lease.release() }
        let central = lease.scanner.central
        if await central.state != .poweredOn {
          report(.waitingForRadio)
          for await state in central.stateUpdates() where state == .poweredOn { break }
        }
        let found = await firstElement(
          of: lease.scanner.listen(), within: listenWindow, on: clock
        ) { heard in serial == nil || heard.serial == serial }
        if let found { return found }
      } catch {
        let text = "\(error)"
        if text != reported { report(.radioUnavailable(text)) }
        reported = text
        guard (try? await clock.sleep(for: retry)) != nil else { return nil }
      }
    }
    return nil
  }

  /// The radio for one attempt, with its scanner.
  func lease(requirePowered: Bool) async throws -> RadioLease {
    if let sharedScanner { return RadioLease(scanner: sharedScanner, release: {}) }
    guard case .opened(let open) = radio.kind else {
      preconditionFailure("a radio without a shared scanner is opened per attempt")
    }
    let (central, release) = try await open(requirePowered)
    return RadioLease(scanner: RecorderScanner(central: central, clock: clock), release: release)
  }
}

/// How a ``Recorders`` reaches the radio.
public struct RadioAccess: Sendable {
  enum Kind: Sendable {
    case shared(any Central)
    case opened(
      @Sendable (_ requirePowered: Bool) async throws -> (any Central, @Sendable () -> Void))
  }
  let kind: Kind

  /// One central for the door's whole life (an app's CoreBluetooth central, the emulator's).
  public static func shared(_ central: any Central) -> RadioAccess {
    RadioAccess(kind: .shared(central))
  }

  /// A central opened for each attempt and released after it: a gateway whose Bluetooth
  /// daemon may restart or whose adapter may come and go between attempts.
  /// - Parameter open: opens the central (requiring its adapter powered on when asked) and
  ///   returns it with how to release it; throws when the radio cannot be reached (a
  ///   ``RetryableError`` says whether that is final).
  public static func opened(
    _ open:
      @escaping @Sendable (_ requirePowered: Bool) async throws -> (
        any Central, release: @Sendable () -> Void
      )
  ) -> RadioAccess {
    RadioAccess(kind: .opened({ try await open($0) }))
  }
}

/// One attempt's radio: its scanner, and how to give the radio back.
struct RadioLease: Sendable {
  let scanner: RecorderScanner
  let release: @Sendable () -> Void
}

/// A connected, authenticated recorder reached through ``Recorders``.
public struct RecorderConnection: Sendable {
  /// The session.
  public let session: DeviceSession
  /// The advertisement it was reached by.
  public let device: DiscoveredDevice
  /// The radio it is on (a firmware update reconnects through it).
  let central: any Central
  /// The session's configuration (its token: a reconnection uses the same).
  let sessionConfiguration: DeviceSession.Configuration
  let release: @Sendable () -> Void

  /// Closes the session and gives the radio back.
  public func close() async {
    await session.close()
    release()
  }
}
