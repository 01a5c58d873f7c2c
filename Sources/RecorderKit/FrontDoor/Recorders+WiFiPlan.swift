import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderStore

extension Recorders {
  /// The door's transport decision for one attempt (the pipeline itself, ``SyncEngine``,
  /// takes any transport and never decides): syncs the device behind `session` into
  /// `engine`, over Wi-Fi when `wifi` is given, the device has it
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
  package static func sync(
    _ engine: SyncEngine, over session: DeviceSession, wifi plan: WiFiSyncPlan?
  ) async throws(SyncError) -> SyncReport {
    let ble = BLETransport(session: session)
    guard let plan else { return try await engine.sync(using: ble) }
    guard await session.info.supportsWiFi else {
      var report = try await engine.sync(using: ble)
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
    let backlog = try await engine.bytesToMove(
      listed, serial: await session.info.serial, skipping: inProgress)
    // BLE for a small backlog: with the LIST and state just asked, not asked again.
    guard backlog >= plan.minimumBacklogBytes else {
      return try await engine.sync(using: ble, listing: (listed, inProgress))
    }

    let failure: DeviceError
    await engine.clearInterruptedReport()  // only what this Wi-Fi attempt finishes is merged
    do {
      return try await syncOverWiFi(
        engine, session: session, plan: plan, listed: listed, inProgress: inProgress)
    } catch .device(let error) where error != .cancelled && !Task.isCancelled {
      failure = error
    }
    // What Wi-Fi finished stays in the report, even files it already deleted.
    let partial = await engine.interruptedReport
    var report = try await engine.sync(using: ble)
    report.wifiFallback = failure
    if let partial { report.merge(earlier: partial) }
    return report
  }

  /// Raise, join, sync, close. Throws what stopped Wi-Fi; the caller falls back to BLE.
  private static func syncOverWiFi(
    _ engine: SyncEngine, session: DeviceSession, plan: WiFiSyncPlan, listed: [Recording],
    inProgress: SessionID?
  ) async throws(SyncError) -> SyncReport {
    let owed = engine.owedWiFiCloses
    let link: WiFiLink
    do throws(DeviceError) {
      let hotspot = try await session.openWiFi(
        password: plan.password ?? DeviceHotspot.randomPassword())
      await noteWiFiCloseOwed(session, owed)
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
        await closeWiFi(session, owed)
        throw error
      }
    } catch {
      throw .device(error)
    }
    let result: Result<SyncReport, SyncError>
    do {
      result = .success(try await engine.sync(using: link.transport))
    } catch {
      result = .failure(error)
    }
    // Close on every path, a cancelled sync (an expired background budget) included: in a
    // task of its own, which the caller's cancellation does not reach, so no step of STOP,
    // the close with 1000 and the BLE-side WIFI_CLOSE can be cut short by it.
    await Task {
      await link.close()
      await closeWiFi(session, owed)
    }.value
    return try result.get()
  }

  /// The device granted WIFI_OPEN: its WIFI_CLOSE is owed until answered (best effort: a
  /// marker that cannot be written only loses the close's survival of a restart).
  private static func noteWiFiCloseOwed(_ session: DeviceSession, _ owed: OwedWiFiCloses) async {
    try? owed.markOwed(serial: await session.info.serial)
  }

  /// WIFI_CLOSE over BLE, settling the owed close once answered; BLE down leaves it owed.
  private static func closeWiFi(_ session: DeviceSession, _ owed: OwedWiFiCloses) async {
    guard (try? await session.closeWiFi()) != nil else { return }
    try? owed.settle(serial: await session.info.serial)
  }
}
