// Payloads of the firmware-update and small-upload opcodes (PROTOCOL.md §3.4, §7) [sdk].

/// FOTA_PUSH P→D: `uid u32` · `fromType char` `fromVersion u24` · `toType char` `toVersion u24`
/// · `size u32` · `crc u16` (§10) · `coprocessorVersion u32` · `silent u8`.
public struct FirmwarePush: Sendable, Equatable, FieldDescribable {
  public var uid: UInt32
  public var from: FirmwareVersion
  public var to: FirmwareVersion
  public var size: UInt32
  public var crc: UInt16
  public var coprocessorVersion: UInt32
  public var silent: UInt8

  public init(
    uid: UInt32, from: FirmwareVersion, to: FirmwareVersion, size: UInt32, crc: UInt16,
    coprocessorVersion: UInt32 = 0, silent: UInt8 = 0
  ) {
    self.uid = uid
    self.from = from
    self.to = to
    self.size = size
    self.crc = crc
    self.coprocessorVersion = coprocessorVersion
    self.silent = silent
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    uid = try reader.u32("uid")
    from = try FirmwareVersion(from: &reader, field: "fromVersion")
    to = try FirmwareVersion(from: &reader, field: "toVersion")
    size = try reader.u32("size")
    crc = try reader.u16("crc")
    coprocessorVersion = try reader.u32("coprocessorVersion")
    silent = try reader.u8("silent")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(uid)
    from.write(to: &writer)
    to.write(to: &writer)
    writer.u32(size)
    writer.u16(crc)
    writer.u32(coprocessorVersion)
    writer.u8(silent)
  }

  public var fields: [Field] {
    [
      Field("uid", uid), Field("fromVersion", .text(from.description)),
      Field("toVersion", .text(to.description)), Field("size", size), Field("crc", crc),
      Field("coprocessorVersion", coprocessorVersion), Field("silent", silent),
    ]
  }
}

/// FOTA_PUSH D→P, and the final result that also arrives as `0032`: `uid u32` · `status u8`
/// · [`versionType` + `version u24`] · [`silent u8`].
public struct FirmwareStatus: Sendable, Equatable, FieldDescribable {
  public var uid: UInt32
  public var status: UInt8
  public var version: FirmwareVersion?
  public var silent: UInt8?

  public init(uid: UInt32, status: UInt8, version: FirmwareVersion? = nil, silent: UInt8? = nil) {
    self.uid = uid
    self.status = status
    self.version = version
    self.silent = silent
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    uid = try reader.u32("uid")
    status = try reader.u8("status")
    guard reader.remaining >= 4 else { return }
    version = try FirmwareVersion(from: &reader, field: "version")
    silent = reader.optionalU8()
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(uid)
    writer.u8(status)
    guard let version else { return }
    version.write(to: &writer)
    writer.optionalTail([silent])
  }

  public var fields: [Field] {
    var fields = [Field("uid", uid), Field("status", status)]
    if let version { fields.append(Field("version", .text(version.description))) }
    fields.optional("silent", silent)
    return fields
  }
}

/// FOTA_DONE both ways: `uid u32` · `status u8` (P→D 0 = sent all; D→P 2 = keep waiting).
public struct FirmwareDone: Sendable, Equatable, FieldDescribable {
  public var uid: UInt32
  public var status: UInt8

  public init(uid: UInt32, status: UInt8) {
    self.uid = uid
    self.status = status
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    uid = try reader.u32("uid")
    status = try reader.u8("status")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(uid)
    writer.u8(status)
  }

  public var fields: [Field] { [Field("uid", uid), Field("status", status)] }
}

/// PACK_REQ D→P: `uid u32` · `start u32` · [`end u32`] · [`toVersion u32`] · [`silent u8`].
public struct PackRequest: Sendable, Equatable, FieldDescribable {
  public var uid: UInt32
  public var start: UInt32
  public var end: UInt32?
  public var toVersion: UInt32?
  public var silent: UInt8?

  public init(
    uid: UInt32, start: UInt32, end: UInt32? = nil, toVersion: UInt32? = nil, silent: UInt8? = nil
  ) {
    self.uid = uid
    self.start = start
    self.end = end
    self.toVersion = toVersion
    self.silent = silent
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    uid = try reader.u32("uid")
    start = try reader.u32("start")
    end = reader.optionalU32()
    if end != nil { toVersion = reader.optionalU32() }
    if toVersion != nil { silent = reader.optionalU8() }
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(uid)
    writer.u32(start)
    guard let end else { return }
    writer.u32(end)
    guard let toVersion else { return }
    writer.u32(toVersion)
    writer.optionalTail([silent])
  }

  public var fields: [Field] {
    var fields = [Field("uid", uid), Field("start", start)]
    fields.optional("end", end)
    fields.optional("toVersion", toVersion)
    fields.optional("silent", silent)
    return fields
  }
}

