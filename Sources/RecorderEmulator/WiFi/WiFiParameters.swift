import RecorderConcurrency
import RecorderWebSocket

/// How the emulated device's Wi-Fi side (PROTOCOL.md §6) behaves: its idle timer, the size of
/// what it sends, and the clock its timers run on.
///
/// The Wi-Fi data path is real TCP. On a device that runs on a manual clock, the phone's side
/// runs on that clock too: the session holds it while messages go either way (their real
/// TCP time is no simulated time) and moves it on by ``contentBytesPerSecond`` for the content
/// it sends. The device's own Wi-Fi timers (idle, STOP's grace, PINGs) run on ``clock``
/// (continuous by default); a test makes it a `ManualClock` and advances it explicitly.
public struct WiFiParameters: Sendable {
  /// Runs the idle timeout and the close after a final STOP. The WebSocket's own timeouts
  /// (handshake, close handshake) stay on the continuous clock: they are TCP mechanics.
  public var clock: AnyClock
  /// A raised hotspot (with or without a session) quits after this long without a message
  /// from the phone or content going out: ~2 min [sdk].
  public var idleTimeout: Duration
  /// After a STOP that ended no transfer the device closes with 1000 unless the phone sends
  /// another request (or closes itself) within this time [project].
  public var stopGrace: Duration
  /// Recording bytes per content PDU [project: the vendor's size is not documented].
  public var contentChunkBytes: Int
  /// Entries per LIST page [project: paging is not documented].
  public var listPageEntries: Int
  /// The device PINGs `{volume,voltage,charging}` this often once the handshake is done (on
  /// ``clock``); nil sends none. The phone must answer each with PONG [sdk].
  public var pingInterval: Duration?
  /// The modeled rate of content over the device's access point, on a device that runs on
  /// a manual clock: each content PDU moves that clock on by its size at this rate.
  /// 1,000,000 bytes a second by default [project: the vendor gives no figure]; nil adds no
  /// time. A device on a real clock is as fast as its TCP.
  public var contentBytesPerSecond: Int? = 1_000_000
  /// Limits of the device's WebSocket client.
  public var webSocket: WebSocketConfiguration
  /// The access point needs this long after WIFI_OPEN before a join succeeds; until then the
  /// join port answers `ERR the hotspot is not ready yet` (docs/tcp-link.md). ~3 s [sdk: the
  /// app waits ~3 s, then retries joining for up to 180 s]. Unlike the timers above it runs
  /// on the device's own time (``EmulatedDevice/time``): the firmware raises the hotspot.
  public var hotspotStartupDelay: Duration
  /// STOP must carry `{session, scene}` (PROTOCOL.md §6) [sdk]: a bare `{}` is answered ERR
  /// `{cmd:15,status:1}` and changes nothing. false takes `{}` as STOP.
  public var requireStopSession: Bool
  /// The hotspot's SSID whatever the model (a device that names it its own way); nil: by
  /// model, PROTOCOL.md §6 [sdk]. Only a phone told it in the WIFI_OPEN reply
  /// (``openReplySSID``) can then join.
  public var ssid: String? = nil
  /// What the WIFI_OPEN reply reports after the password: no SSID (default), or the SSID in
  /// one of RecorderKit's two readings (the vendor's layout is not known [sdk]).
  public var openReplySSID: WiFiOpenReplySSID = .none
  /// The device's BLE link goes down right after it grants WIFI_OPEN and stays down (not
  /// advertising, not connectable) until the Wi-Fi session that follows ends or the hotspot
  /// goes; a WIFI_CLOSE then needs a new BLE connection (the vendor's template app is written
  /// for such devices [sdk]). false (default): BLE stays up throughout.
  public var dropsBLEOnOpen = false
  /// A join while a Wi-Fi session is still active is refused (`ERR a Wi-Fi session is
  /// already active`) instead of taken as already joined: the other answer a device may give
  /// (the phone then joins again once that session has ended). false (default): joining is
  /// idempotent.
  public var refusesJoinWhileActive = false

  /// The defaults: continuous clock, 2 min idle, 32 KiB content PDUs, 100 entries a page,
  /// no PINGs, a 3 s hotspot start-up, STOP must name its session.
  /// - Precondition: `contentChunkBytes` and `listPageEntries` are positive (programmer errors).
  public init(
    clock: AnyClock = .continuous, idleTimeout: Duration = .seconds(120),
    stopGrace: Duration = .seconds(1), contentChunkBytes: Int = 32 << 10,
    listPageEntries: Int = 100, pingInterval: Duration? = nil,
    webSocket: WebSocketConfiguration = WebSocketConfiguration(),
    hotspotStartupDelay: Duration = .seconds(3), requireStopSession: Bool = true
  ) {
    precondition(contentChunkBytes > 0, "content PDUs carry at least one byte")
    precondition(listPageEntries > 0, "LIST pages hold at least one entry")
    self.clock = clock
    self.idleTimeout = idleTimeout
    self.stopGrace = stopGrace
    self.contentChunkBytes = contentChunkBytes
    self.listPageEntries = listPageEntries
    self.pingInterval = pingInterval
    self.webSocket = webSocket
    self.hotspotStartupDelay = hotspotStartupDelay
    self.requireStopSession = requireStopSession
  }
}
