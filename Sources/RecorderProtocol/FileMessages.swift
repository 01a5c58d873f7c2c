// Payloads of the file opcodes (PROTOCOL.md §3.3).

/// LIST P→D [device][sdk]: `requestTag u32` (the SDK sends unix now) · `afterSession u32`
/// (0 = all) · [`onlyOne u8` = 1].
public struct ListRequest: Sendable, Equatable, FieldDescribable {
  public var requestTag: UInt32
  public var afterSession: SessionID
  public var onlyOne: UInt8?

  public init(requestTag: UInt32, afterSession: SessionID = 0, onlyOne: UInt8? = nil) {
    self.requestTag = requestTag
    self.afterSession = afterSession
    self.onlyOne = onlyOne
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    requestTag = try reader.u32("requestTag")
    afterSession = SessionID(try reader.u32("afterSession"))
    onlyOne = reader.optionalU8()
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(requestTag)
    writer.u32(afterSession.rawValue)
    writer.optionalTail([onlyOne])
  }

  public var fields: [Field] {
    var fields = [Field("requestTag", requestTag), Field("afterSession", afterSession.rawValue)]
    fields.optional("onlyOne", onlyOne)
    return fields
  }
}

/// One recording in a LIST page [device][sdk]. Layout by portVersion: ≥ 7 `sessionId u32`
/// `size u32` `scene u8` `attribute u8`; 2–6 drops `scene`; 1 only id + size.
public struct ListEntry: Sendable, Equatable, Hashable, FieldDescribable {
  /// Start time, unix seconds [device].
  public var sessionId: SessionID
  /// Bytes of raw device audio.
  public var size: UInt32
  /// nil below portVersion 7.
  public var scene: UInt8?
  /// nil at portVersion 1.
  public var attribute: UInt8?

  public init(sessionId: SessionID, size: UInt32, scene: UInt8? = nil, attribute: UInt8? = nil) {
    self.sessionId = sessionId
    self.size = size
    self.scene = scene
    self.attribute = attribute
  }

  /// Bytes one entry occupies at `portVersion`.
  public static func width(portVersion: UInt16) -> Int {
    switch portVersion {
    case 7...: 10
    case 2..<7: 9
    default: 8
    }
  }

  init(from reader: inout ByteReader, portVersion: UInt16) throws(FrameError) {
    sessionId = SessionID(try reader.u32("sessionId"))
    size = try reader.u32("size")
    if portVersion >= 7 { scene = try reader.u8("scene") }
    if portVersion >= 2 { attribute = try reader.u8("attribute") }
  }

  func write(to writer: inout ByteWriter, portVersion: UInt16) {
    writer.u32(sessionId.rawValue)
    writer.u32(size)
    if portVersion >= 7 { writer.u8(scene ?? 0) }
    if portVersion >= 2 { writer.u8(attribute ?? 0) }
  }

  public var fields: [Field] {
    var fields = [Field("sessionId", sessionId.rawValue), Field("size", size)]
    fields.optional("scene", scene)
    fields.optional("attribute", attribute)
    return fields
  }
}

/// One LIST reply frame D→P [device][sdk]: `requestTag u32` · `total u16` · `index u16`
/// (entries before this frame) · entries until `total` is reached.
public struct ListPage: Sendable, Equatable, FieldDescribable {
  public var requestTag: UInt32
  public var total: UInt16
  public var index: UInt16
  public var entries: [ListEntry]

  public init(requestTag: UInt32, total: UInt16, index: UInt16, entries: [ListEntry]) {
    self.requestTag = requestTag
    self.total = total
    self.index = index
    self.entries = entries
  }

  /// Entries that fit one frame under `mtu` at `portVersion` (ATT payload = MTU − 3; the
  /// control header and page header take 11 bytes).
  public static func entriesPerFrame(mtu: Int, portVersion: UInt16) -> Int {
    max(1, (mtu - 3 - 11) / ListEntry.width(portVersion: portVersion))
  }

  init(from reader: inout ByteReader, portVersion: UInt16) throws(FrameError) {
    requestTag = try reader.u32("requestTag")
    total = try reader.u16("total")
    index = try reader.u16("index")
    guard index <= total else {
      throw .invalidField(field: "index", reason: "\(index) is past total \(total)")
    }
    let width = ListEntry.width(portVersion: portVersion)
    guard reader.remaining % width == 0 else {
      throw .truncated(field: "entry", needed: width, available: reader.remaining % width)
    }
    let count = reader.remaining / width
    guard count <= Int(total - index) else {
      throw .invalidField(
        field: "entries", reason: "\(count) entries after index \(index) exceed total \(total)")
    }
    var entries: [ListEntry] = []
    entries.reserveCapacity(count)
    for _ in 0..<count { entries.append(try ListEntry(from: &reader, portVersion: portVersion)) }
    self.entries = entries
  }

  func write(to writer: inout ByteWriter, portVersion: UInt16) {
    writer.u32(requestTag)
    writer.u16(total)
    writer.u16(index)
    for entry in entries { entry.write(to: &writer, portVersion: portVersion) }
  }

  public var fields: [Field] {
    [
      Field("requestTag", requestTag), Field("total", total), Field("index", index),
      Field("entries", .records(entries.map(\.fields))),
    ]
  }
}

