import RecorderConcurrency

extension Recorders {
  /// Joins the hotspot of a device whose name and password are already known (the vendor
  /// facade's `connectWifi`), waits for the device and runs HELLO and the handshake, on the
  /// door's clock (``clock``), trying again every `retryInterval` until `timeout` has
  /// passed (``WiFiSession/connect(to:joiner:session:timeout:configuration:)``). A sync
  /// raises and joins the hotspot itself (``SyncRunOptions/wifi``); this is for a caller
  /// that runs the §6 session request by request.
  /// - Throws: what the last attempt threw (``DeviceError``).
  package func joinWiFi(
    _ hotspot: DeviceHotspot, joiner: any HotspotJoiner, session: WiFiTransport.Configuration,
    timeout: Duration, link: WiFiLink.Configuration, retryInterval: Duration
  ) async throws(DeviceError) -> WiFiSession {
    try await WiFiSession.connect(
      to: hotspot, joiner: joiner, session: session, timeout: timeout,
      configuration: WiFiSession.Configuration(
        link: link, retryInterval: retryInterval, clock: clock))
  }
}
