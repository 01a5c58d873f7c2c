/// A 16-bit control opcode (PROTOCOL.md §3) [sdk]. Unknown values are kept as they are.
public struct Opcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  public init(_ rawValue: UInt16) { self.rawValue = rawValue }

  // §3.1 Session and device.
  /// HANDSHAKE [device][sdk].
  public static let handshake = Opcode(0x0001)
  /// GET_SERIAL [sdk].
  public static let getSerial = Opcode(0x0002)
  /// GET_STATE [device][sdk].
  public static let getState = Opcode(0x0003)
  /// TIME_SYNC [device][sdk].
  public static let timeSync = Opcode(0x0004)
  /// DEPAIR [sdk].
  public static let depair = Opcode(0x0005)
  /// STORAGE [device][sdk].
  public static let storage = Opcode(0x0006)
  /// SETTINGS read/write [device][sdk].
  public static let settings = Opcode(0x0008)
  /// BATTERY [device][sdk].
  public static let battery = Opcode(0x0009)
  /// WIFI_OPEN; also the reply opcode of WIFI_CLOSE [sdk].
  public static let wifiOpen = Opcode(0x000A)
  /// WIFI_CLOSE [sdk].
  public static let wifiClose = Opcode(0x000D)
  /// SET_PRIVACY [device][sdk].
  public static let setPrivacy = Opcode(0x0067)
  /// CLEAR_ALL [sdk].
  public static let clearAll = Opcode(0x0068)
  /// DISCONNECT_ME [sdk].
  public static let disconnectMe = Opcode(0x0069)
  /// SET_NAME; the device replies with ``getName`` [sdk].
  public static let setName = Opcode(0x006B)
  /// GET_NAME [device][sdk].
  public static let getName = Opcode(0x006C)
  /// SET_ACTIVE; `00` is the app's last command [device][sdk].
  public static let setActive = Opcode(0x006D)
  /// PING [sdk].
  public static let ping = Opcode(0x006E)
  /// WebSocket settings: P→D get or set; the device answers ``webSocketSettingsReply``
  /// [sdk-code].
  public static let webSocketSettings = Opcode(0x0010)
  public static let webSocketSettingsReply = Opcode(0x0011)
  /// CAPABILITY: D→P the device's pushed bitmap, P→D the host's answer `FF` [sdk-code].
  public static let capability = Opcode(0x008A)

  // §3.2 Recording (also sent unsolicited by the device) [sdk].
  public static let recordStart = Opcode(0x0014)
  public static let recordPause = Opcode(0x0015)
  public static let recordResume = Opcode(0x0016)
  public static let recordStop = Opcode(0x0017)

  // §3.3 Files.
  /// LIST [device][sdk].
  public static let list = Opcode(0x001A)
  /// SYNC_START; also the head reply [device][sdk].
  public static let syncStart = Opcode(0x001C)
  /// D→P sync tail; P→D SYNC_STOP [sdk].
  public static let syncTail = Opcode(0x001D)
  /// P→D DELETE; D→P the reply to SYNC_STOP [device][sdk].
  public static let delete = Opcode(0x001E)
  /// D→P reply to DELETE [device][sdk].
  public static let deleteResult = Opcode(0x001F)
  /// LED get / set [sdk]; replies ``ledGetReply`` / ``ledSetReply``.
  public static let ledGet = Opcode(0x0018)
  public static let ledSet = Opcode(0x0019)
  public static let ledGetReply = Opcode(0x0021)
  public static let ledSetReply = Opcode(0x0022)
  /// TAGS [device][sdk].
  public static let tags = Opcode(0x0026)

  // §3.4 Firmware update and small upload [sdk].
  public static let fotaPush = Opcode(0x0032)
  public static let fotaDone = Opcode(0x0033)
  public static let packRequest = Opcode(0x0034)
  public static let coprocessorVersion = Opcode(0x0036)
  public static let otaResumeInfo = Opcode(0x0097)
  public static let uploadBegin = Opcode(0x0070)
  public static let uploadRequest = Opcode(0x0071)
  public static let uploadChunk = Opcode(0x0072)
  public static let uploadCheck = Opcode(0x0074)
  public static let uploadResult = Opcode(0x0075)

  public var description: String { "0x" + hex(rawValue) }
}
