#if os(Linux)
  import CDBus
  import Glibc

  /// One D-Bus value, as libdbus-1 marshals it: what BlueZ's methods take and return and what
  /// its signals carry. Only the types BlueZ uses are modelled; a message with another type
  /// (double, for one) is read as far as it goes and the rest dropped.
  ///
  /// A Unix file descriptor (`h`) read from a message is a fresh descriptor the reader owns
  /// (libdbus dup()s it); whoever takes the value out closes it.
  indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case string(String)
    case objectPath(String)
    case signature(String)
    case unixFD(Int32)
    /// `a…`: the element's signature (`y`, `{sv}`, …) and the elements.
    case array(elementSignature: String, [DBusValue])
    /// `ay`, kept as bytes: characteristic values move this way, one copy.
    case bytes([UInt8])
    /// `{kv}`, only ever inside an array.
    case dictEntry(DBusValue, DBusValue)
    case structure([DBusValue])
    case variant(DBusValue)

    /// The value's D-Bus type signature.
    var signature: String {
      switch self {
      case .byte: "y"
      case .bool: "b"
      case .int16: "n"
      case .uint16: "q"
      case .int32: "i"
      case .uint32: "u"
      case .int64: "x"
      case .uint64: "t"
      case .string: "s"
      case .objectPath: "o"
      case .signature: "g"
      case .unixFD: "h"
      case .array(let element, _): "a" + element
      case .bytes: "ay"
      case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
      case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
      case .variant: "v"
      }
    }

    /// `a{sv}` from a Swift dictionary: BlueZ's option dictionaries.
    static func options(_ entries: [String: DBusValue]) -> DBusValue {
      .array(
        elementSignature: "{sv}",
        entries.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    // MARK: Reading

    /// The content of a variant, or the value itself.
    var unwrapped: DBusValue {
      if case .variant(let inner) = self { return inner.unwrapped }
      return self
    }
    var stringValue: String? {
      switch unwrapped {
      case .string(let text), .objectPath(let text): text
      default: nil
      }
    }
    var boolValue: Bool? {
      if case .bool(let value) = unwrapped { return value }
      return nil
    }
    /// Any integer type, widened.
    var intValue: Int? {
      switch unwrapped {
      case .byte(let v): Int(v)
      case .int16(let v): Int(v)
      case .uint16(let v): Int(v)
      case .int32(let v): Int(v)
      case .uint32(let v): Int(v)
      case .int64(let v): Int(v)
      case .uint64(let v): Int(exactly: v)
      default: nil
      }
    }
    /// `ay` (or an array of bytes built another way).
    var bytesValue: [UInt8]? {
      switch unwrapped {
      case .bytes(let bytes): return bytes
      case .array(_, let elements):
        var bytes: [UInt8] = []
        for element in elements {
          guard case .byte(let byte) = element else { return nil }
          bytes.append(byte)
        }
        return bytes
      default: return nil
      }
    }
    var arrayValue: [DBusValue]? {
      switch unwrapped {
      case .array(_, let elements): elements
      case .bytes(let bytes): bytes.map { .byte($0) }
      default: nil
      }
    }
    /// `a{sv}` (or any dictionary with string keys) as a Swift dictionary.
    var stringDictionary: [String: DBusValue]? {
      guard let elements = arrayValue else { return nil }
      var result: [String: DBusValue] = [:]
      for element in elements {
        guard case .dictEntry(let key, let value) = element, let name = key.stringValue else {
          return nil
        }
        result[name] = value
      }
      return result
    }
  }

  /// D-Bus type codes (dbus-protocol.h): ASCII letters, spelt out because Swift does not
  /// import libdbus's `((int) 'y')` macros.
  enum DBusType {
    static let invalid: Int32 = 0
    static let byte = Int32(UInt8(ascii: "y"))
    static let bool = Int32(UInt8(ascii: "b"))
    static let int16 = Int32(UInt8(ascii: "n"))
    static let uint16 = Int32(UInt8(ascii: "q"))
    static let int32 = Int32(UInt8(ascii: "i"))
    static let uint32 = Int32(UInt8(ascii: "u"))
    static let int64 = Int32(UInt8(ascii: "x"))
    static let uint64 = Int32(UInt8(ascii: "t"))
    static let double = Int32(UInt8(ascii: "d"))
    static let string = Int32(UInt8(ascii: "s"))
    static let objectPath = Int32(UInt8(ascii: "o"))
    static let signature = Int32(UInt8(ascii: "g"))
    static let unixFD = Int32(UInt8(ascii: "h"))
    static let array = Int32(UInt8(ascii: "a"))
    static let variant = Int32(UInt8(ascii: "v"))
    static let structure = Int32(UInt8(ascii: "r"))
    static let dictEntry = Int32(UInt8(ascii: "e"))
  }

  extension DBusValue {
    /// Reads every argument of `message`.
    static func arguments(of message: OpaquePointer) -> [DBusValue] {
      var iter = DBusMessageIter()
      guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
      return readAll(&iter)
    }

    private static func readAll(_ iter: inout DBusMessageIter) -> [DBusValue] {
      var values: [DBusValue] = []
      while dbus_message_iter_get_arg_type(&iter) != DBusType.invalid {
        guard let value = read(&iter) else { break }
        values.append(value)
        dbus_message_iter_next(&iter)
      }
      return values
    }

    private static func basic<T>(_ iter: inout DBusMessageIter, _ zero: T) -> T {
      var value = zero
      withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
      return value
    }

    private static func text(_ iter: inout DBusMessageIter) -> String {
      var pointer: UnsafePointer<CChar>? = nil
      withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(&iter, $0) }
      return pointer.map { String(cString: $0) } ?? ""
    }

    private static func read(_ iter: inout DBusMessageIter) -> DBusValue? {
      switch dbus_message_iter_get_arg_type(&iter) {
      case DBusType.byte: return .byte(basic(&iter, UInt8(0)))
      case DBusType.bool: return .bool(basic(&iter, dbus_bool_t(0)) != 0)
      case DBusType.int16: return .int16(basic(&iter, Int16(0)))
      case DBusType.uint16: return .uint16(basic(&iter, UInt16(0)))
      case DBusType.int32: return .int32(basic(&iter, Int32(0)))
      case DBusType.uint32: return .uint32(basic(&iter, UInt32(0)))
      case DBusType.int64: return .int64(basic(&iter, Int64(0)))
      case DBusType.uint64: return .uint64(basic(&iter, UInt64(0)))
      case DBusType.string: return .string(text(&iter))
      case DBusType.objectPath: return .objectPath(text(&iter))
      case DBusType.signature: return .signature(text(&iter))
      case DBusType.unixFD: return .unixFD(basic(&iter, Int32(-1)))
      case DBusType.array: return readArray(&iter)
      case DBusType.variant:
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        return read(&sub).map { .variant($0) }
      case DBusType.structure:
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        return .structure(readAll(&sub))
      case DBusType.dictEntry:
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        let pair = readAll(&sub)
        guard pair.count == 2 else { return nil }
        return .dictEntry(pair[0], pair[1])
      default: return nil
      }
    }

    private static func readArray(_ iter: inout DBusMessageIter) -> DBusValue? {
      var sub = DBusMessageIter()
      dbus_message_iter_recurse(&iter, &sub)
      if dbus_message_iter_get_element_type(&iter) == DBusType.byte {
        var pointer: UnsafeMutableRawPointer? = nil
        var count: Int32 = 0
        withUnsafeMutablePointer(to: &pointer) {
          dbus_message_iter_get_fixed_array(&sub, $0, &count)
        }
        guard let pointer, count > 0 else { return .bytes([]) }
        return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: Int(count))))
      }
      guard let full = dbus_message_iter_get_signature(&iter) else { return nil }
      defer { dbus_free(full) }
      let element = String(String(cString: full).dropFirst())
      return .array(elementSignature: element, readAll(&sub))
    }

    // MARK: Writing

    /// Appends `values` as the arguments of `message`; false when libdbus refused one (out
    /// of memory, or an invalid object path or signature).
    static func append(_ values: [DBusValue], to message: OpaquePointer) -> Bool {
      var iter = DBusMessageIter()
      dbus_message_iter_init_append(message, &iter)
      return values.allSatisfy { $0.append(to: &iter) }
    }

    private func appendBasic<T>(_ type: Int32, _ value: T, _ iter: inout DBusMessageIter) -> Bool {
      var copy = value
      return withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(&iter, type, $0) } != 0
    }

    private func appendText(_ type: Int32, _ text: String, _ iter: inout DBusMessageIter) -> Bool {
      text.withCString { cString in
        var pointer: UnsafePointer<CChar>? = cString
        return withUnsafePointer(to: &pointer) { dbus_message_iter_append_basic(&iter, type, $0) }
          != 0
      }
    }

    private func container(
      _ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
      _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
      var sub = DBusMessageIter()
      let opened: Bool
      if let signature {
        opened =
          signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) } != 0
      } else {
        opened = dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
      }
      guard opened else { return false }
      let ok = body(&sub)
      guard ok else {
        dbus_message_iter_abandon_container(&iter, &sub)
        return false
      }
      return dbus_message_iter_close_container(&iter, &sub) != 0
    }

    fileprivate func append(to iter: inout DBusMessageIter) -> Bool {
      switch self {
      case .byte(let v): return appendBasic(DBusType.byte, v, &iter)
      case .bool(let v): return appendBasic(DBusType.bool, dbus_bool_t(v ? 1 : 0), &iter)
      case .int16(let v): return appendBasic(DBusType.int16, v, &iter)
      case .uint16(let v): return appendBasic(DBusType.uint16, v, &iter)
      case .int32(let v): return appendBasic(DBusType.int32, v, &iter)
      case .uint32(let v): return appendBasic(DBusType.uint32, v, &iter)
      case .int64(let v): return appendBasic(DBusType.int64, v, &iter)
      case .uint64(let v): return appendBasic(DBusType.uint64, v, &iter)
      case .unixFD(let v): return appendBasic(DBusType.unixFD, v, &iter)
      case .string(let v): return appendText(DBusType.string, v, &iter)
      case .objectPath(let v): return appendText(DBusType.objectPath, v, &iter)
      case .signature(let v): return appendText(DBusType.signature, v, &iter)
      case .bytes(let bytes):
        return container(DBusType.array, "y", &iter) { sub in
          bytes.withUnsafeBufferPointer { buffer in
            var base = buffer.baseAddress
            return withUnsafePointer(to: &base) {
              dbus_message_iter_append_fixed_array(&sub, DBusType.byte, $0, Int32(buffer.count))
            } != 0
          }
        }
      case .array(let element, let elements):
        return container(DBusType.array, element, &iter) { sub in
          elements.allSatisfy { $0.append(to: &sub) }
        }
      case .dictEntry(let key, let value):
        return container(DBusType.dictEntry, nil, &iter) { sub in
          key.append(to: &sub) && value.append(to: &sub)
        }
      case .structure(let fields):
        return container(DBusType.structure, nil, &iter) { sub in
          fields.allSatisfy { $0.append(to: &sub) }
        }
      case .variant(let inner):
        return container(DBusType.variant, inner.signature, &iter) { sub in
          inner.append(to: &sub)
        }
      }
    }
  }
#endif
