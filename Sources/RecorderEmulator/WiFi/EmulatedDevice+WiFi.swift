import RecorderProtocol
import RecorderRemoteLink
import RecorderWebSocket

/// The access point the device raised on WIFI_OPEN (PROTOCOL.md §6).
struct Hotspot {
  var ssid: String
  var password: String
  /// Distinguishes this hotspot from a later one (its idle watchdog checks it).
  let generation: Int
  /// The last sign of life, on the Wi-Fi clock: the raise, a join, a phone message, content.
  var lastActivity: Duration
  /// Device time from which joins succeed (``WiFiParameters/hotspotStartupDelay``).
  var readyAt: Duration
  var watchdog: Task<Void, Never>?
  /// Mode B: the BLE channel of the connection that raised (or last re-raised) the hotspot;
  /// its Wi-Fi sessions seal with its key (PROTOCOL.md §9 step 4).
  var sealing: DeviceChannel?
  /// BLE is down for Wi-Fi (``WiFiParameters/dropsBLEOnOpen``) until the session ends.
  var holdsBLE = false
}

/// How much of a content PDU may go out, and what the stream does after it (the Wi-Fi
/// content faults, ``EmulatedDevice/wifiContentPermit(_:)``).
struct WiFiContentPermit: Sendable {
  enum Then: Sendable {
    /// The stream goes on.
    case goOn
    /// TCP drops right after these bytes (``FaultPlan/dropWiFiAfterContentBytes``).
    case drop
    /// No more content until the phone's next message
    /// (``FaultPlan/pauseWiFiContentAfterBytes``); the hold (nil on a real clock) keeps a
    /// manual clock still until the pause ends.
    case pause(ManualClock.WorkToken?)
  }
  var allowed: Int
  var then: Then
}

/// A recording as the Wi-Fi side sees it.
struct WiFiFile: Sendable {
  var size: Int
  var scene: UInt16
}

// Wi-Fi Fast Transfer, device side (PROTOCOL.md §3.1 WIFI_OPEN / WIFI_CLOSE and §6): the
// hotspot, the join (through the emulator host's join port, docs/tcp-link.md) and what the
// §6 session (``WiFiDeviceSession``) asks of the device's flash.
extension EmulatedDevice {
  // MARK: Public

  /// The hotspot's SSID while one is raised (by model, PROTOCOL.md §6: `PLAUD` or `Plaud` +
  /// the serial's last four characters; or ``WiFiParameters/ssid``).
  public var hotspotSSID: String? { hotspot?.ssid }

  /// True while a phone that joined the hotspot has a §6 session open.
  public var hasWiFiSession: Bool { wifiSession.map { !$0.isOver } ?? false }

  /// The device's verdict on a phone joining its hotspot (the emulator host's join port hands
  /// each `JOIN` here: wire it as `HotspotJoinServer { await device.joinHotspot($0) }`).
  ///
  /// On acceptance the device connects its WebSocket client to
  /// `request.phoneHost:request.serverPort` in a task of its own and runs the device side of
  /// §6 there: HELLO, the phone's handshake (the BLE token padded to 32 with '0'), then LIST,
  /// SYNC, DELETE, STOP and keep-alives until either side closes, the hotspot idles out
  /// (``WiFiParameters/idleTimeout``) or WIFI_CLOSE drops it.
  ///
  /// Joining is idempotent: a join while a session is still active (the phone is on the
  /// network already, as iOS's "already associated"; its earlier session is still being
  /// closed, say) is accepted too. The device goes on serving that session and, once it has
  /// ended, connects to the server of the newest such join
  /// (``DeviceCounters/wifiJoinsWhileActive``).
  /// - Returns: nil when accepted, else why not: no hotspot raised, wrong SSID, wrong
  ///   password, not ready yet (``WiFiParameters/hotspotStartupDelay``), or the
  ///   ``FaultPlan/refuseHotspotJoins`` fault.
  public func joinHotspot(_ request: HotspotJoinRequest) -> String? {
    let refusal: String?
    if faults.refuseHotspotJoins {
      refusal = "the hotspot cannot be joined"
    } else if let hotspot {
      if request.ssid != hotspot.ssid {
        refusal = "wrong SSID"
      } else if request.password != hotspot.password {
        refusal = "wrong password"
      } else if time.now < hotspot.readyAt {
        refusal = Self.hotspotNotReady
      } else {
        refusal = nil
      }
    } else {
      refusal = "no hotspot is raised"
    }
    if let refusal {
      counterValues.wifiJoinsRefused += 1
      return refusal
    }
    if let session = wifiSession, !session.isOver, configuration.wifi.refusesJoinWhileActive {
      counterValues.wifiJoinsRefused += 1
      return Self.sessionAlreadyActive
    }
    noteWiFiActivity()
    if let session = wifiSession, !session.isOver {
      counterValues.wifiJoinsWhileActive += 1
      pendingWiFiJoin = request
      return nil
    }
    startWiFiSession(request)
    return nil
  }

