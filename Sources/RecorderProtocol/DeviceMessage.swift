/// A control message from the device to the phone (D→P), typed per opcode (PROTOCOL.md §3).
///
/// Replies repeat the request opcode except where §3 says otherwise [sdk]; the REC_* cases
/// also arrive unsolicited. Opcodes RecorderKit does not model decode as ``unknown(_:)``.
public enum DeviceMessage: Sendable, Equatable {
  case handshake(HandshakeResponse)
  case serial(SerialResponse)
  case state(DeviceState)
  case timeSync(TimeSyncResponse)
  case depair(status: UInt8?)
  case storage(StorageInfo)
  case setting(SettingValue)
  case battery(BatteryStatus)
  /// The reply to WIFI_OPEN, and to WIFI_CLOSE (which the SDK awaits as `000A`) [sdk].
  case wifiOpen(WiFiOpenResponse)
  case wifiClose(status: UInt8)
  case privacy(on: UInt8)
  case clearAll(status: UInt8?)
  /// GET_NAME's reply, also the reply to SET_NAME [sdk].
  case name(DeviceName)
  case active(UInt8)
  case pong([UInt8])
  case recordStarted(RecordStarted)
  case recordPaused(RecordStopped)
  case recordResumed(RecordStarted)
  case recordStopped(RecordStopped)
  case listPage(ListPage)
  case syncHead(SessionStatus)
  case syncTail(SyncTail)
  /// The reply to SYNC_STOP (`001E`, empty) [sdk].
  case syncStopped
  case deleted(SessionStatus)
  /// A `001E` carrying `sessionId u32` · `status u8`: the one captured reply to DELETE was
  /// 8 bytes with an illegible opcode [device]; while a DELETE is pending RecorderKit takes
  /// this as its reply, like `001F` [project].
  case deletedAs001E(SessionStatus)
  case ledGet(on: UInt8)
  case ledSet(on: UInt8)
  case tagsPage(TagsPage)
  case firmwareStatus(FirmwareStatus)
  case firmwareDone(FirmwareDone)
  case packRequest(PackRequest)
  case coprocessorVersion(CoprocessorVersion)
  case otaResumeInfo(OTAResumeInfo)
  case uploadRequest(UploadRequest)
  case uploadResult(UInt8)
  /// CAPABILITY, pushed by the device (§3.1) [sdk-code].
  case capability(CapabilityBitmap)
  /// The WebSocket setting asked for or written (`0011`, §3.4) [sdk-code].
  case webSocketSetting(WebSocketSettingValue)
  case unknown(ControlFrame)

  /// Decodes `frame` as sent by a device speaking `portVersion`.
  public init(_ frame: ControlFrame, portVersion: UInt16 = ProtocolDefaults.portVersion)
    throws(FrameError)
  {
    var reader = ByteReader(frame.payload)
    switch frame.opcode {
    case .handshake: self = .handshake(try HandshakeResponse(from: &reader))
    case .getSerial: self = .serial(try SerialResponse(from: &reader))
    case .getState: self = .state(try DeviceState(from: &reader))
    case .timeSync: self = .timeSync(try TimeSyncResponse(from: &reader))
    case .depair: self = .depair(status: reader.optionalU8())
    case .storage: self = .storage(try StorageInfo(from: &reader))
    case .settings: self = .setting(try SettingValue(from: &reader))
    case .battery: self = .battery(try BatteryStatus(from: &reader))
    case .wifiOpen: self = .wifiOpen(try WiFiOpenResponse(from: &reader))
    case .wifiClose: self = .wifiClose(status: try reader.u8("status"))
    case .setPrivacy: self = .privacy(on: try reader.u8("on"))
    case .clearAll: self = .clearAll(status: reader.optionalU8())
    case .getName: self = .name(try DeviceName(from: &reader))
    case .setActive: self = .active(try reader.u8("active"))
    case .ping: self = .pong(reader.rest())
    case .recordStart: self = .recordStarted(try RecordStarted(from: &reader))
    case .recordPause: self = .recordPaused(try RecordStopped(from: &reader))
    case .recordResume: self = .recordResumed(try RecordStarted(from: &reader))
    case .recordStop: self = .recordStopped(try RecordStopped(from: &reader))
    case .list: self = .listPage(try ListPage(from: &reader, portVersion: portVersion))
    case .syncStart: self = .syncHead(try SessionStatus(from: &reader))
    case .syncTail: self = .syncTail(try SyncTail(from: &reader))
    case .delete:
      self = reader.remaining >= 5 ? .deletedAs001E(try SessionStatus(from: &reader)) : .syncStopped
    case .deleteResult: self = .deleted(try SessionStatus(from: &reader))
    case .ledGetReply: self = .ledGet(on: try reader.u8("on"))
    case .ledSetReply: self = .ledSet(on: try reader.u8("on"))
    case .tags: self = .tagsPage(try TagsPage(from: &reader))
    case .fotaPush: self = .firmwareStatus(try FirmwareStatus(from: &reader))
    case .fotaDone: self = .firmwareDone(try FirmwareDone(from: &reader))
    case .packRequest: self = .packRequest(try PackRequest(from: &reader))
    case .coprocessorVersion: self = .coprocessorVersion(try CoprocessorVersion(from: &reader))
    case .otaResumeInfo: self = .otaResumeInfo(try OTAResumeInfo(from: &reader))
    case .uploadRequest: self = .uploadRequest(try UploadRequest(from: &reader))
    case .uploadResult: self = .uploadResult(try reader.u8("result"))
    case .capability: self = .capability(CapabilityBitmap(rawValue: try reader.u8("bitmap")))
    case .webSocketSettingsReply:
      self = .webSocketSetting(try WebSocketSettingValue(from: &reader))
    default: self = .unknown(frame)
    }
  }

