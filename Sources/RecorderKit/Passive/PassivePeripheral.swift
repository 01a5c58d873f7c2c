import HealthProfiles
import RecorderBluetooth

/// A peripheral registered for passive reading: read (or, for a recorder, synced) whenever
/// it is heard, in the foreground or the background.
public struct PassivePeripheral: Sendable, Hashable {
  /// What it is.
  public enum Kind: Sendable, Hashable, CustomStringConvertible {
    /// A SIG health peripheral, identified by its address.
    case health(HealthPeripheralKind)
    /// A voice recorder, identified by its serial (its address rotates); when it appears,
    /// its new recordings are synced.
    case recorder

    /// The journal's and the CLI's spelling: `thermometer`, …, `recorder`.
    public var description: String {
      switch self {
      case .health(let kind): kind.rawValue
      case .recorder: "recorder"
      }
    }

    /// Parses ``description`` (and the aliases of `HealthPeripheralKind/init(name:)`).
    public init?(name: String) {
      if name.lowercased() == "recorder" {
        self = .recorder
      } else if let kind = HealthPeripheralKind(name: name) {
        self = .health(kind)
      } else {
        return nil
      }
    }
  }

  /// The address a health peripheral advertises with, or a recorder's serial number.
  public var identifier: String
  public var kind: Kind
  /// A name to show the user.
  public var name: String?
  /// True once it was paired (bonded); kept in the journal.
  public var isPaired: Bool

  public init(identifier: String, kind: Kind, name: String? = nil, isPaired: Bool = false) {
    self.identifier = identifier
    self.kind = kind
    self.name = name
    self.isPaired = isPaired
  }

  /// Whether ``PeripheralController/pair(_:onStage:)`` must succeed before a read.
  public var requiresPairing: Bool {
    if case .health(let kind) = kind { return kind.requiresPairing }
    return false
  }

  /// What to tell the user while pairing (the seed's "instructions" of a peripheral).
  public var instructions: String {
    switch kind {
    case .health(.thermometer):
      "Turn the thermometer on and keep it close to the phone."
    case .health(.scale):
      "Step on the scale, then hold its button until the display shows the pairing symbol."
    case .health(.bloodPressure):
      "Hold the monitor's start button for 3 seconds until the Bluetooth symbol flashes."
    case .health(.pulseOximeter):
      "Put the oximeter on a finger and keep it near the phone until it shows a reading."
    case .recorder:
      "Keep the recorder near the phone; it is found by its serial number."
    }
  }

  /// The address to connect to (health peripherals).
  var peripheralID: PeripheralID { PeripheralID(identifier) }
}
