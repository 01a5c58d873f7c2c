import TestSupport

@testable import RecorderProtocol

/// Random valid values of every message and frame, in the canonical forms the codec
/// documents (so encode → decode must give the same value back):
/// - a HANDSHAKE reply's optional tail stops at its first nil, and the firmware version comes
///   only after all five optional bytes;
/// - a HANDSHAKE token is exactly its wire length of printable ASCII; `appVerify` is 0 below
///   portVersion 3 (not on the wire); an all-zero second stage is the same as none;
/// - GET_STATE's `scene` and `sessionId` come together, after `keyState` and `usb`;
/// - LIST entries carry `scene` from portVersion 7 and `attribute` from 2;
/// - bulk frames carry a session id from portVersion 7;
/// - names are UTF-8 without NUL, no wider than their field.
extension Gen {
  /// The portVersions whose layouts differ (appVerify at 3, token width at 9, LIST entry and
  /// bulk layouts at 2 and 7).
  static let portVersions: [UInt16] = [1, 2, 6, 7, 9, 10]

  /// Number of `PhoneMessage` cases ``phoneMessage(portVersion:)`` generates.
  static let phoneCaseCount = 38
  /// Number of `DeviceMessage` cases ``deviceMessage(portVersion:)`` generates.
  static let deviceCaseCount = 37
  /// Number of `Frame` cases ``frame(portVersion:)`` generates.
  static let frameCaseCount = 6

  mutating func session() -> SessionID { SessionID(u32()) }

  mutating func firmware() -> FirmwareVersion {
    FirmwareVersion(type: u8(), code: u32() & 0xFF_FFFF)
  }

  mutating func deviceName() -> DeviceName {
    let name = text(maxBytes: 40)
    return DeviceName(name, fieldWidth: name.utf8.count + int(0...8))
  }

  /// An opcode that `decodes` treats as unknown (an empty payload gives `.unknown`).
  mutating func unknownControl(isUnknown: (ControlFrame) -> Bool) -> ControlFrame {
    while true {
      let opcode = Opcode(bool() ? u16() : UInt16(int(0...0xA0)))
      if isUnknown(ControlFrame(opcode: opcode)) {
        return ControlFrame(opcode: opcode, payload: bytes(0...24))
      }
    }
  }

  mutating func handshakeRequest(portVersion: UInt16) -> HandshakeRequest {
    let tokenBytes = printable(DeviceToken.wireLength(portVersion: portVersion))
    var second: HandshakeRequest.SecondStage?
    if bool() {
      var deviceToken = oneIn(3) ? [UInt8](repeating: 0, count: 8) : bytes(8...8)
      if oneIn(2) {
        for i in int(4...7)..<8 { deviceToken[i] = 0 }  // trailing zeros get trimmed
      }
      var name: [UInt8] =
        switch int(0...3) {
        case 0: []
        case 1: [UInt8](repeating: 0, count: int(1...4))
        case 2: Array(text(maxBytes: 40).utf8) + [UInt8](repeating: 0, count: int(0...2))
        default: bytes(1...255)
        }
      if deviceToken.allSatisfy({ $0 == 0 }) && name.isEmpty { name = [0x41] }
      second = HandshakeRequest.SecondStage(deviceToken: deviceToken, name: name)
    }
    return HandshakeRequest(
      hostType: u8(), bleVersion: u8(), appVerify: portVersion >= 3 ? u8() : 0,
      token: DeviceToken(bytes: tokenBytes)!, secondStage: second)
  }

  mutating func handshakeResponse() -> HandshakeResponse {
    let present = int(0...5)
    var tail: [UInt8?] = (0..<5).map { _ in u8() }
    for i in present..<5 { tail[i] = nil }
    return HandshakeResponse(
      status: u8(), portVersion: u16(), tzHours: i8(), tzMinutes: tail[0],
      audioChannels: tail[1], supportWifi: tail[2], noNsAgc: tail[3], oggAudio: tail[4],
      firmware: present == 5 && bool() ? firmware() : nil)
  }

  mutating func deviceState() -> DeviceState {
    let depth = int(0...6)
    return DeviceState(
      state: u32(), privacy: u8(), keyState: depth >= 1 ? u8() : nil,
      usb: depth >= 2 ? u8() : nil, scene: depth >= 3 ? u8() : nil,
      sessionId: depth >= 3 ? session() : nil, findMy: depth >= 4 ? u8() : nil,
      soundPlusKey: depth >= 5 ? u8() : nil, httpToken: depth >= 6 ? u8() : nil)
  }

