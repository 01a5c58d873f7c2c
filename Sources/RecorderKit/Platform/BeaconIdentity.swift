import RecorderBluetooth

/// The iBeacon a recorder broadcasts while its iBeacon wake-up (setting 49) is on, as a
/// region to watch: a proximity UUID, optionally narrowed by major, then minor. Which
/// identity a real recorder uses is not in any source RecorderKit has (shared/PROTOCOL.md
/// marks it [project]), so it is configuration: see ``BeaconIdentities``.
public struct BeaconIdentity: Sendable, Hashable, CustomStringConvertible {
  /// The proximity UUID.
  public let uuid: BluetoothUUID
  /// The major value, nil for any.
  public let major: UInt16?
  /// The minor value, nil for any; only with a major (Core Location has no minor-only
  /// region).
  public let minor: UInt16?

  /// Any beacon with `uuid`.
  public init(uuid: BluetoothUUID) {
    self.uuid = uuid
    major = nil
    minor = nil
  }

  /// The beacons with `uuid` and `major`, and `minor` when given.
  public init(uuid: BluetoothUUID, major: UInt16, minor: UInt16? = nil) {
    self.uuid = uuid
    self.major = major
    self.minor = minor
  }

  /// Exactly `beacon`'s identity.
  public init(exactly beacon: IBeacon) {
    self.init(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor)
  }

  /// True when `beacon` is one this identity's region contains.
  package func matches(_ beacon: IBeacon) -> Bool {
    beacon.uuid == uuid && (major.map { $0 == beacon.major } ?? true)
      && (minor.map { $0 == beacon.minor } ?? true)
  }

  /// `UUID[:major[:minor]]`.
  public var description: String {
    [uuid.uuidString, major.map(String.init), minor.map(String.init)].compactMap { $0 }
      .joined(separator: ":")
  }

  /// Reads ``description``'s form, `UUID[:major[:minor]]`, decimal values 0…65535.
  /// - Throws: ``BeaconIdentityError/malformed(_:)`` for anything else.
  public init(parsing text: String) throws(BeaconIdentityError) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard (1...3).contains(parts.count), let uuid = BluetoothUUID(string: String(parts[0]))
    else { throw .malformed("not UUID[:major[:minor]]") }
    var values: [UInt16] = []
    for part in parts.dropFirst() {
      // Digits only: UInt16("+1") would take a sign.
      guard (1...5).contains(part.utf8.count),
        part.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
        let value = UInt16(part)
      else {
        throw .malformed("major and minor are whole numbers 0…65535")
      }
      values.append(value)
    }
    if let major = values.first {
      self.init(uuid: uuid, major: major, minor: values.count > 1 ? values[1] : nil)
    } else {
      self.init(uuid: uuid)
    }
  }
}

/// Why a beacon identity was refused.
public enum BeaconIdentityError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not an identity; the reason (never the input itself, which may be anything).
  case malformed(String)

  public var description: String {
    switch self {
    case .malformed(let reason): "malformed beacon identity: \(reason)"
    }
  }
}

/// Which beacon identity each recorder broadcasts: an entry per serial number, and a
/// shared identity for serials without one (nil: those cannot be watched).
///
/// Recorders that share an identity cannot be told apart by Core Location: each has its
/// own region, and any of them coming into range enters every such region, so each of
/// their serials is reported as a wake-up. Give each recorder its own major/minor where the
/// recorders allow it.
public struct BeaconIdentities: Sendable, Equatable {
  /// Identities by serial number.
  public var bySerial: [String: BeaconIdentity]
  /// The identity of every recorder not in ``bySerial``.
  public var shared: BeaconIdentity?

  public init(bySerial: [String: BeaconIdentity] = [:], shared: BeaconIdentity? = nil) {
    self.bySerial = bySerial
    self.shared = shared
  }

  /// No identity known: no recorder can be watched.
  public static let none = BeaconIdentities()

  /// The identity of the recorder with `serial`, nil when none is known.
  public func identity(for serial: String) -> BeaconIdentity? { bySerial[serial] ?? shared }

  /// The key of an app's Info.plist read by ``init(propertyList:)``.
  public static let infoPlistKey = "RecorderKitBeacons"

  /// Most entries ``init(propertyList:)`` reads.
  public static let maximumEntries = 1024

  /// Identities from a property list dictionary (an app's Info.plist under
  /// ``infoPlistKey``): `shared` an identity string, `serials` a dictionary from serial
  /// number to identity string, each in ``BeaconIdentity/description``'s form
  /// `UUID[:major[:minor]]`. Both keys are optional; no other key is allowed.
  ///
  /// - Throws: ``BeaconIdentityError`` for another shape, a malformed identity, or more than
  ///   ``maximumEntries`` serials.
  public init(propertyList: Any) throws(BeaconIdentityError) {
    guard let dictionary = propertyList as? [String: Any] else {
      throw .malformed("\(Self.infoPlistKey) is not a dictionary")
    }
    guard Set(dictionary.keys).isSubset(of: ["shared", "serials"]) else {
      throw .malformed("\(Self.infoPlistKey) has keys other than shared and serials")
    }
    var identities = BeaconIdentities()
    if let shared = dictionary["shared"] {
      guard let text = shared as? String else { throw .malformed("shared is not a string") }
      identities.shared = try BeaconIdentity(parsing: text)
    }
    if let serials = dictionary["serials"] {
      guard let table = serials as? [String: Any] else {
        throw .malformed("serials is not a dictionary")
      }
      guard table.count <= Self.maximumEntries else { throw .malformed("too many serials") }
      for (serial, value) in table {
        guard !serial.isEmpty, serial.utf8.count <= 64, let text = value as? String else {
          throw .malformed("serials maps serial numbers (1…64 bytes) to strings")
        }
        identities.bySerial[serial] = try BeaconIdentity(parsing: text)
      }
    }
    self = identities
  }
}
