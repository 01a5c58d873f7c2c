/// The one gate through which a device-supplied name becomes a path component (DESIGN.md
/// invariant 8: device-supplied names never become paths unchecked).
///
/// A serial comes from advertising or the device's own answer (PROTOCOL.md §1: digits packed
/// as nibbles when shorter than 10 bytes, ASCII otherwise) and names the device's folder
/// `<root>/<serial>/` and its exports `<serial>-<id>.<ext>`. Only 1 to 32 ASCII letters and
/// digits pass: every serial seen so far is 15–18 digits [device], so this leaves room for
/// other models while `/`, `..`, NUL, control characters, non-ASCII look-alikes and
/// overlong names can never reach a path. Session ids need no gate: a `SessionID` prints as
/// its `u32` in decimal, digits only by construction.
package enum DeviceFolderName {
  /// How long a serial may be.
  public static let serialLength = 1...32

  /// `serial` itself, once it is a safe folder name; ``SyncError/unsafeSerial(_:)`` if not.
  public static func serial(_ serial: String) throws(SyncError) -> String {
    let scalars = serial.unicodeScalars
    guard serialLength.contains(scalars.count),
      scalars.allSatisfy({ $0.isASCII && (isLetter($0) || isDigit($0)) })
    else {
      throw .unsafeSerial(shown(serial))
    }
    return serial
  }

  private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
  }

  private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

  /// The serial for an error message: quoted, control characters escaped, at most 64
  /// characters, so a hostile serial cannot forge lines of output.
  private static func shown(_ serial: String) -> String {
    let limit = 64
    let head = String(serial.unicodeScalars.prefix(limit).map(Character.init))
    let quoted = head.debugDescription
    return serial.unicodeScalars.count > limit ? quoted + "…" : quoted
  }
}