  mutating func listPage(portVersion: UInt16) -> ListPage {
    let count = oneIn(4) ? 0 : int(1...9)
    let index = UInt16(int(0...(bool() ? 20 : 60_000)))
    let total = index + UInt16(count) + UInt16(int(0...(bool() ? 0 : 100)))
    let entries = (0..<count).map { _ in
      ListEntry(
        sessionId: session(), size: u32(), scene: portVersion >= 7 ? u8() : nil,
        attribute: portVersion >= 2 ? u8() : nil)
    }
    return ListPage(requestTag: u32(), total: total, index: index, entries: entries)
  }

  mutating func recordStarted() -> RecordStarted {
    let scene = maybe { $0.u8() }
    return RecordStarted(
      sessionId: session(), start: u32(), status: u8(), scene: scene,
      startTime: scene == nil ? nil : maybe { $0.u32() })
  }

  mutating func recordStopped() -> RecordStopped {
    let fileExists = maybe { $0.u8() }
    return RecordStopped(
      sessionId: session(), reason: u8(), fileExists: fileExists,
      fileSize: fileExists == nil ? nil : maybe { $0.u32() })
  }

  mutating func packRequest() -> PackRequest {
    let depth = int(0...3)
    return PackRequest(
      uid: u32(), start: u32(), end: depth >= 1 ? u32() : nil,
      toVersion: depth >= 2 ? u32() : nil, silent: depth >= 3 ? u8() : nil)
  }

  mutating func webSocketSettingsRequest() -> WebSocketSettingsRequest {
    let type = webSocketSettingType()
    return oneIn(2) ? .get(type) : .set(type, value: nonZeroBytes(0...type.width))
  }

  mutating func webSocketSettingType() -> WebSocketSettingType {
    WebSocketSettingType.allCases[int(0...2)]
  }

  /// Bytes without a NUL (a NUL ends a WebSocket setting's value), cut to the type's width
  /// by the message itself.
  mutating func nonZeroBytes(_ range: ClosedRange<Int>) -> [UInt8] {
    bytes(range).map { $0 == 0 ? 1 : $0 }
  }

  mutating func firmwareStatus() -> FirmwareStatus {
    let version = maybe { $0.firmware() }
    return FirmwareStatus(
      uid: u32(), status: u8(), version: version, silent: version == nil ? nil : maybe { $0.u8() })
  }

  /// A random P→D message; `choice` picks the case (0..<``phoneCaseCount``).
  mutating func phoneMessage(portVersion: UInt16, choice: Int) -> PhoneMessage {
    switch choice {
    case 0: .handshake(handshakeRequest(portVersion: portVersion))
    case 1: .getSerial
    case 2: .getState
    case 3: .timeSync(TimeSyncRequest(unixSeconds: u32(), tzHours: i8(), tzMinutes: u8()))
    case 4: .depair(clearFiles: u8())
    case 5: .storage
    case 6: .settings(bool() ? .read(setting: u16()) : .write(setting: u16(), value: u32()))
    case 7: .battery
    case 8: .wifiOpen(WiFiOpenRequest(forOta: u8(), password: maybe { $0.printable(8) }))
    case 9: .wifiClose
    case 10: .setPrivacy(on: u8())
    case 11: .clearAll
    case 12: .disconnectMe
    case 13: .setName(deviceName())
    case 14: .getName
    case 15: .setActive(u8())
    case 16: .ping
    case 17: .recordStart(RecordCommand(mode: u8(), scene: u8()))
    case 18: .recordPause(RecordSessionCommand(sessionId: session(), scene: u8()))
    case 19: .recordResume(RecordSessionCommand(sessionId: session(), scene: u8()))
    case 20: .recordStop(RecordCommand(mode: u8(), scene: u8()))
    case 21:
      .list(ListRequest(requestTag: u32(), afterSession: session(), onlyOne: maybe { $0.u8() }))
    case 22: .syncStart(SyncStartRequest(sessionId: session(), start: u32(), end: u32()))
    case 23: .syncStop
    case 24: .delete(sessionId: session())
    case 25: .ledGet
    case 26: .ledSet(on: u8())
    case 27: .tags(TagsRequest(requestTag: u32(), from: u32(), to: u32()))
    case 28:
      .firmwarePush(
        FirmwarePush(
          uid: u32(), from: firmware(), to: firmware(), size: u32(), crc: u16(),
          coprocessorVersion: u32(), silent: u8()))
    case 29: .firmwareDone(FirmwareDone(uid: u32(), status: u8()))
    case 30: .coprocessorVersion
    case 31: .otaResumeInfo
    case 32: .uploadBegin(UploadBegin(type: u8(), total: u32()))
    case 33:
      .uploadChunk(UploadChunk(type: u8(), offset: u32(), data: bytes(0...(oneIn(50) ? 600 : 180))))
    case 34: .uploadCheck(UploadCheck(type: u8(), crc: u16()))
    case 35: .capability(bitmap: u8())
    case 36: .webSocketSettings(webSocketSettingsRequest())
    default:
      .unknown(
        unknownControl { frame in
          if case .unknown = try? PhoneMessage(frame) { return true }
          return false
        })
    }
  }

