/// A control message from the phone to the device (P→D), typed per opcode (PROTOCOL.md §3).
///
/// Decode with ``init(_:portVersion:)`` from a ``ControlFrame``; encode with
/// ``frame(portVersion:)``. Requests without a payload ignore any bytes after the opcode
/// [project]; opcodes RecorderKit does not model decode as ``unknown(_:)`` with their raw
/// payload.
public enum PhoneMessage: Sendable, Equatable {
  case handshake(HandshakeRequest)
  case getSerial
  case getState
  case timeSync(TimeSyncRequest)
  case depair(clearFiles: UInt8)
  case storage
  case settings(SettingsRequest)
  case battery
  case wifiOpen(WiFiOpenRequest)
  case wifiClose
  case setPrivacy(on: UInt8)
  case clearAll
  case disconnectMe
  case setName(DeviceName)
  case getName
  case setActive(UInt8)
  case ping
  case recordStart(RecordCommand)
  case recordPause(RecordSessionCommand)
  case recordResume(RecordSessionCommand)
  case recordStop(RecordCommand)
  case list(ListRequest)
  case syncStart(SyncStartRequest)
  case syncStop
  case delete(sessionId: SessionID)
  case ledGet
  case ledSet(on: UInt8)
  case tags(TagsRequest)
  case firmwarePush(FirmwarePush)
  case firmwareDone(FirmwareDone)
  case coprocessorVersion
  case otaResumeInfo
  case uploadBegin(UploadBegin)
  case uploadChunk(UploadChunk)
  case uploadCheck(UploadCheck)
  /// CAPABILITY, the host's answer to the device's push: `bitmap` `FF` (§3.1) [sdk-code].
  case capability(bitmap: UInt8)
  /// WebSocket settings get / set (`0010`, §3.4) [sdk-code].
  case webSocketSettings(WebSocketSettingsRequest)
  case unknown(ControlFrame)

  /// Decodes `frame` as sent by a phone to a device speaking `portVersion`.
  public init(_ frame: ControlFrame, portVersion: UInt16 = ProtocolDefaults.portVersion)
    throws(FrameError)
  {
    var reader = ByteReader(frame.payload)
    switch frame.opcode {
    case .handshake:
      self = .handshake(try HandshakeRequest(from: &reader, portVersion: portVersion))
    case .getSerial: self = .getSerial
    case .getState: self = .getState
    case .timeSync: self = .timeSync(try TimeSyncRequest(from: &reader))
    case .depair: self = .depair(clearFiles: try reader.u8("clearFiles"))
    case .storage: self = .storage
    case .settings: self = .settings(try SettingsRequest(from: &reader))
    case .battery: self = .battery
    case .wifiOpen: self = .wifiOpen(try WiFiOpenRequest(from: &reader))
    case .wifiClose: self = .wifiClose
    case .setPrivacy: self = .setPrivacy(on: try reader.u8("on"))
    case .clearAll: self = .clearAll
    case .disconnectMe: self = .disconnectMe
    case .setName: self = .setName(try DeviceName(from: &reader))
    case .getName: self = .getName
    case .setActive: self = .setActive(try reader.u8("active"))
    case .ping: self = .ping
    case .recordStart: self = .recordStart(try RecordCommand(from: &reader))
    case .recordPause: self = .recordPause(try RecordSessionCommand(from: &reader))
    case .recordResume: self = .recordResume(try RecordSessionCommand(from: &reader))
    case .recordStop: self = .recordStop(try RecordCommand(from: &reader))
    case .list: self = .list(try ListRequest(from: &reader))
    case .syncStart: self = .syncStart(try SyncStartRequest(from: &reader))
    case .syncTail: self = .syncStop
    case .delete: self = .delete(sessionId: SessionID(try reader.u32("sessionId")))
    case .ledGet: self = .ledGet
    case .ledSet: self = .ledSet(on: try reader.u8("on"))
    case .tags: self = .tags(try TagsRequest(from: &reader))
    case .fotaPush: self = .firmwarePush(try FirmwarePush(from: &reader))
    case .fotaDone: self = .firmwareDone(try FirmwareDone(from: &reader))
    case .coprocessorVersion: self = .coprocessorVersion
    case .otaResumeInfo: self = .otaResumeInfo
    case .uploadBegin: self = .uploadBegin(try UploadBegin(from: &reader))
    case .uploadChunk: self = .uploadChunk(try UploadChunk(from: &reader))
    case .uploadCheck: self = .uploadCheck(try UploadCheck(from: &reader))
    case .capability: self = .capability(bitmap: try reader.u8("bitmap"))
    case .webSocketSettings:
      self = .webSocketSettings(try WebSocketSettingsRequest(from: &reader))
    default: self = .unknown(frame)
    }
  }