  /// The control frame that carries this message from a device speaking `portVersion`.
  public func frame(portVersion: UInt16 = ProtocolDefaults.portVersion) -> ControlFrame {
    var writer = ByteWriter()
    let opcode: Opcode
    switch self {
    case .handshake(let value):
      opcode = .handshake
      value.write(to: &writer)
    case .serial(let value):
      opcode = .getSerial
      value.write(to: &writer)
    case .state(let value):
      opcode = .getState
      value.write(to: &writer)
    case .timeSync(let value):
      opcode = .timeSync
      value.write(to: &writer)
    case .depair(let status):
      opcode = .depair
      writer.optionalTail([status])
    case .storage(let value):
      opcode = .storage
      value.write(to: &writer)
    case .setting(let value):
      opcode = .settings
      value.write(to: &writer)
    case .battery(let value):
      opcode = .battery
      value.write(to: &writer)
    case .wifiOpen(let value):
      opcode = .wifiOpen
      value.write(to: &writer)
    case .wifiClose(let status):
      opcode = .wifiClose
      writer.u8(status)
    case .privacy(let on):
      opcode = .setPrivacy
      writer.u8(on)
    case .clearAll(let status):
      opcode = .clearAll
      writer.optionalTail([status])
    case .name(let value):
      opcode = .getName
      value.write(to: &writer)
    case .active(let active):
      opcode = .setActive
      writer.u8(active)
    case .pong(let payload):
      opcode = .ping
      writer.bytes(payload)
    case .recordStarted(let value):
      opcode = .recordStart
      value.write(to: &writer)
    case .recordPaused(let value):
      opcode = .recordPause
      value.write(to: &writer)
    case .recordResumed(let value):
      opcode = .recordResume
      value.write(to: &writer)
    case .recordStopped(let value):
      opcode = .recordStop
      value.write(to: &writer)
    case .listPage(let value):
      opcode = .list
      value.write(to: &writer, portVersion: portVersion)
    case .syncHead(let value):
      opcode = .syncStart
      value.write(to: &writer)
    case .syncTail(let value):
      opcode = .syncTail
      value.write(to: &writer)
    case .syncStopped: opcode = .delete
    case .deletedAs001E(let value):
      opcode = .delete
      value.write(to: &writer)
    case .deleted(let value):
      opcode = .deleteResult
      value.write(to: &writer)
    case .ledGet(let on):
      opcode = .ledGetReply
      writer.u8(on)
    case .ledSet(let on):
      opcode = .ledSetReply
      writer.u8(on)
    case .tagsPage(let value):
      opcode = .tags
      value.write(to: &writer)
    case .firmwareStatus(let value):
      opcode = .fotaPush
      value.write(to: &writer)
    case .firmwareDone(let value):
      opcode = .fotaDone
      value.write(to: &writer)
    case .packRequest(let value):
      opcode = .packRequest
      value.write(to: &writer)
    case .coprocessorVersion(let value):
      opcode = .coprocessorVersion
      value.write(to: &writer)
    case .otaResumeInfo(let value):
      opcode = .otaResumeInfo
      value.write(to: &writer)
    case .uploadRequest(let value):
      opcode = .uploadRequest
      value.write(to: &writer)
    case .uploadResult(let result):
      opcode = .uploadResult
      writer.u8(result)
    case .capability(let bitmap):
      opcode = .capability
      writer.u8(bitmap.rawValue)
    case .webSocketSetting(let value):
      opcode = .webSocketSettingsReply
      value.write(to: &writer)
    case .unknown(let frame): return frame
    }
    return ControlFrame(opcode: opcode, payload: writer.bytes)
  }

