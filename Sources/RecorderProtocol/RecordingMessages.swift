// Payloads of the recording opcodes (PROTOCOL.md §3.2) [sdk]. The device also sends the
// D→P forms unsolicited when a recording starts, pauses, resumes or stops on the device.

/// REC_START / REC_STOP P→D: `mode u8` (1 normal, 2 immediate) · `scene u8` (1 normal, 4 music,
/// 7 call) [sdk].
public struct RecordCommand: Sendable, Equatable, FieldDescribable {
  public var mode: UInt8
  public var scene: UInt8

  public init(mode: UInt8 = 1, scene: UInt8 = 1) {
    self.mode = mode
    self.scene = scene
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    mode = try reader.u8("mode")
    scene = try reader.u8("scene")
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(mode)
    writer.u8(scene)
  }

  public var fields: [Field] { [Field("mode", mode), Field("scene", scene)] }
}

/// REC_PAUSE / REC_RESUME P→D: `sessionId u32` (0 below portVersion 7) · `scene u8` [sdk].
public struct RecordSessionCommand: Sendable, Equatable, FieldDescribable {
  public var sessionId: SessionID
  public var scene: UInt8

  public init(sessionId: SessionID, scene: UInt8 = 1) {
    self.sessionId = sessionId
    self.scene = scene
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    sessionId = SessionID(try reader.u32("sessionId"))
    scene = try reader.u8("scene")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(sessionId.rawValue)
    writer.u8(scene)
  }

  public var fields: [Field] { [Field("sessionId", sessionId.rawValue), Field("scene", scene)] }
}

/// REC_START and REC_RESUME D→P [device][sdk]: `sessionId u32` · `start u32` (stream position;
/// the SDK treats ≤ 8000 as 0) · `status u8` · [`scene u8`] · [`startTime u32`].
public struct RecordStarted: Sendable, Equatable, FieldDescribable {
  public var sessionId: SessionID
  public var start: UInt32
  public var status: UInt8
  public var scene: UInt8?
  public var startTime: UInt32?

  public init(
    sessionId: SessionID, start: UInt32, status: UInt8, scene: UInt8? = nil,
    startTime: UInt32? = nil
  ) {
    self.sessionId = sessionId
    self.start = start
    self.status = status
    self.scene = scene
    self.startTime = startTime
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    sessionId = SessionID(try reader.u32("sessionId"))
    start = try reader.u32("start")
    status = try reader.u8("status")
    scene = reader.optionalU8()
    if scene != nil { startTime = reader.optionalU32() }
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(sessionId.rawValue)
    writer.u32(start)
    writer.u8(status)
    guard let scene else { return }
    writer.u8(scene)
    if let startTime { writer.u32(startTime) }
  }

  public var fields: [Field] {
    var fields = [
      Field("sessionId", sessionId.rawValue), Field("start", start), Field("status", status),
    ]
    fields.optional("scene", scene)
    fields.optional("startTime", startTime)
    return fields
  }
}

/// REC_PAUSE and REC_STOP D→P [sdk]: `sessionId u32` · `reason u8` · [`fileExists u8`] ·
/// [`fileSize u32`].
public struct RecordStopped: Sendable, Equatable, FieldDescribable {
  public var sessionId: SessionID
  public var reason: UInt8
  public var fileExists: UInt8?
  public var fileSize: UInt32?

  public init(
    sessionId: SessionID, reason: UInt8, fileExists: UInt8? = nil, fileSize: UInt32? = nil
  ) {
    self.sessionId = sessionId
    self.reason = reason
    self.fileExists = fileExists
    self.fileSize = fileSize
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    sessionId = SessionID(try reader.u32("sessionId"))
    reason = try reader.u8("reason")
    fileExists = reader.optionalU8()
    if fileExists != nil { fileSize = reader.optionalU32() }
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(sessionId.rawValue)
    writer.u8(reason)
    guard let fileExists else { return }
    writer.u8(fileExists)
    if let fileSize { writer.u32(fileSize) }
  }

  public var fields: [Field] {
    var fields = [Field("sessionId", sessionId.rawValue), Field("reason", reason)]
    fields.optional("fileExists", fileExists)
    fields.optional("fileSize", fileSize)
    return fields
  }
}
