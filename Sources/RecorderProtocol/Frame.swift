/// One whole notification or write (PROTOCOL.md §2): frames are never split [device], and a
/// frame that fails a length rule is rejected, never buffered [project].
public enum Frame: Sendable, Equatable {
  case control(ControlFrame)
  case bulk(BulkFrame)
  case ota(OTADataFrame)
  case rateTest([UInt8])
  case log(LogFrame)
  case preHandshake(PreHandshakeChunk)

  /// Decodes one frame, demultiplexing on byte 0 [sdk].
  ///
  /// - Parameters:
  ///   - bytes: one whole notification or write.
  ///   - portVersion: the device's portVersion; bulk frames carry a session id only from 7
  ///     on [sdk].
  /// - Throws: ``FrameError`` for empty input, an unknown byte 0, a frame shorter than its
  ///   layout, or a length byte past the end. Never traps.
  public init<C: Collection>(decoding bytes: C, portVersion: UInt16 = ProtocolDefaults.portVersion)
    throws(FrameError) where C.Element == UInt8
  {
    guard let first = bytes.first else { throw .empty }
    var reader = ByteReader(bytes)
    if PreHandshakeChunk.matches(bytes) {
      self = .preHandshake(try PreHandshakeChunk(from: &reader))
      return
    }
    _ = try reader.u8("kind")
    switch FrameKind(rawValue: first) {
    case .control: self = .control(try ControlFrame(from: &reader))
    case .bulk: self = .bulk(try BulkFrame(from: &reader, portVersion: portVersion))
    case .ota: self = .ota(try OTADataFrame(from: &reader))
    case .rateTest: self = .rateTest(reader.rest())
    case .log: self = .log(try LogFrame(from: &reader))
    case .preHandshake, nil: throw .unknownKind(first)
    }
  }

  /// The frame's bytes on the wire.
  public func encoded(portVersion: UInt16 = ProtocolDefaults.portVersion) -> [UInt8] {
    var writer = ByteWriter()
    switch self {
    case .control(let frame):
      writer.u8(FrameKind.control.rawValue)
      frame.write(to: &writer)
    case .bulk(let frame):
      writer.u8(FrameKind.bulk.rawValue)
      frame.write(to: &writer, portVersion: portVersion)
    case .ota(let frame):
      writer.u8(FrameKind.ota.rawValue)
      frame.write(to: &writer)
    case .rateTest(let content):
      writer.u8(FrameKind.rateTest.rawValue)
      writer.bytes(content)
    case .log(let frame):
      writer.u8(FrameKind.log.rawValue)
      frame.write(to: &writer)
    case .preHandshake(let chunk):
      chunk.write(to: &writer)
    }
    return writer.bytes
  }

  /// The decoder name of the frame's kind (`control`, `bulk`, …).
  public var kindName: String {
    switch self {
    case .control: "control"
    case .bulk: "bulk"
    case .ota: "ota"
    case .rateTest: "ratetest"
    case .log: "log"
    case .preHandshake: "prehandshake"
    }
  }
}

/// Byte 0 of a frame (PROTOCOL.md §2) [sdk].
public enum FrameKind: UInt8, Sendable {
  case control = 0x01
  case bulk = 0x02
  case ota = 0x03
  case rateTest = 0x04
  case log = 0x05
  /// Not a byte-0 value on its own: Mode B chunks start with their type's low byte (§9).
  case preHandshake = 0xFE
}

/// Defaults the protocol falls back to when the device has not said otherwise.
public enum ProtocolDefaults {
  /// portVersion of the Note on firmware V0095 [device].
  public static let portVersion: UInt16 = 10
  /// The lowest portVersion whose bulk frames carry a session id [sdk]; RecorderKit requires it.
  public static let minimumSessionIdPortVersion: UInt16 = 7
  /// From this portVersion on, a device speaks Mode B first: the pre-handshake frames and
  /// the encrypted channel of §9 [sdk] (``ModeB``).
  public static let modeBPortVersion: UInt16 = 20
  /// The portVersions RecorderKit talks to: session ids in bulk frames; from
  /// ``modeBPortVersion`` on, inside Mode B's channel.
  public static let supportedPortVersions = minimumSessionIdPortVersion...UInt16.max
  /// The first byte of every 80-byte device Opus packet: TOC config 23, mono, one frame
  /// (CELT-only, 16 kHz, 20 ms) [device][sdk] (§5).
  public static let opusTOCByte: UInt8 = 0xB8
  /// Bytes of one device Opus packet per channel (§5) [device][sdk].
  public static let opusPacketBytes = 80
}

/// A control frame: `01 <opcode u16> <payload>`, at least 3 bytes [sdk]. The payload's
/// meaning depends on direction and portVersion: see ``PhoneMessage`` and ``DeviceMessage``.
public struct ControlFrame: Sendable, Equatable {
  public var opcode: Opcode
  public var payload: [UInt8]

  public init(opcode: Opcode, payload: [UInt8] = []) {
    self.opcode = opcode
    self.payload = payload
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    opcode = Opcode(try reader.u16("opcode"))
    payload = reader.rest()
  }

  func write(to writer: inout ByteWriter) {
    writer.u16(opcode.rawValue)
    writer.bytes(payload)
  }
}

/// A file-data frame D→P: `02 <sessionId u32> <offset u32> <len u8> <data[len]>` [sdk]; 90
/// bytes (80 data) in every capture [device]. Bytes after `data[len]` are ignored [project].
///
/// Offset `0xFFFFFFFF` marks the **terminal** frame: its first data byte is an end code
/// (absent → 0), never file data [sdk][project].
public struct BulkFrame: Sendable, Equatable {
  /// The recording; nil only below portVersion 7, where the field does not exist [sdk].
  public var sessionId: SessionID?
  public var offset: UInt32
  public var data: [UInt8]