  /// Lets one more content PDU out of a Wi-Fi SYNC paused by
  /// ``FaultPlan/pauseWiFiContentAfterBytes``; the stream pauses again behind it (still
  /// waiting for the phone's next message, the manual clock still held). For a phone that acts
  /// only when content arrives: RecorderKit's `WiFiSession.stopTransfer()` refuses the next
  /// frame and then sends STOP, so a test asks for the stop, then steps. A step asked for
  /// before the stream reaches its pause is taken there; nothing without a session.
  public func stepWiFiContent() async {
    guard let session = wifiSession, !session.isOver else { return }
    await session.stepPause()
  }

  /// The refusal of a join while a session is active (``WiFiParameters/refusesJoinWhileActive``).
  static let sessionAlreadyActive = HotspotJoinRequest.sessionAlreadyActive

  /// Connects the device's WebSocket client to the phone of `request` and serves it.
  private func startWiFiSession(_ request: HotspotJoinRequest) {
    nextWiFiSessionID += 1
    let session = WiFiDeviceSession(
      id: nextWiFiSessionID, device: self, host: request.phoneHost, port: request.serverPort,
      serial: configuration.serial, token: configuration.token, parameters: configuration.wifi,
      sealing: hotspot?.sealing?.forWiFi(configuration.modeB.wifiCipher),
      sequencePolicy: configuration.modeB.sequencePolicy,
      hold: time.holdWhileProgressing(.emulatorWiFiSession))
    wifiSession = session
    counterValues.wifiSessions += 1
    Task { await session.run() }
  }

  /// The refusal while the access point is still starting (docs/tcp-link.md).
  public static let hotspotNotReady = "the hotspot is not ready yet"

  // MARK: WIFI_OPEN / WIFI_CLOSE

  /// WIFI_OPEN: raises the hotspot (or re-reports the one already up) and answers status 0
  /// with the password: the one given, else the serial's last eight characters (and the SSID
  /// as ``WiFiParameters/openReplySSID`` says; see ``grantedWiFiOpen(password:)``). Status 1
  /// when the device has no Wi-Fi, for OTA (not emulated), for a password that is not eight
  /// printable ASCII characters, or under ``FaultPlan/refuseWiFiOpen``.
  func openWiFi(_ request: WiFiOpenRequest) -> WiFiOpenResponse {
    let refused = WiFiOpenResponse(status: 1)
    counterValues.wifiOpens += 1
    if request.password != nil { counterValues.wifiOpensWithPassword += 1 }
    guard configuration.supportWifi != 0, request.forOta == 0, !faults.refuseWiFiOpen else {
      return refused
    }
    let password: String
    if let bytes = request.password {
      guard bytes.count == WiFiOpenRequest.passwordWidth,
        bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
      else { return refused }
      password = String(decoding: bytes, as: UTF8.self)
    } else {
      password = hotspot?.password ?? String(configuration.serial.suffix(8))
    }
    if hotspot == nil {
      raiseHotspot(password: password)
    } else {
      hotspot?.password = password
      noteWiFiActivity()
    }
    hotspot?.sealing = connection?.channel
    return grantedWiFiOpen(password: password)
  }

  private func raiseHotspot(password: String) {
    nextHotspotGeneration += 1
    let generation = nextHotspotGeneration
    counterValues.hotspotsRaised += 1
    hotspot = Hotspot(
      ssid: hotspotName, password: password,
      generation: generation, lastActivity: configuration.wifi.clock.elapsed,
      readyAt: time.now + configuration.wifi.hotspotStartupDelay)
    hotspot?.watchdog = Task { await self.watchHotspot(generation) }
  }

  /// Drops the hotspot and ends any session: with a close frame carrying `closeCode`, or
  /// abruptly (no close frame) when nil. WIFI_CLOSE, the idle timeout and reboots come here.
  func dropHotspot(closeCode: WebSocketCloseCode?) {
    hotspot?.watchdog?.cancel()
    releaseBLEForWiFi()
    hotspot = nil
    pendingWiFiJoin = nil
    guard let session = wifiSession else { return }
    wifiSession = nil
    Task { await session.end(closeCode: closeCode) }
  }

  /// The idle timer: quits the hotspot (and closes a session with 1000) once
  /// ``WiFiParameters/idleTimeout`` passed on the Wi-Fi clock since the last activity.
  private func watchHotspot(_ generation: Int) async {
    let clock = configuration.wifi.clock
    let idle = configuration.wifi.idleTimeout
    while let hotspot, hotspot.generation == generation {
      let left = hotspot.lastActivity + idle - clock.elapsed
      guard left > .zero else {
        counterValues.wifiIdleCloses += 1
        noteWiFiControl(.idleClose)
        dropHotspot(closeCode: .normalClosure)
        return
      }
      do { try await clock.sleep(for: left) } catch { return }
    }
  }

  // MARK: For the session

