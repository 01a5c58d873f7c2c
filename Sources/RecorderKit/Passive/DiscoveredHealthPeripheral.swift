import HealthProfiles
import RecorderBluetooth

/// A health peripheral heard by discovery (``PassiveReader/discover()``): what the app shows
/// the user so they can pick one to register for passive reading.
///
/// It is recognised by the SIG service it advertises, nothing else: Health Thermometer
/// (0x1809), Weight Scale (0x181D), Blood Pressure (0x1810) or Pulse Oximeter (0x1822). An
/// advertisement naming none of them is not a health peripheral, whatever its name says.
public struct DiscoveredHealthPeripheral: Sendable, Hashable {
  /// The address it advertises with: the ``PassivePeripheral/identifier`` to register.
  public var identifier: String
  /// Its kind, from the first of the four health services its advertisement lists.
  public var kind: HealthPeripheralKind
  /// Its advertised local name, cleaned for display: control and format characters
  /// dropped, white space trimmed, at most 248 UTF-8 bytes (the GAP Device Name limit); nil
  /// when it advertised none, or nothing printable.
  public var name: String?
  /// The signal strength of the advertisement that reported it, in dBm, as the radio gave it
  /// (CoreBluetooth reports 127 when it has no value).
  public var rssi: Int
  /// Whether it was registered for passive reading when it was reported.
  public var isRegistered: Bool

  package init(
    identifier: String, kind: HealthPeripheralKind, name: String?, rssi: Int, isRegistered: Bool
  ) {
    self.identifier = identifier
    self.kind = kind
    self.name = name
    self.rssi = rssi
    self.isRegistered = isRegistered
  }

  /// The health peripheral `advertisement` comes from, or nil when it advertises none of the
  /// four health services. Never traps: the service list and the name are outside data (any
  /// length, repeats, 128-bit UUIDs, control characters) and are only read.
  /// - Parameters:
  ///   - advertisement: what the radio heard.
  ///   - isRegistered: whether the peripheral is registered for passive reading now.
  public init?(advertisement: Advertisement, isRegistered: Bool) {
    guard let kind = Self.kind(advertising: advertisement.serviceUUIDs) else { return nil }
    self.init(
      identifier: advertisement.peripheral.rawValue, kind: kind,
      name: Self.displayName(advertisement.localName), rssi: advertisement.rssi,
      isRegistered: isRegistered)
  }

  /// The registration the app makes to read it passively: pass it to
  /// ``PassiveReader/register(_:)``, which keeps it in the journal's ``PassiveRegistry``.
  public var registration: PassivePeripheral {
    PassivePeripheral(identifier: identifier, kind: .health(kind), name: name)
  }

  /// The services discovery scans for: the four health services, never nil (an iOS app in
  /// the background hears nothing with a scan that names no service).
  public static let scanServices: [BluetoothUUID] = HealthPeripheralKind.allCases.map {
    BluetoothUUID($0.serviceUUID)
  }

  /// The kind of the first health service in `services` (the advertised order), or nil.
  /// Only SIG-base (16-bit) UUIDs can be health services; every other entry is skipped.
  static func kind(advertising services: [BluetoothUUID]) -> HealthPeripheralKind? {
    for service in services {
      if let short = service.shortValue, let kind = HealthPeripheralKind(serviceUUID: short) {
        return kind
      }
    }
    return nil
  }

  /// The longest name kept, in UTF-8 bytes: the GAP Device Name's limit (248 octets).
  static let maximumNameBytes = 248

  /// `name` fit for display: control and format characters dropped (a name must not move the
  /// cursor, reverse text or end a line), surrounding white space trimmed, cut at a character
  /// boundary to at most ``maximumNameBytes`` UTF-8 bytes; nil when nothing is left.
  static func displayName(_ name: String?) -> String? {
    guard let name else { return nil }
    var kept = String.UnicodeScalarView()
    var bytes = 0
    for scalar in name.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned,
        .privateUse:
        continue
      default:
        break
      }
      let size = String(scalar).utf8.count
      guard bytes + size <= maximumNameBytes else { break }
      bytes += size
      kept.append(scalar)
    }
    let trimmed = String(kept).trimmingWhitespace()
    return trimmed.isEmpty ? nil : trimmed
  }
}

extension String {
  /// Without leading and trailing white space (Unicode's White_Space property).
  fileprivate func trimmingWhitespace() -> String {
    let scalars = unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    return String(scalars[first...last])
  }
}
