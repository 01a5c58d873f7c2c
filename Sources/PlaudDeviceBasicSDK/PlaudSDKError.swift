/// Why a facade call could not be carried out. The vendor's callbacks carry only status
/// codes or strings; this is the detail, in ``PlaudDeviceAgent/lastError`` and in the
/// strings given to `onError`. Descriptions never contain a token.
public enum PlaudSDKError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `initSDK` was not called, or no token is set.
  case noUserToken
  /// The user access token is not a JWT with a usable `sub` claim.
  case malformedUserToken(reason: String)
  /// No Bluetooth central was configured (see ``PlaudSDKConfiguration``).
  case noCentral
  /// The call needs a connected, authenticated device.
  case notConnected
  /// Wi-Fi Fast Transfer needs a hotspot joiner and none was configured
  /// (``PlaudSDKConfiguration/hotspotJoiner``).
  case noHotspotJoiner
  /// The Wi-Fi call needs a Wi-Fi session: `connectWifi` first, then wait for
  /// `wifiHandshake(0)`.
  case wifiNotConnected
  /// The system ended the app's background time (``PlaudSDKConfiguration/backgroundTasks``)
  /// while recording `sessionId` was moving: the transfer stopped with its bytes kept, and
  /// the next export of it resumes from them.
  case backgroundTimeEnded(sessionId: Int)
  /// The device or the sync failed; the text says how.
  case operationFailed(String)
  /// A vendor member RecorderKit does not support: no source of RecorderKit's knows its
  /// wire or server behaviour (`reason` says what is missing). It fails through its own
  /// callback or return value, never pretending success; docs/migrating-from-vendor-sdk.md
  /// lists every such member.
  case notSupported(member: String, reason: String)

  public var description: String {
    switch self {
    case .noUserToken: "no user access token: call initSDK(userAccessToken:customDomain:) first"
    case .malformedUserToken(let reason): "the user access token is malformed: \(reason)"
    case .noCentral: "no Bluetooth central is configured (PlaudSDKConfiguration.central)"
    case .notConnected: "no device is connected"
    case .noHotspotJoiner:
      "no hotspot joiner is configured (PlaudSDKConfiguration.hotspotJoiner): this platform cannot join the device's Wi-Fi"
    case .wifiNotConnected: "no Wi-Fi session: call connectWifi and wait for wifiHandshake(0)"
    case .backgroundTimeEnded(let id):
      "the system ended the app's background time: the transfer of recording \(id) stopped with its bytes kept; export it again to resume"
    case .operationFailed(let text): text
    case .notSupported(let member, let reason):
      "\(member) is not supported by RecorderKit: \(reason)"
    }
  }
}
