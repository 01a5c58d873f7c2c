/// A firmware version as text, in one strict grammar for both forms people and the vendor's
/// API write (docs/cloud.md, "Version grammar"):
///
/// ```
/// version = letter ( code / dotted )
/// letter  = "A"–"Z" / "a"–"z"            ; the type letter, stored upper-case
/// code    = 1*8 digit                    ; at most 16777215 (24 bits): V0096
/// dotted  = part "." part "." part       ; V1.2.8
/// part    = 1*4 digit
/// digit   = "0"–"9"                      ; ASCII only
/// ```
///
/// Nothing else is a version: no sign, no whitespace anywhere, no other separator, no
/// control or non-ASCII character, at most ``maximumLength`` bytes. Both forms have a device
/// encoding (``deviceVersion``), the dotted one when each part is at most 255; both parse and
/// compare.
public struct FirmwareVersionNumber: Hashable, Sendable, CustomStringConvertible {
  /// Which form the text had.
  public enum Form: Hashable, Sendable {
    /// `V0096`: the device's 24-bit code.
    case code(UInt32)
    /// `V1.2.8`: three numbers, compared left to right.
    case dotted(major: UInt16, minor: UInt16, patch: UInt16)
  }

  /// The type letter as an upper-case ASCII byte (`V` = 0x56).
  public let type: UInt8
  public let form: Form

  /// The longest text taken, in UTF-8 bytes (`V1234.1234.1234` is 15).
  public static let maximumLength = 16
  /// Digits in the code form (16777215 has 8).
  static let maximumCodeDigits = 8
  /// Digits in one part of the dotted form.
  static let maximumPartDigits = 4

  /// A version of the code form.
  public init(type: UInt8, code: UInt32) {
    self.type = type
    form = .code(code & 0xFF_FFFF)
  }

  /// A version of the dotted form.
  public init(type: UInt8, major: UInt16, minor: UInt16, patch: UInt16) {
    self.type = type
    form = .dotted(major: major, minor: minor, patch: patch)
  }

  /// Parses `text` by the grammar above.
  /// - Throws: ``FirmwareVersionError`` naming the first byte or rule at fault.
  public init(parsing text: String) throws(FirmwareVersionError) {
    let bytes = Array(text.utf8)
    guard !bytes.isEmpty else { throw .empty }
    guard bytes.count <= Self.maximumLength else {
      throw .tooLong(bytes: bytes.count, limit: Self.maximumLength)
    }
    let first = bytes[0]
    let type: UInt8
    switch first {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): type = first
    case UInt8(ascii: "a")...UInt8(ascii: "z"): type = first - 0x20
    default: throw .noTypeLetter
    }
    // Split what follows the letter into runs of digits at each dot.
    var parts: [[UInt8]] = [[]]
    for offset in 1..<bytes.count {
      let byte = bytes[offset]
      if byte == UInt8(ascii: ".") {
        guard !parts[parts.count - 1].isEmpty else { throw .emptyPart(offset: offset) }
        parts.append([])
      } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
        parts[parts.count - 1].append(byte - UInt8(ascii: "0"))
      } else {
        throw .notADigit(offset: offset)
      }
    }
    guard let last = parts.last, !last.isEmpty else { throw .emptyPart(offset: bytes.count) }
    switch parts.count {
    case 1:
      guard last.count <= Self.maximumCodeDigits else {
        throw .tooManyDigits(limit: Self.maximumCodeDigits)
      }
      let code = last.reduce(UInt32(0)) { $0 * 10 + UInt32($1) }
      guard code <= 0xFF_FFFF else { throw .outOfRange }
      self.init(type: type, code: code)
    case 3:
      guard parts.allSatisfy({ $0.count <= Self.maximumPartDigits }) else {
        throw .tooManyDigits(limit: Self.maximumPartDigits)
      }
      let numbers = parts.map { $0.reduce(UInt16(0)) { $0 * 10 + UInt16($1) } }
      self.init(type: type, major: numbers[0], minor: numbers[1], patch: numbers[2])
    default:
      throw .partCount(parts.count)
    }
  }

  /// The device's encoding: the code form as it is; the dotted form as
  /// `major<<16 | minor<<8 | patch` (`V1.2.7` = 66055), the encoding of new firmware
  /// (PROTOCOL.md §1) [sdk-code][client]. nil for a dotted version with a part above 255 (it
  /// has no such encoding).
  public var deviceVersion: FirmwareVersion? {
    switch form {
    case .code(let code): return FirmwareVersion(type: type, code: code)
    case .dotted(let major, let minor, let patch):
      guard let code = FirmwareVersion.dottedCode(major: major, minor: minor, patch: patch) else {
        return nil
      }
      return FirmwareVersion(type: type, code: code)
    }
  }

  /// How `self` stands against `other`; nil when they cannot be ordered: another type
  /// letter, or one of each form where either has no device encoding. One of each form is
  /// compared by device code (`V66055` is `V1.2.7`, PROTOCOL.md §1).
  public func order(relativeTo other: FirmwareVersionNumber) -> FirmwareVersionOrder? {
    guard type == other.type else { return nil }
    switch (form, other.form) {
    case (.code(let mine), .code(let theirs)): return .comparing(mine, theirs)
    case (.dotted(let a, let b, let c), .dotted(let x, let y, let z)):
      // Tuples of three compare left to right.
      return .comparing((a, b, c), (x, y, z))
    default:
      guard let mine = deviceVersion, let theirs = other.deviceVersion else { return nil }
      return mine.order(relativeTo: theirs)
    }
  }

  /// The canonical text: `V0096` (at least four digits), `V1.2.8`. It parses back to `self`.
  public var description: String {
    let letter = String(UnicodeScalar(type))
    switch form {
    case .code(let code):
      let digits = String(code)
      return letter + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    case .dotted(let major, let minor, let patch):
      return "\(letter)\(major).\(minor).\(patch)"
    }
  }
}

