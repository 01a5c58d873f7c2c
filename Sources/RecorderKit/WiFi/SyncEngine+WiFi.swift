import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderStore

/// When and how a sync moves a backlog over Wi-Fi Fast Transfer (PROTOCOL.md §6).
public struct WiFiSyncPlan: Sendable {
  /// Joins the device's hotspot: the platform's service (an emulator's join port on Linux).
  public var joiner: any HotspotJoiner
  /// Where our WebSocket server listens and how long the device may take to connect.
  public var link: WiFiLink.Configuration
  /// Wi-Fi is raised only when at least this many bytes are still to move (raising the
  /// hotspot and joining it costs seconds; BLE moves small files sooner). Default 4 MiB,
  /// about 17 minutes of mono audio.
  public var minimumBacklogBytes: Int64
  /// The hotspot password to ask for (8 printable ASCII characters), or nil for a fresh
  /// random one each time.
  public var password: String?
  /// When to join the hotspot and how long to keep trying (waits on the BLE session's clock:
  /// it is the device's access point starting up).
  public var join: HotspotJoinPolicy
  /// How long each Wi-Fi request may wait for its answer (on the BLE session's clock, as
  /// every wait of the sync).
  public var responseTimeout: Duration

  public init(
    joiner: any HotspotJoiner, link: WiFiLink.Configuration = WiFiLink.Configuration(),
    minimumBacklogBytes: Int64 = 4 << 20, password: String? = nil,
    responseTimeout: Duration = .seconds(10), join: HotspotJoinPolicy = .afterStartup
  ) {
    self.joiner = joiner
    self.link = link
    self.minimumBacklogBytes = minimumBacklogBytes
    self.password = password
    self.responseTimeout = responseTimeout
    self.join = join
  }
}

extension SyncEngine {
  /// Syncs the device behind `session`, over Wi-Fi when `wifi` is given, the device has it
  /// and the backlog is large enough; over BLE otherwise, and over BLE for whatever Wi-Fi
  /// did not finish (a refused hotspot, a failed join, a dropped socket). Each file resumes
  /// from its durable offset whichever transport carries it, so a file can start on one and
  /// finish on the other (the journal names both: `ble+wifi`).
  ///
  /// Over Wi-Fi the deletes wait until every download of the batch is done (the device
  /// stalls otherwise [sdk]); the WebSocket is closed with 1000, the server stopped, the
  /// hotspot left and WIFI_CLOSE sent on every path. The report's
  /// ``SyncReport/wifiFallback`` says why BLE had to step in.
  ///
  /// Nothing over Wi-Fi needs BLE: a device that drops BLE while its hotspot is up (as some
  /// do [sdk]) is synced, verified and deleted from over Wi-Fi alone. Its WIFI_CLOSE then
  /// cannot be sent: it stays owed (`owedWiFiCloses`, marked durably when WIFI_OPEN is
  /// granted, settled when WIFI_CLOSE is answered) and the front door sends it over a new
  /// BLE connection (``Recorders/runSync(serial:into:options:report:)``).
  ///
  /// Verification over Wi-Fi: §6 content carries no device checksum. A file moved over
  /// Wi-Fi counts as verified when every byte arrived in order over TCP, its length is the
  /// listed size and every 80-byte packet has the device's Opus framing; the part moved
  /// over BLE is covered by the device's CRC as usual.
  package func sync(session: DeviceSession, wifi plan: WiFiSyncPlan?) async throws(SyncError)
    -> SyncReport
  {
    let ble = BLETransport(session: session)
    guard let plan else { return try await sync(using: ble) }
    guard await session.info.supportsWiFi else {
      var report = try await sync(using: ble)
      report.wifiFallback = .wifiUnavailable("this device has no Wi-Fi")
      return report
    }
    let listed: [Recording]
    let inProgress: SessionID?
    do {
      listed = try await session.listRecordings()
      inProgress = try await ble.recordingInProgress()
    } catch {
      throw .device(error)
    }
    let backlog = try bytesToMove(listed, serial: await session.info.serial, skipping: inProgress)
    // BLE for a small backlog: with the LIST and state just asked, not asked again.
    guard backlog >= plan.minimumBacklogBytes else {
      return try await sync(using: ble, listing: (listed, inProgress))
    }

    let failure: DeviceError
    interruptedReport = nil  // only what this Wi-Fi attempt finished may be merged below
    do {
      return try await syncOverWiFi(
        session: session, plan: plan, listed: listed, inProgress: inProgress)
    } catch .device(let error) where error != .cancelled && !Task.isCancelled {
      failure = error
    }
    // What Wi-Fi finished stays in the report, even files it already deleted.
    let partial = interruptedReport
    var report = try await sync(using: ble)
    report.wifiFallback = failure
    if let partial { report.merge(earlier: partial) }
    return report
  }

