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
