extension Recorders {
  /// After a sync: when a WIFI_CLOSE is still owed to the recorder with `serial` (its BLE was
  /// down when Wi-Fi ended), connects to it again and sends it. A recorder not reached keeps
  /// the debt for the next connection; the sync itself stays complete either way.
  func sendOwedWiFiClose(
    serial: String, owed: OwedWiFiCloses, report: @Sendable (SyncRunEvent) -> Void
  ) async {
    guard owed.isOwed(serial: serial), !Task.isCancelled else { return }
    guard let connection = try? await connect(serial: serial) else {
      report(.owedWiFiClose(sent: false))
      return
    }
    let sent = await owed.sendIfOwed(over: connection.session)
    await connection.close()
    report(.owedWiFiClose(sent: sent))
  }
}