/// Coprocessor version D→P (`0036`): `version u32` · `status u8`.
public struct CoprocessorVersion: Sendable, Equatable, FieldDescribable {
  public var version: UInt32
  public var status: UInt8

  public init(version: UInt32, status: UInt8) {
    self.version = version
    self.status = status
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    version = try reader.u32("version")
    status = try reader.u8("status")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(version)
    writer.u8(status)
  }

  public var fields: [Field] { [Field("version", version), Field("status", status)] }
}

/// OTA resume information D→P (`0097`): `uid` `start` `end` `toVersion` u32 · `silent`
/// `packetOk` u8.
public struct OTAResumeInfo: Sendable, Equatable, FieldDescribable {
  public var uid: UInt32
  public var start: UInt32
  public var end: UInt32
  public var toVersion: UInt32
  public var silent: UInt8
  public var packetOk: UInt8

  public init(
    uid: UInt32, start: UInt32, end: UInt32, toVersion: UInt32, silent: UInt8, packetOk: UInt8
  ) {
    self.uid = uid
    self.start = start
    self.end = end
    self.toVersion = toVersion
    self.silent = silent
    self.packetOk = packetOk
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    uid = try reader.u32("uid")
    start = try reader.u32("start")
    end = try reader.u32("end")
    toVersion = try reader.u32("toVersion")
    silent = try reader.u8("silent")
    packetOk = try reader.u8("packetOk")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(uid)
    writer.u32(start)
    writer.u32(end)
    writer.u32(toVersion)
    writer.u8(silent)
    writer.u8(packetOk)
  }

  public var fields: [Field] {
    [
      Field("uid", uid), Field("start", start), Field("end", end), Field("toVersion", toVersion),
      Field("silent", silent), Field("packetOk", packetOk),
    ]
  }
}

/// Small upload P→D begin (`0070`): `type u8` · `total u32`.
public struct UploadBegin: Sendable, Equatable, FieldDescribable {
  public var type: UInt8
  public var total: UInt32

  public init(type: UInt8, total: UInt32) {
    self.type = type
    self.total = total
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    type = try reader.u8("type")
    total = try reader.u32("total")
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(type)
    writer.u32(total)
  }

  public var fields: [Field] { [Field("type", type), Field("total", total)] }
}

/// Small upload D→P request (`0071`): `type u8` · `offset u32` · `size u16` · `done u8`.
public struct UploadRequest: Sendable, Equatable, FieldDescribable {
  public var type: UInt8
  public var offset: UInt32
  public var size: UInt16
  public var done: UInt8

  public init(type: UInt8, offset: UInt32, size: UInt16, done: UInt8) {
    self.type = type
    self.offset = offset
    self.size = size
    self.done = done
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    type = try reader.u8("type")
    offset = try reader.u32("offset")
    size = try reader.u16("size")
    done = try reader.u8("done")
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(type)
    writer.u32(offset)
    writer.u16(size)
    writer.u8(done)
  }

  public var fields: [Field] {
    [Field("type", type), Field("offset", offset), Field("size", size), Field("done", done)]
  }
}

/// Small upload P→D chunk (`0072`): `type u8` · `offset u32` · `size u16` · data[size].
public struct UploadChunk: Sendable, Equatable, FieldDescribable {
  public var type: UInt8
  public var offset: UInt32
  public var data: [UInt8]

  /// - Precondition: `data.count` fits a u16.
  public init(type: UInt8, offset: UInt32, data: [UInt8]) {
    precondition(data.count <= Int(UInt16.max), "upload chunk larger than a u16 size")
    self.type = type
    self.offset = offset
    self.data = data
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    type = try reader.u8("type")
    offset = try reader.u32("offset")
    let size = Int(try reader.u16("size"))
    guard reader.remaining >= size else {
      throw .lengthPastEnd(field: "size", declared: size, available: reader.remaining)
    }
    data = try reader.bytes(size, "data")
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(type)
    writer.u32(offset)
    writer.u16(UInt16(data.count))
    writer.bytes(data)
  }

  public var fields: [Field] {
    [Field("type", type), Field("offset", offset), Field("length", data.count)]
  }
}

/// Small upload P→D check (`0074`): `type u8` · `crc u16` (§10).
public struct UploadCheck: Sendable, Equatable, FieldDescribable {
  public var type: UInt8
  public var crc: UInt16

  public init(type: UInt8, crc: UInt16) {
    self.type = type
    self.crc = crc
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    type = try reader.u8("type")
    crc = try reader.u16("crc")
  }

  func write(to writer: inout ByteWriter) {
    writer.u8(type)
    writer.u16(crc)
  }

  public var fields: [Field] { [Field("type", type), Field("crc", crc)] }
}