  /// The offset value that marks the terminal frame [sdk].
  public static let terminalOffset: UInt32 = 0xFFFF_FFFF
  /// Most data bytes one frame can carry on the BLE wire (`len` is a u8).
  public static let maximumDataLength = 255

  /// A frame of `data` at `offset`. On the BLE wire `data` is at most 255 bytes (encoding a
  /// longer one traps: a programmer error); a frame that never goes on the wire, such as a
  /// Wi-Fi content PDU handed to the sync engine whole, may be longer.
  public init(sessionId: SessionID?, offset: UInt32, data: [UInt8]) {
    self.sessionId = sessionId
    self.offset = offset
    self.data = data
  }

  /// A terminal frame with the given end code.
  public static func terminal(sessionId: SessionID?, code: UInt8 = 0) -> BulkFrame {
    BulkFrame(sessionId: sessionId, offset: terminalOffset, data: code == 0 ? [] : [code])
  }

  /// True for the end-of-transfer marker.
  public var isTerminal: Bool { offset == Self.terminalOffset }
  /// The terminal frame's end code (0 when absent); nil for data frames.
  public var endCode: UInt8? { isTerminal ? (data.first ?? 0) : nil }

  init(from reader: inout ByteReader, portVersion: UInt16) throws(FrameError) {
    sessionId =
      portVersion >= ProtocolDefaults.minimumSessionIdPortVersion
      ? SessionID(try reader.u32("sessionId")) : nil
    offset = try reader.u32("offset")
    let length = Int(try reader.u8("length"))
    guard reader.remaining >= length else {
      throw .lengthPastEnd(field: "length", declared: length, available: reader.remaining)
    }
    data = try reader.bytes(length, "data")
  }

  func write(to writer: inout ByteWriter, portVersion: UInt16) {
    if portVersion >= ProtocolDefaults.minimumSessionIdPortVersion {
      writer.u32(sessionId?.rawValue ?? 0)
    }
    writer.u32(offset)
    precondition(data.count <= Self.maximumDataLength, "bulk frame data is at most 255 bytes")
    writer.u8(UInt8(data.count))
    writer.bytes(data)
  }
}

/// Firmware data P→D: `03 <offset u32> <len u8> <data[len]>` [sdk]; 160 data bytes per frame
/// (80 in slow mode).
public struct OTADataFrame: Sendable, Equatable {
  public var offset: UInt32
  public var data: [UInt8]

  /// - Precondition: `data.count <= 255`.
  public init(offset: UInt32, data: [UInt8]) {
    precondition(data.count <= BulkFrame.maximumDataLength, "OTA frame data is at most 255 bytes")
    self.offset = offset
    self.data = data
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    offset = try reader.u32("offset")
    let length = Int(try reader.u8("length"))
    guard reader.remaining >= length else {
      throw .lengthPastEnd(field: "length", declared: length, available: reader.remaining)
    }
    data = try reader.bytes(length, "data")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(offset)
    writer.u8(UInt8(data.count))
    writer.bytes(data)
  }
}

/// A device log chunk: `05 <logType u8> <offset u32> <len u8> <data>` [sdk].
public struct LogFrame: Sendable, Equatable {
  public var logType: UInt8
  public var offset: UInt32
  public var data: [UInt8]

  /// - Precondition: `data.count <= 255`.
  public init(logType: UInt8, offset: UInt32, data: [UInt8]) {
    precondition(data.count <= BulkFrame.maximumDataLength, "log frame data is at most 255 bytes")
    self.logType = logType
    self.offset = offset
    self.data = data
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    logType = try reader.u8("logType")
    offset = try reader.u32("offset")
    let length = Int(try reader.u8("length"))
    guard reader.remaining >= length else {
      throw .lengthPastEnd(field: "length", declared: length, available: reader.remaining)
    }
    data = try reader.bytes(length, "data")
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(logType)
    writer.u32(offset)
    writer.u8(UInt8(data.count))
    writer.bytes(data)
  }
}

/// A Mode B chunk before the handshake (PROTOCOL.md §9) [sdk]:
/// `<type u16> <count u8> <index u8> <chunk>`, no `01` prefix, chunks ≤ 100 bytes.
///
/// Recognised only when byte 0 is `10`, `11`, `12` or `20` **and** byte 1 is `FE`: byte 1
/// alone is not enough, as data frames of session 0x69D25AFE start `02 fe` [project].
public struct PreHandshakeChunk: Sendable, Equatable {
  /// `0xFE10` signature, `0xFE11` wants user key, `0xFE12` key material, `0xFE20` force clear.
  public var type: UInt16
  public var count: UInt8
  public var index: UInt8
  public var chunk: [UInt8]

  /// The chunk types the device and the phone exchange [sdk].
  public static let knownTypes: Set<UInt16> = [0xFE10, 0xFE11, 0xFE12, 0xFE20]
  /// Largest chunk the SDK sends [sdk].
  public static let maximumChunkLength = 100

  public init(type: UInt16, count: UInt8, index: UInt8, chunk: [UInt8]) {
    self.type = type
    self.count = count
    self.index = index
    self.chunk = chunk
  }

  static func matches<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
    var iterator = bytes.makeIterator()
    guard let low = iterator.next(), let high = iterator.next() else { return false }
    return knownTypes.contains(UInt16(high) << 8 | UInt16(low))
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    type = try reader.u16("type")
    count = try reader.u8("count")
    index = try reader.u8("index")
    chunk = reader.rest()
  }

  func write(to writer: inout ByteWriter) {
    writer.u16(type)
    writer.u8(count)
    writer.u8(index)
    writer.bytes(chunk)
  }
}