/// SYNC_START P→D [device][sdk]: `sessionId u32` · `start u32` · `end u32` (0 = to the end,
/// following a live recording). Ranges may start anywhere [device].
public struct SyncStartRequest: Sendable, Equatable, FieldDescribable {
  public var sessionId: SessionID
  public var start: UInt32
  public var end: UInt32

  public init(sessionId: SessionID, start: UInt32 = 0, end: UInt32 = 0) {
    self.sessionId = sessionId
    self.start = start
    self.end = end
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    sessionId = SessionID(try reader.u32("sessionId"))
    start = try reader.u32("start")
    end = try reader.u32("end")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(sessionId.rawValue)
    writer.u32(start)
    writer.u32(end)
  }

  public var fields: [Field] {
    [Field("sessionId", sessionId.rawValue), Field("start", start), Field("end", end)]
  }
}

/// A session id with a status byte: the SYNC_START head (`001C`, status 0 ok, > 0 no data)
/// and the DELETE reply (`001F`) [device][sdk].
public struct SessionStatus: Sendable, Equatable, FieldDescribable {
  public var sessionId: SessionID
  public var status: UInt8

  public init(sessionId: SessionID, status: UInt8) {
    self.sessionId = sessionId
    self.status = status
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    sessionId = SessionID(try reader.u32("sessionId"))
    status = try reader.u8("status")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(sessionId.rawValue)
    writer.u8(status)
  }

  public var fields: [Field] { [Field("sessionId", sessionId.rawValue), Field("status", status)] }
}

/// The sync tail D→P (`001D`) [sdk]: `sessionId u32` · `crc u16`. Coverage on real firmware is
/// unknown; RecorderKit checks it as CRC-16/CCITT-FALSE over the bytes delivered for the
/// request, in offset order [project].
public struct SyncTail: Sendable, Equatable, FieldDescribable {
  public var sessionId: SessionID
  public var crc: UInt16

  public init(sessionId: SessionID, crc: UInt16) {
    self.sessionId = sessionId
    self.crc = crc
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    sessionId = SessionID(try reader.u32("sessionId"))
    crc = try reader.u16("crc")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(sessionId.rawValue)
    writer.u16(crc)
  }

  public var fields: [Field] { [Field("sessionId", sessionId.rawValue), Field("crc", crc)] }
}

/// TAGS P→D [device][sdk]: `requestTag u32` · `from u32` · `to u32`.
public struct TagsRequest: Sendable, Equatable, FieldDescribable {
  public var requestTag: UInt32
  public var from: UInt32
  public var to: UInt32

  public init(requestTag: UInt32, from: UInt32, to: UInt32) {
    self.requestTag = requestTag
    self.from = from
    self.to = to
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    requestTag = try reader.u32("requestTag")
    from = try reader.u32("from")
    to = try reader.u32("to")
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(requestTag)
    writer.u32(from)
    writer.u32(to)
  }

  public var fields: [Field] {
    [Field("requestTag", requestTag), Field("from", from), Field("to", to)]
  }
}

/// One tag (a mark the user pressed during a recording) [device][sdk]:
/// `time u32` · `type u8` · `status u8` · 2 reserved bytes.
public struct Tag: Sendable, Equatable, FieldDescribable {
  public var time: UInt32
  public var type: UInt8
  public var status: UInt8

  /// Bytes per tag on the wire.
  public static let width = 8

  public init(time: UInt32, type: UInt8, status: UInt8) {
    self.time = time
    self.type = type
    self.status = status
  }

  public var fields: [Field] {
    [Field("time", time), Field("type", type), Field("status", status)]
  }
}

/// TAGS D→P [device][sdk]: `requestTag[4]` · `total u16` · `index u16` · ≤ 20 tags.
public struct TagsPage: Sendable, Equatable, FieldDescribable {
  public var requestTag: UInt32
  public var total: UInt16
  public var index: UInt16
  public var tags: [Tag]

  /// Most tags in one frame [sdk].
  public static let maximumTagsPerFrame = 20

  public init(requestTag: UInt32, total: UInt16, index: UInt16, tags: [Tag]) {
    self.requestTag = requestTag
    self.total = total
    self.index = index
    self.tags = tags
  }

  init(from reader: inout ByteReader) throws(FrameError) {
    requestTag = try reader.u32("requestTag")
    total = try reader.u16("total")
    index = try reader.u16("index")
    guard reader.remaining % Tag.width == 0 else {
      throw .truncated(field: "tag", needed: Tag.width, available: reader.remaining % Tag.width)
    }
    let count = reader.remaining / Tag.width
    guard count <= Self.maximumTagsPerFrame else {
      throw .invalidField(field: "tags", reason: "\(count) tags, at most 20 per frame")
    }
    var tags: [Tag] = []
    for _ in 0..<count {
      let time = try reader.u32("time")
      let type = try reader.u8("type")
      let status = try reader.u8("status")
      _ = try reader.u16("reserved")
      tags.append(Tag(time: time, type: type, status: status))
    }
    self.tags = tags
  }

  func write(to writer: inout ByteWriter) {
    writer.u32(requestTag)
    writer.u16(total)
    writer.u16(index)
    for tag in tags {
      writer.u32(tag.time)
      writer.u8(tag.type)
      writer.u8(tag.status)
      writer.u16(0)
    }
  }

  public var fields: [Field] {
    [
      Field("requestTag", requestTag), Field("total", total), Field("index", index),
      Field("tags", .records(tags.map(\.fields))),
    ]
  }
}
