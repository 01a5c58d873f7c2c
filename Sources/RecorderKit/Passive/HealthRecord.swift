import Foundation
import HealthProfiles

/// One measurement read from a health peripheral: the typed value, who sent it and when.
/// Its ``idempotencyKey`` travels with every upload attempt, so the endpoint keeps it once.
public struct HealthRecord: Sendable, Equatable {
  /// Chosen when the record is made (a UUID); the outbox's key and the upload's
  /// `Idempotency-Key` header.
  public var idempotencyKey: String
  /// The peripheral's identifier (its address) as registered.
  public var peripheral: String
  public var kind: HealthPeripheralKind
  /// The decoded value (values, units, the device's own time stamp, flags).
  public var measurement: HealthMeasurement
  /// The characteristic value as received.
  public var rawValue: [UInt8]
  /// When the gateway received it (wall clock).
  public var receivedAt: Date

  package init(
    idempotencyKey: String = UUID().uuidString.lowercased(), peripheral: String,
    kind: HealthPeripheralKind, measurement: HealthMeasurement, rawValue: [UInt8],
    receivedAt: Date
  ) {
    self.idempotencyKey = idempotencyKey
    self.peripheral = peripheral
    self.kind = kind
    self.measurement = measurement
    self.rawValue = rawValue
    self.receivedAt = receivedAt
  }

  /// The upload body: one JSON object with `id`, `peripheral`, `kind`, `characteristic`
  /// (4 hex digits), `receivedAt` (ISO 8601, UTC), `measuredAt` (the device's time stamp as
  /// it wrote it, or null), `fields` (name, value, unit; the measurement's fields in wire
  /// order) and `raw` (hex). Keys sorted, so
  /// the same record always gives the same bytes.
  public func jsonBody() -> [UInt8] {
    let body = UploadBody(
      id: idempotencyKey, peripheral: peripheral, kind: kind.rawValue,
      characteristic: measurement.characteristic.uuidString,
      receivedAt: Self.iso8601(receivedAt), measuredAt: measurement.timestamp?.description,
      fields: Array(measurement.fields.dropFirst()),
      raw: rawValue.map { String(format: "%02X", $0) }.joined())
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Encoding a struct of strings and arrays of strings cannot fail.
    return (try? Array(encoder.encode(body))) ?? []
  }

  static func iso8601(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    return formatter.string(from: date)
  }

  private struct UploadBody: Encodable {
    var id: String
    var peripheral: String
    var kind: String
    var characteristic: String
    var receivedAt: String
    var measuredAt: String?
    var fields: [HealthField]
    var raw: String

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(id, forKey: .id)
      try container.encode(peripheral, forKey: .peripheral)
      try container.encode(kind, forKey: .kind)
      try container.encode(characteristic, forKey: .characteristic)
      try container.encode(receivedAt, forKey: .receivedAt)
      try container.encode(measuredAt, forKey: .measuredAt)  // null when absent
      try container.encode(fields, forKey: .fields)
      try container.encode(raw, forKey: .raw)
    }

    enum CodingKeys: String, CodingKey {
      case id, peripheral, kind, characteristic, receivedAt, measuredAt, fields, raw
    }
  }
}
