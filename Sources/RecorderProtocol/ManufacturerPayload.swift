/// The recorder's manufacturer-specific advertising payload (PROTOCOL.md §1) [sdk], checked
/// byte by byte on a V0095 Note [device]: length-prefixed fields except `portVersion`:
/// [`02 <projectCode u16>`] (absent on a NotePin S [sdk-code]) ·
/// `04 <versionType> <versionCode u24>` · `<n> <serial>` (n < 10:
/// decimal digits packed two per byte as hex nibbles, else ASCII) · `<portVersion u16>` (no
/// length byte) · `04 <4 bytes>` (unknown) · `01 <bindInfo u8>`.
///
/// Decoding is defensive [project]: the fields up to `portVersion` are required; after it,
/// length-prefixed fields are read as far as they go, the first 4-byte one is ``reserved``, the
/// first 1-byte one after it ``bindInfo``, and anything else (unknown fields, a field cut
/// short) is skipped. Select devices by this payload, not by company id: the Note uses 0x0059,
/// the NotePin reportedly 0x005D [project].
public struct ManufacturerPayload: Sendable, Equatable, FieldDescribable {
  public var projectCode: UInt16
  public var firmware: FirmwareVersion
  /// The serial number as text (digits for packed serials).
  public var serial: String
  public var portVersion: UInt16
  /// The 4-byte field after `portVersion`: meaning unknown, high entropy, may rotate
  /// [device]; nil when absent.
  public var reserved: [UInt8]?
  /// nil when absent.
  public var bindInfo: UInt8?
  /// Whether the payload starts with the `02 <projectCode>` field: the Note's layout
  /// [device]; a NotePin S's may start at the version field [sdk-code] (§1).
  public var hasProjectCodeField: Bool

  /// Company ids seen with this payload.
  public static let noteCompanyID: UInt16 = ModelCapabilities.note.advertising.companyID
  public static let notePinCompanyID: UInt16 = ModelCapabilities.notePin.advertising.companyID
  /// Width of the field after `portVersion` [device].
  public static let reservedWidth = 4

  /// A payload; `reserved` is cut or zero-padded to four bytes.
  public init(
    projectCode: UInt16, firmware: FirmwareVersion, serial: String, portVersion: UInt16,
    reserved: [UInt8]? = [0, 0, 0, 0], bindInfo: UInt8? = 0, hasProjectCodeField: Bool = true
  ) {
    self.hasProjectCodeField = hasProjectCodeField
    self.projectCode = projectCode
    self.firmware = firmware
    self.serial = serial
    self.portVersion = portVersion
    self.reserved = reserved.map {
      Array($0.prefix(Self.reservedWidth))
        + Array(repeating: 0, count: max(0, Self.reservedWidth - $0.count))
    }
    self.bindInfo = bindInfo
  }

  /// Decodes the payload that follows the 2-byte company id, in either layout of §1: with
  /// the `02 <projectCode>` field (the Note's [device]) or starting at the version field (a
  /// NotePin S's [sdk-code]): the field is there when the first length byte is 2.
  ///
  /// `portVersion` is read right after the serial field. The vendor reads it at a fixed
  /// offset instead (18 when the project code says 881 or 888, else 15, and only for a
  /// serial field shorter than 10 bytes) [sdk-code]: the same bytes for the 9-byte serials
  /// of every layout seen, without reading into the serial when a payload carries the
  /// project-code field with another code [project]. When the project-code field is absent,
  /// ``projectCode`` is the serial's first three digits (0 when they are not digits).
  /// - Throws: ``FrameError`` when a field up to `portVersion` is missing or malformed.
  public init<C: Collection>(decoding bytes: C) throws(FrameError) where C.Element == UInt8 {
    var reader = ByteReader(bytes)
    hasProjectCodeField = bytes.first == 2
    var fieldCode: UInt16?
    if hasProjectCodeField {
      try Self.expectLength(2, &reader, "projectCode")
      fieldCode = try reader.u16("projectCode")
    }
    try Self.expectLength(4, &reader, "firmware")
    firmware = try FirmwareVersion(from: &reader, field: "firmware")
    let serialLength = Int(try reader.u8("serialLength"))
    guard reader.remaining >= serialLength else {
      throw .lengthPastEnd(
        field: "serialLength", declared: serialLength, available: reader.remaining)
    }
    let raw = try reader.bytes(serialLength, "serial")
    serial = serialLength < 10 ? Self.unpackDigits(raw) : try decodeText(raw, field: "serial")
    projectCode = fieldCode ?? Self.serialPrefix(serial) ?? 0
    portVersion = try reader.u16("portVersion")
    // The optional tail: length-prefixed fields, unknown ones skipped [project].
    while let length = reader.optionalU8() {
      guard reader.remaining >= Int(length), let field = try? reader.bytes(Int(length), "field")
      else { break }
      if reserved == nil, field.count == Self.reservedWidth {
        reserved = field
      } else if reserved != nil, bindInfo == nil, field.count == 1 {
        bindInfo = field[0]
      }
    }
  }