  /// The control frame that carries this message to a device speaking `portVersion`.
  public func frame(portVersion: UInt16 = ProtocolDefaults.portVersion) -> ControlFrame {
    var writer = ByteWriter()
    let opcode: Opcode
    switch self {
    case .handshake(let request):
      opcode = .handshake
      request.write(to: &writer, portVersion: portVersion)
    case .getSerial: opcode = .getSerial
    case .getState: opcode = .getState
    case .timeSync(let request):
      opcode = .timeSync
      request.write(to: &writer)
    case .depair(let clearFiles):
      opcode = .depair
      writer.u8(clearFiles)
    case .storage: opcode = .storage
    case .settings(let request):
      opcode = .settings
      request.write(to: &writer)
    case .battery: opcode = .battery
    case .wifiOpen(let request):
      opcode = .wifiOpen
      request.write(to: &writer)
    case .wifiClose: opcode = .wifiClose
    case .setPrivacy(let on):
      opcode = .setPrivacy
      writer.u8(on)
    case .clearAll: opcode = .clearAll
    case .disconnectMe: opcode = .disconnectMe
    case .setName(let name):
      opcode = .setName
      name.write(to: &writer)
    case .getName: opcode = .getName
    case .setActive(let active):
      opcode = .setActive
      writer.u8(active)
    case .ping: opcode = .ping
    case .recordStart(let command):
      opcode = .recordStart
      command.write(to: &writer)
    case .recordPause(let command):
      opcode = .recordPause
      command.write(to: &writer)
    case .recordResume(let command):
      opcode = .recordResume
      command.write(to: &writer)
    case .recordStop(let command):
      opcode = .recordStop
      command.write(to: &writer)
    case .list(let request):
      opcode = .list
      request.write(to: &writer)
    case .syncStart(let request):
      opcode = .syncStart
      request.write(to: &writer)
    case .syncStop: opcode = .syncTail
    case .delete(let sessionId):
      opcode = .delete
      writer.u32(sessionId.rawValue)
    case .ledGet: opcode = .ledGet
    case .ledSet(let on):
      opcode = .ledSet
      writer.u8(on)
    case .tags(let request):
      opcode = .tags
      request.write(to: &writer)
    case .firmwarePush(let push):
      opcode = .fotaPush
      push.write(to: &writer)
    case .firmwareDone(let done):
      opcode = .fotaDone
      done.write(to: &writer)
    case .coprocessorVersion: opcode = .coprocessorVersion
    case .otaResumeInfo: opcode = .otaResumeInfo
    case .uploadBegin(let begin):
      opcode = .uploadBegin
      begin.write(to: &writer)
    case .uploadChunk(let chunk):
      opcode = .uploadChunk
      chunk.write(to: &writer)
    case .uploadCheck(let check):
      opcode = .uploadCheck
      check.write(to: &writer)
    case .capability(let bitmap):
      opcode = .capability
      writer.u8(bitmap)
    case .webSocketSettings(let request):
      opcode = .webSocketSettings
      request.write(to: &writer)
    case .unknown(let frame): return frame
    }
    return ControlFrame(opcode: opcode, payload: writer.bytes)
  }