/// Where one firmware version stands against another of the same type letter and form.
public enum FirmwareVersionOrder: Sendable, Equatable {
  case older
  case same
  case newer

  static func comparing<T: Comparable>(_ mine: T, _ theirs: T) -> FirmwareVersionOrder {
    mine < theirs ? .older : (mine == theirs ? .same : .newer)
  }

  static func comparing(_ mine: (UInt16, UInt16, UInt16), _ theirs: (UInt16, UInt16, UInt16))
    -> FirmwareVersionOrder
  {
    mine < theirs ? .older : (mine == theirs ? .same : .newer)
  }
}

/// Why a text is not a firmware version (``FirmwareVersionNumber``'s grammar). Offsets
/// count UTF-8 bytes from 0; the text itself is never echoed (it may hold control
/// characters).
public enum FirmwareVersionError: Error, Sendable, Equatable, CustomStringConvertible {
  case empty
  /// More than `limit` bytes.
  case tooLong(bytes: Int, limit: Int)
  /// The first byte is not an ASCII letter.
  case noTypeLetter
  /// The byte at `offset` is neither an ASCII digit nor a dot between digits.
  case notADigit(offset: Int)
  /// No digit before the dot (or the end) at `offset`.
  case emptyPart(offset: Int)
  /// `count` dot-separated parts: one (V0096) or three (V1.2.8) are versions.
  case partCount(Int)
  /// A number with more than `limit` digits.
  case tooManyDigits(limit: Int)
  /// A code above 16777215 (24 bits).
  case outOfRange
  /// A dotted version with a part above 255 where the device's encoding is needed.
  case noDeviceEncoding

  public var description: String {
    let prefix = "not a firmware version like V0096 or V1.2.8"
    switch self {
    case .empty: return "\(prefix): empty"
    case .tooLong(let bytes, let limit): return "\(prefix): \(bytes) bytes, at most \(limit)"
    case .noTypeLetter: return "\(prefix): it must start with a letter (V)"
    case .notADigit(let offset):
      return "\(prefix): byte \(offset) is not an ASCII digit or a dot between digits"
    case .emptyPart(let offset): return "\(prefix): no digit before byte \(offset)"
    case .partCount(let count): return "\(prefix): \(count) dot-separated numbers (1 or 3)"
    case .tooManyDigits(let limit): return "\(prefix): a number has more than \(limit) digits"
    case .outOfRange: return "\(prefix): the code is above 16777215"
    case .noDeviceEncoding:
      return
        "a dotted version with a part above 255 has no device encoding: give V1.2.8 or V0096"
    }
  }
}