  /// The whole frame's bytes (`01 <opcode> <payload>`).
  public func encoded(portVersion: UInt16 = ProtocolDefaults.portVersion) -> [UInt8] {
    Frame.control(frame(portVersion: portVersion)).encoded(portVersion: portVersion)
  }
}

extension DeviceMessage: FieldDescribable {
  /// The message's name (PROTOCOL.md §3), with `_REPLY` or the event name where it differs.
  public var name: String {
    switch self {
    case .handshake: "HANDSHAKE"
    case .serial: "GET_SERIAL"
    case .state: "GET_STATE"
    case .timeSync: "TIME_SYNC"
    case .depair: "DEPAIR"
    case .storage: "STORAGE"
    case .setting: "SETTINGS"
    case .battery: "BATTERY"
    case .wifiOpen: "WIFI_OPEN"
    case .wifiClose: "WIFI_CLOSE"
    case .privacy: "SET_PRIVACY"
    case .clearAll: "CLEAR_ALL"
    case .name: "GET_NAME"
    case .active: "SET_ACTIVE"
    case .pong: "PING"
    case .recordStarted: "REC_START"
    case .recordPaused: "REC_PAUSE"
    case .recordResumed: "REC_RESUME"
    case .recordStopped: "REC_STOP"
    case .listPage: "LIST"
    case .syncHead: "SYNC_START"
    case .syncTail: "SYNC_TAIL"
    case .syncStopped: "SYNC_STOP"
    case .deleted, .deletedAs001E: "DELETE"
    case .ledGet: "LED_GET"
    case .ledSet: "LED_SET"
    case .tagsPage: "TAGS"
    case .firmwareStatus: "FOTA_PUSH"
    case .firmwareDone: "FOTA_DONE"
    case .packRequest: "PACK_REQ"
    case .coprocessorVersion: "COPROCESSOR_VERSION"
    case .otaResumeInfo: "OTA_RESUME_INFO"
    case .uploadRequest: "UPLOAD_REQUEST"
    case .uploadResult: "UPLOAD_RESULT"
    case .capability: "CAPABILITY"
    case .webSocketSetting: "WEBSOCKET_SETTINGS_REPLY"
    case .unknown: "UNKNOWN"
    }
  }

  public var fields: [Field] {
    switch self {
    case .handshake(let value): value.fields
    case .serial(let value): value.fields
    case .state(let value): value.fields
    case .timeSync(let value): value.fields
    case .depair(let status), .clearAll(let status):
      status.map { [Field("status", $0)] } ?? []
    case .storage(let value): value.fields
    case .setting(let value): value.fields
    case .battery(let value): value.fields
    case .wifiOpen(let value): value.fields
    case .wifiClose(let status): [Field("status", status)]
    case .privacy(let on), .ledGet(let on), .ledSet(let on): [Field("on", on)]
    case .name(let value): value.fields
    case .active(let active): [Field("active", active)]
    case .pong(let payload): payload.isEmpty ? [] : [Field("payload", .bytes(payload))]
    case .recordStarted(let value), .recordResumed(let value): value.fields
    case .recordPaused(let value), .recordStopped(let value): value.fields
    case .listPage(let value): value.fields
    case .syncHead(let value), .deleted(let value), .deletedAs001E(let value): value.fields
    case .syncTail(let value): value.fields
    case .syncStopped: []
    case .tagsPage(let value): value.fields
    case .firmwareStatus(let value): value.fields
    case .firmwareDone(let value): value.fields
    case .packRequest(let value): value.fields
    case .coprocessorVersion(let value): value.fields
    case .otaResumeInfo(let value): value.fields
    case .uploadRequest(let value): value.fields
    case .uploadResult(let result): [Field("result", result)]
    case .capability(let bitmap): [Field("bitmap", bitmap.rawValue)]
    case .webSocketSetting(let value): value.fields
    case .unknown(let frame): [Field("payload", .bytes(frame.payload))]
    }
  }
}