  /// Raise, join, sync, close. Throws what stopped Wi-Fi; the caller falls back to BLE.
  private func syncOverWiFi(
    session: DeviceSession, plan: WiFiSyncPlan, listed: [Recording], inProgress: SessionID?
  ) async throws(SyncError) -> SyncReport {
    let link: WiFiLink
    do throws(DeviceError) {
      let hotspot = try await session.openWiFi(
        password: plan.password ?? DeviceHotspot.randomPassword())
      await noteWiFiCloseOwed(session)
      var configuration = await session.wifiSessionConfiguration()
      configuration.responseTimeout = plan.responseTimeout
      // The state LIST was judged against: the same file is left alone over Wi-Fi.
      configuration.recordingInProgress = { inProgress }
      // What BLE listed: a Wi-Fi peer that lists anything else is not the device.
      configuration.expectedListing = listed
      do throws(DeviceError) {
        link = try await WiFiLink.connect(
          to: hotspot, joiner: plan.joiner, session: configuration, configuration: plan.link,
          clock: session.configuration.clock, join: plan.join)
      } catch {
        await closeWiFi(session)
        throw error
      }
    } catch {
      throw .device(error)
    }
    let result: Result<SyncReport, SyncError>
    do {
      result = .success(try await sync(using: link.transport))
    } catch {
      result = .failure(error)
    }
    // Close on every path, a cancelled sync (an expired background budget) included: in a
    // task of its own, which the caller's cancellation does not reach, so no step of STOP,
    // the close with 1000 and the BLE-side WIFI_CLOSE can be cut short by it.
    await Task {
      await link.close()
      await self.closeWiFi(session)
    }.value
    return try result.get()
  }

  /// The device granted WIFI_OPEN: its WIFI_CLOSE is owed until answered (best effort: a
  /// marker that cannot be written only loses the close's survival of a restart).
  private func noteWiFiCloseOwed(_ session: DeviceSession) async {
    try? owedWiFiCloses.markOwed(serial: await session.info.serial)
  }

  /// WIFI_CLOSE over BLE, settling the owed close once answered; BLE down leaves it owed.
  private func closeWiFi(_ session: DeviceSession) async {
    guard (try? await session.closeWiFi()) != nil else { return }
    try? owedWiFiCloses.settle(serial: await session.info.serial)
  }

  /// Bytes of listed recordings not yet stored locally (the durable part of a partial file
  /// does not count), leaving out the one still being recorded.
  private func bytesToMove(_ listed: [Recording], serial: String, skipping inProgress: SessionID?)
    throws(SyncError) -> Int64
  {
    let records: [SessionID: RecordingRecord]
    do {
      records = try journal.read { tx in
        Dictionary(
          try tx.recordings(serial: serial).map { ($0.session, $0) },
          uniquingKeysWith: { a, _ in a })
      }
    } catch {
      throw .journal("\(error)")
    }
    return listed.reduce(0) { total, recording in
      guard recording.sessionId != inProgress else { return total }
      guard let record = records[recording.sessionId] else { return total + Int64(recording.size) }
      guard record.stage < .stored else { return total }
      return total + max(0, Int64(recording.size) - record.durableBytes)
    }
  }
}

extension SyncReport {
  /// Adds what an earlier, interrupted run did: its files this report does not have (the
  /// device no longer lists them), its given-up recordings, its bytes and re-issues
  /// (``absorb(_:)`` with this report as the later one).
  public mutating func merge(earlier: SyncReport) {
    var combined = earlier
    combined.absorb(self)
    self = combined
  }
}

extension DeviceSession {
  /// What a Wi-Fi session with this device needs from this BLE session: the serial its
  /// HELLO must match, the token for its handshake, the channel count, the recording in
  /// progress (asked of this session; none known once BLE is down), and for a Mode B device
  /// the session key its PDUs are sealed with.
  package func wifiSessionConfiguration() async -> WiFiTransport.Configuration {
    var wifi = WiFiTransport.Configuration(
      serial: info.serial, bleToken: configuration.token, audioChannels: info.audioChannels)
    wifi.oggAudio = info.oggAudio
    // The Wi-Fi AEAD from the pushed CAPABILITY bitmap's bit 3 (§3.1, §6); without a push,
    // unknown: the first PDU decides.
    let bitmap = channel.capability.withLock { $0 }
    wifi.sealing = await channel.cipher.map {
      WiFiSealing(
        $0.material, cipher: bitmap.map { $0.wifiAESGCM ? .aes256GCM : .chaCha20Poly1305 })
    }
    wifi.recordingInProgress = { [weak self] in
      guard let self else { return nil }
      return try? await BLETransport(session: self).recordingInProgress()
    }
    return wifi
  }
}