  /// Restarts the idle timer.
  func noteWiFiActivity() {
    hotspot?.lastActivity = configuration.wifi.clock.elapsed
  }

  /// A phone message arrived (`valid`: it decoded as a §6 PDU the device knows).
  func noteWiFiMessage(valid: Bool) {
    counterValues.wifiMessagesReceived += 1
    if !valid { counterValues.wifiMalformedMessages += 1 }
    noteWiFiActivity()
  }

  /// The session `id` ended (by either side): its slot is free for the next join, or for
  /// the phone that joined while it was active.
  func wifiSessionEnded(_ id: Int) {
    guard wifiSession?.id == id else { return }
    wifiSession = nil
    // A join taken while this session was alive connects now; else BLE comes back.
    guard let pending = pendingWiFiJoin, hotspot != nil else {
      releaseBLEForWiFi()
      return
    }
    pendingWiFiJoin = nil
    startWiFiSession(pending)
  }

  /// A STOP without `{session, scene}` was refused (``WiFiParameters/requireStopSession``).
  func noteWiFiStopRejected() { counterValues.wifiStopsRejected += 1 }

  /// The phone answered a PING.
  func noteWiFiPong() { counterValues.wifiPongsReceived += 1 }

  /// The battery for a Wi-Fi PING.
  func wifiBattery() -> (level: UInt8, charging: Bool) { (batteryLevel, charging) }

  /// Every recording for a Wi-Fi LIST, oldest first (a live one with its bytes so far).
  func wifiListEntries() -> [WiFiListEntry] {
    materializeRecording(at: time.now)
    let entries = flash.sessionIds.compactMap { id -> WiFiListEntry? in
      guard let entry = flash.entries[id] else { return nil }
      return WiFiListEntry(
        sessionId: id, size: UInt32(clamping: entry.size), scene: UInt16(entry.scene))
    }
    guard faults.wifiListsExtraRecording else { return entries }
    return entries + [WiFiListEntry(sessionId: 0xFFFF_FFF0, size: 8_000, scene: 1)]
  }

  /// A recording's size and scene now, or nil.
  func wifiFile(_ sessionId: SessionID) -> WiFiFile? {
    materializeRecording(at: time.now)
    guard let entry = flash.entries[sessionId] else { return nil }
    return WiFiFile(size: entry.size, scene: UInt16(entry.scene))
  }

  /// Up to `count` bytes of a recording from flash, or nil when it is gone or unreadable.
  func wifiRead(_ sessionId: SessionID, offset: Int, count: Int) -> [UInt8]? {
    noteWiFiActivity()
    return try? flash.read(sessionId, offset: offset, count: count)
  }

  /// Simulated time for `count` content bytes to cross the Wi-Fi link
  /// (``WiFiParameters/contentBytesPerSecond``): a manual clock is moved on by it; on a real
  /// clock real TCP takes its own time and nothing is added.
  func wifiPace(_ count: Int) async {
    guard let rate = configuration.wifi.contentBytesPerSecond, rate > 0, count > 0,
      time.isManual
    else { return }
    let nanoseconds = Int64(count) * 1_000_000_000 / Int64(rate)
    await time.reach(time.now + .nanoseconds(nanoseconds))
  }

  /// How many of `count` content bytes may go out, and what follows them: TCP drops
  /// (``FaultPlan/dropWiFiAfterContentBytes``) or the stream pauses for the phone
  /// (``FaultPlan/pauseWiFiContentAfterBytes``); the fault that fires is cleared (once).
  /// Counts the bytes.
  func wifiContentPermit(_ count: Int) -> WiFiContentPermit {
    let sent = counterValues.wifiContentBytesSent - faultBaseWiFiBytes
    let toDrop = faults.dropWiFiAfterContentBytes.map { max(0, $0 - sent) }
    let toPause = faults.pauseWiFiContentAfterBytes.map { max(0, $0 - sent) }
    var permit = WiFiContentPermit(allowed: count, then: .goOn)
    if let toPause, toPause <= count, toPause < toDrop ?? .max {
      // Held from before the cut goes out: the phone's reaction to it takes no simulated time.
      permit = WiFiContentPermit(
        allowed: toPause, then: .pause(time.beginWork(.emulatorWiFiContentPaused)))
      faults.pauseWiFiContentAfterBytes = nil
    } else if let toDrop, toDrop <= count {
      permit = WiFiContentPermit(allowed: toDrop, then: .drop)
      faults.dropWiFiAfterContentBytes = nil
    }
    counterValues.wifiContentBytesSent += permit.allowed
    return permit
  }

  /// DELETE over Wi-Fi: the file's scene must be repeated (status 3 otherwise [project]);
  /// then exactly BLE DELETE's effect and status (``deleteRecording(_:)``).
  func wifiDelete(_ sessionId: SessionID, scene: UInt16) -> UInt8 {
    materializeRecording(at: time.now)
    if let entry = flash.entries[sessionId], UInt16(entry.scene) != scene { return 3 }
    return deleteRecording(sessionId)
  }
}