  /// The whole frame's bytes (`01 <opcode> <payload>`).
  public func encoded(portVersion: UInt16 = ProtocolDefaults.portVersion) -> [UInt8] {
    Frame.control(frame(portVersion: portVersion)).encoded(portVersion: portVersion)
  }
}

extension PhoneMessage: FieldDescribable {
  /// The message's name as PROTOCOL.md §3 spells it (`HANDSHAKE`, `SYNC_START`, …).
  public var name: String {
    switch self {
    case .handshake: "HANDSHAKE"
    case .getSerial: "GET_SERIAL"
    case .getState: "GET_STATE"
    case .timeSync: "TIME_SYNC"
    case .depair: "DEPAIR"
    case .storage: "STORAGE"
    case .settings: "SETTINGS"
    case .battery: "BATTERY"
    case .wifiOpen: "WIFI_OPEN"
    case .wifiClose: "WIFI_CLOSE"
    case .setPrivacy: "SET_PRIVACY"
    case .clearAll: "CLEAR_ALL"
    case .disconnectMe: "DISCONNECT_ME"
    case .setName: "SET_NAME"
    case .getName: "GET_NAME"
    case .setActive: "SET_ACTIVE"
    case .ping: "PING"
    case .recordStart: "REC_START"
    case .recordPause: "REC_PAUSE"
    case .recordResume: "REC_RESUME"
    case .recordStop: "REC_STOP"
    case .list: "LIST"
    case .syncStart: "SYNC_START"
    case .syncStop: "SYNC_STOP"
    case .delete: "DELETE"
    case .ledGet: "LED_GET"
    case .ledSet: "LED_SET"
    case .tags: "TAGS"
    case .firmwarePush: "FOTA_PUSH"
    case .firmwareDone: "FOTA_DONE"
    case .coprocessorVersion: "COPROCESSOR_VERSION"
    case .otaResumeInfo: "OTA_RESUME_INFO"
    case .uploadBegin: "UPLOAD_BEGIN"
    case .uploadChunk: "UPLOAD_CHUNK"
    case .uploadCheck: "UPLOAD_CHECK"
    case .capability: "CAPABILITY"
    case .webSocketSettings: "WEBSOCKET_SETTINGS"
    case .unknown: "UNKNOWN"
    }
  }

  public var fields: [Field] {
    switch self {
    case .handshake(let value): value.fields
    case .timeSync(let value): value.fields
    case .depair(let clearFiles): [Field("clearFiles", clearFiles)]
    case .settings(let value): value.fields
    case .wifiOpen(let value): value.fields
    case .setPrivacy(let on): [Field("on", on)]
    case .setName(let value): value.fields
    case .setActive(let active): [Field("active", active)]
    case .recordStart(let value), .recordStop(let value): value.fields
    case .recordPause(let value), .recordResume(let value): value.fields
    case .list(let value): value.fields
    case .syncStart(let value): value.fields
    case .delete(let sessionId): [Field("sessionId", sessionId.rawValue)]
    case .ledSet(let on): [Field("on", on)]
    case .tags(let value): value.fields
    case .firmwarePush(let value): value.fields
    case .firmwareDone(let value): value.fields
    case .uploadBegin(let value): value.fields
    case .uploadChunk(let value): value.fields
    case .uploadCheck(let value): value.fields
    case .capability(let bitmap): [Field("bitmap", bitmap)]
    case .webSocketSettings(let request): request.fields
    case .unknown(let frame): [Field("payload", .bytes(frame.payload))]
    case .getSerial, .getState, .storage, .battery, .wifiClose, .clearAll, .disconnectMe,
      .getName, .ping, .syncStop, .ledGet, .coprocessorVersion, .otaResumeInfo:
      []
    }
  }
}
