import RecorderProtocol

/// The cloud's device type for a serial (PROTOCOL.md §8): a view of
/// ``ModelCapabilities/cloudDeviceType``, the row of the model the serial's prefix names, else
/// `note` ("anything else" [sdk]).
public struct CloudDeviceType: RawRepresentable, Hashable, Sendable, CaseIterable,
  CustomStringConvertible
{
  /// The type as the cloud spells it (`type` in its requests).
  public let rawValue: String

  /// A type as the cloud spells it; nil for one no model has.
  public init?(rawValue: String) {
    guard ModelCapabilities.all.contains(where: { $0.cloudDeviceType == rawValue }) else {
      return nil
    }
    self.rawValue = rawValue
  }

  private init(_ row: ModelCapabilities) { rawValue = row.cloudDeviceType }

  /// The type of the device with serial `serial`.
  public init(serial: String) { rawValue = ModelCapabilities.cloudDeviceType(serial: serial) }

  /// The type of `model`.
  public init(model: RecorderModel) { self.init(model.capabilities) }

  /// Every model's type, in the table's order.
  public static var allCases: [CloudDeviceType] { ModelCapabilities.all.map(Self.init) }

  /// The Note's, and any serial no model has.
  public static let note = CloudDeviceType(.note)
  /// The NotePin's.
  public static let notepin = CloudDeviceType(.notePin)
  /// The Note Pro's.
  public static let notepro = CloudDeviceType(.notePro)
  /// The NotePin S's.
  public static let notepins = CloudDeviceType(.notePinS)

  public var description: String { rawValue }
}