  /// The product: the serial's first three digits when they are digits, else the project
  /// code (§1 [sdk-code]); nil for a code no model has.
  public var model: RecorderModel? {
    if let prefix = Self.serialPrefix(serial) { return RecorderModel.withSerialPrefix(prefix) }
    return RecorderModel(rawValue: projectCode)
  }

  /// The first three characters of `serial` as a number, when they are three digits.
  static func serialPrefix(_ serial: String) -> UInt16? {
    let digits = Array(serial.utf8.prefix(3))
    guard digits.count == 3, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
    return digits.reduce(0) { $0 * 10 + UInt16($1 - 0x30) }
  }

  /// The payload after the company id.
  public var encoded: [UInt8] {
    var writer = ByteWriter()
    if hasProjectCodeField {
      writer.u8(2)
      writer.u16(projectCode)
    }
    writer.u8(4)
    firmware.write(to: &writer)
    let serialBytes = Self.packDigits(serial) ?? Array(serial.utf8)
    writer.u8(UInt8(min(serialBytes.count, 255)))
    writer.bytes(serialBytes.prefix(255))
    writer.u16(portVersion)
    if let reserved {
      writer.u8(UInt8(reserved.count))
      writer.bytes(reserved)
    }
    if let bindInfo {
      writer.u8(1)
      writer.u8(bindInfo)
    }
    return writer.bytes
  }

  /// Manufacturer data as on air: company id (u16 LE), then ``encoded``.
  public func manufacturerData(companyID: UInt16) -> [UInt8] {
    [UInt8(companyID & 0xFF), UInt8(companyID >> 8)] + encoded
  }

  /// Decodes manufacturer data (company id first), whatever the company id.
  public init<C: Collection>(manufacturerData: C) throws(FrameError) where C.Element == UInt8 {
    guard manufacturerData.count >= 2 else {
      throw .truncated(field: "companyID", needed: 2, available: manufacturerData.count)
    }
    try self.init(decoding: manufacturerData.dropFirst(2))
  }

  public var fields: [Field] {
    [
      Field("projectCode", projectCode), Field("firmware", .text(firmware.description)),
      Field("serial", .text(serial)), Field("portVersion", portVersion),
    ] + (bindInfo.map { [Field("bindInfo", $0)] } ?? [])
  }

  private static func expectLength(_ length: UInt8, _ reader: inout ByteReader, _ field: String)
    throws(FrameError)
  {
    let found = try reader.u8(field + "Length")
    guard found == length else {
      throw .invalidField(field: field + "Length", reason: "expected \(length), found \(found)")
    }
  }

  /// Digits packed as hex nibbles (`88 81 23` = "888123"); nil for text that is not an even
  /// count of at most 18 decimal digits (those go as ASCII).
  static func packDigits(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard !digits.isEmpty, digits.count % 2 == 0, digits.count < 20,
      digits.allSatisfy({ (0x30...0x39).contains($0) })
    else { return nil }
    return stride(from: 0, to: digits.count, by: 2).map {
      (digits[$0] - 0x30) << 4 | (digits[$0 + 1] - 0x30)
    }
  }

  static func unpackDigits(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
      let digits = String(byte, radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }.joined()
  }
}