  /// A random D→P message; `choice` picks the case (0..<``deviceCaseCount``).
  mutating func deviceMessage(portVersion: UInt16, choice: Int) -> DeviceMessage {
    switch choice {
    case 0: .handshake(handshakeResponse())
    case 1: .serial(SerialResponse(serial: text(maxBytes: 56), firmware: maybe { $0.firmware() }))
    case 2: .state(deviceState())
    case 3:
      .timeSync(
        TimeSyncResponse(unixSeconds: u32(), tzHours: i8(), hasStatistics: maybe { $0.u8() }))
    case 4: .depair(status: maybe { $0.u8() })
    case 5:
      .storage(StorageInfo(freeBytes: u64(), totalBytes: u64(), remaining: maybe { $0.u64() }))
    case 6: .setting(SettingValue(setting: u16(), value: u32()))
    case 7: .battery(BatteryStatus(level: u8(), charging: maybe { $0.u8() }))
    case 8: .wifiOpen(WiFiOpenResponse(status: u8(), password: maybe { $0.bytes(8...8) }))
    case 9: .wifiClose(status: u8())
    case 10: .privacy(on: u8())
    case 11: .clearAll(status: maybe { $0.u8() })
    case 12: .name(deviceName())
    case 13: .active(u8())
    case 14: .pong(bytes(0...12))
    case 15: .recordStarted(recordStarted())
    case 16: .recordPaused(recordStopped())
    case 17: .recordResumed(recordStarted())
    case 18: .recordStopped(recordStopped())
    case 19: .listPage(listPage(portVersion: portVersion))
    case 20: .syncHead(SessionStatus(sessionId: session(), status: u8()))
    case 21: .syncTail(SyncTail(sessionId: session(), crc: u16()))
    case 22: .syncStopped
    case 23: .deleted(SessionStatus(sessionId: session(), status: u8()))
    case 24: .ledGet(on: u8())
    case 25: .ledSet(on: u8())
    case 26:
      .tagsPage(
        TagsPage(
          requestTag: u32(), total: u16(), index: u16(),
          tags: (0..<int(0...20)).map { _ in Tag(time: u32(), type: u8(), status: u8()) }))
    case 27: .firmwareStatus(firmwareStatus())
    case 28: .firmwareDone(FirmwareDone(uid: u32(), status: u8()))
    case 29: .packRequest(packRequest())
    case 30: .coprocessorVersion(CoprocessorVersion(version: u32(), status: u8()))
    case 31:
      .otaResumeInfo(
        OTAResumeInfo(
          uid: u32(), start: u32(), end: u32(), toVersion: u32(), silent: u8(), packetOk: u8()))
    case 32: .uploadRequest(UploadRequest(type: u8(), offset: u32(), size: u16(), done: u8()))
    case 33: .uploadResult(u8())
    case 34: .capability(CapabilityBitmap(rawValue: u8()))
    case 35:
      .webSocketSetting(
        WebSocketSettingValue(type: webSocketSettingType(), value: nonZeroBytes(0...70)))
    default:
      .unknown(
        unknownControl { frame in
          if case .unknown = try? DeviceMessage(frame) { return true }
          return false
        })
    }
  }

  /// A random frame of every kind; `choice` picks the kind (0..<``frameCaseCount``).
  mutating func frame(portVersion: UInt16, choice: Int) -> Frame {
    switch choice {
    case 0: .control(ControlFrame(opcode: Opcode(u16()), payload: bytes(0...40)))
    case 1:
      .bulk(
        BulkFrame(
          sessionId: portVersion >= 7 ? session() : nil,
          offset: oneIn(4) ? BulkFrame.terminalOffset : u32(),
          data: bytes(0...(oneIn(10) ? 255 : 80))))
    case 2: .ota(OTADataFrame(offset: u32(), data: bytes(0...(oneIn(10) ? 255 : 160))))
    case 3: .rateTest(bytes(0...40))
    case 4: .log(LogFrame(logType: u8(), offset: u32(), data: bytes(0...255)))
    default:
      .preHandshake(
        PreHandshakeChunk(
          type: element(PreHandshakeChunk.knownTypes.sorted()), count: u8(), index: u8(),
          chunk: bytes(0...PreHandshakeChunk.maximumChunkLength)))
    }
  }
}
