import Foundation
import HealthProfiles
import RecorderKit
import RecorderProtocol
import RecorderStore

/// `recorder passive …`: register peripherals for passive reading, run the Linux gateway
/// that reads them whenever they appear, and decode one health measurement.
struct PassiveCommand: RecorderCommand {
  static let name = "passive"
  static let abstract = "Read health peripherals (and sync recorders) whenever they appear."
  static let help = """
    OVERVIEW: Passive reading (issue 17). Registered peripherals are kept in DIR/journal.sqlite
    and read whenever they are heard; each measurement goes into an outbox there and is
    uploaded to --endpoint exactly once (an Idempotency-Key header per record, retried across
    restarts). A registered recorder that appears has its new recordings synced into DIR.

    USAGE: recorder passive register --root DIR --kind KIND (--id ADDRESS | --serial S)
                                     [--name NAME] [--paired]
           recorder passive unregister --root DIR --id ID
           recorder passive list --root DIR [--json]
           recorder passive run --root DIR --device URL [--endpoint URL] [--quiet-seconds S]
                                [--token-file PATH | --token T] [--format F]
                                [--stats-every N]
           recorder passive outbox --root DIR [--json]
           recorder passive decode --characteristic UUID [--json] [--reject-reserved] HEX...

    KINDS: thermometer, scale, blood-pressure (bp), pulse-oximeter (oximeter), recorder.

    OPTIONS:
      --root DIR            The folder of the journal (created if needed).
      --id ADDRESS          A health peripheral's address, as advertised (`recorder emulate
                            --health` prints them).
      --serial S            A recorder's serial number (its address rotates).
      --paired              The peripheral is already paired (bonded).
      --device URL          tcp://HOST:PORT of `recorder emulate` (docs/tcp-link.md).
      --endpoint URL        Where records are POSTed as JSON (http://…). Without it they
                            stay in the outbox.
      --quiet-seconds S     The cooldown: after a read, a peripheral is ignored until it has
                            been silent this long (default 15).
      --token-file PATH     The recorders' device token (or RECORDER_TOKEN, or --token T);
                            needed only when a recorder is registered.
      --format F            Recorders' export format: mp3 (default), wav, opus, pcm.
      --stats-every N       Every N readings, print `stats N run-tasks T cooldown C retries R
                            discoveries D rss-kb K`: what the reader holds (each figure
                            stays bounded however long it runs) and the resident set.
      --characteristic UUID 2A1C (temperature), 2A9D (weight), 2A35 (blood pressure),
                            2A5E (PLX spot-check); also 0x2A1C or the 128-bit form.
      HEX                   The characteristic value in hex; spaces and colons ignored.
      --reject-reserved     Reserved flag bits are an error (default: reported).
      --json                One JSON object (list, outbox: one array) on stdout.
      -h, --help            Show this help.

    `passive run` prints one line per event on stdout (read, paired, instructions, uploaded,
    synced, stats) and runs until interrupted. `passive decode` exits 65 with the reason on stderr
    when the bytes do not decode.
    """

  enum Action {
    case register(root: String, PassivePeripheral)
    case unregister(root: String, identifier: String)
    case list(root: String, json: Bool)
    case outbox(root: String, json: Bool)
    case run(PassiveRun)
    case decode(HealthCharacteristic, [UInt8], json: Bool, policy: ReservedFlagPolicy)
  }

  var action: Action

  init(arguments: inout Arguments) throws {
    guard let word = arguments.subcommand() else {
      throw UsageError("say what to do: register, unregister, list, run, outbox or decode")
    }
    switch word {
    case "register":
      let root = try arguments.required("root")
      let kindName = try arguments.required("kind")
      guard let kind = PassivePeripheral.Kind(name: kindName) else {
        throw UsageError("unknown --kind '\(kindName)'")
      }
      let identifier: String
      if kind == .recorder {
        identifier = try arguments.required("serial")
      } else {
        identifier = try arguments.required("id")
      }
      let peripheral = PassivePeripheral(
        identifier: identifier, kind: kind, name: try arguments.option("name"),
        isPaired: arguments.flag("paired"))
      action = .register(root: root, peripheral)
    case "unregister":
      action = .unregister(
        root: try arguments.required("root"), identifier: try arguments.required("id"))
    case "list":
      action = .list(root: try arguments.required("root"), json: arguments.flag("json"))
    case "outbox":
      action = .outbox(root: try arguments.required("root"), json: arguments.flag("json"))
    case "run":
      action = .run(try PassiveRun(arguments: &arguments))
    case "decode":
      let characteristic: HealthCharacteristic
      do {
        characteristic = try HealthCharacteristic(
          identifier: try arguments.required("characteristic"))
      } catch let error as HealthProfileError {
        throw UsageError("--characteristic: \(error)")
      }
      let json = arguments.flag("json")
      let policy: ReservedFlagPolicy = arguments.flag("reject-reserved") ? .reject : .tolerate
      let hexText = try arguments.positionals().joined()
      guard !hexText.isEmpty else { throw UsageError("HEX is required") }
      guard let bytes = [UInt8](hex: hexText) else {
        throw UsageError("'\(hexText)' is not hex (an even number of 0-9a-f digits)")
      }
      action = .decode(characteristic, bytes, json: json, policy: policy)
    default:
      throw UsageError("unknown passive command '\(word)'")
    }
    try arguments.finish()
  }

  func run() async throws {
    switch action {
    case .register(let root, let peripheral):
      try Self.registry(root).register(peripheral)
      print("registered \(peripheral.kind) \(peripheral.identifier)")
    case .unregister(let root, let identifier):
      let registry = try Self.registry(root)
      do throws(PassiveError) {
        try registry.unregister(identifier)
      } catch {
        throw CommandFailure(.failure, "\(error)")
      }
      print("unregistered \(identifier)")
    case .list(let root, let json):
      let peripherals = try Self.registry(root).peripherals()
      print(json ? Self.listJSON(peripherals) : Self.listText(peripherals))
    case .outbox(let root, let json):
      let entries = try Self.openJournal(root).read { try $0.allOutbox() }
      print(json ? Self.outboxJSON(entries) : Self.outboxText(entries))
    case .run(let run):
      try await run.run()
    case .decode(let characteristic, let bytes, let json, let policy):
      let measurement: HealthMeasurement
      do {
        measurement = try HealthMeasurement.decode(
          characteristic: characteristic, bytes: bytes, reservedFlags: policy)
      } catch {
        throw CommandFailure(.dataError, "malformed \(characteristic.name): \(error)")
      }
      print(json ? Self.measurementJSON(measurement) : measurement.description)
    }
  }

  // MARK: Helpers

  static func openJournal(_ root: String) throws -> Journal {
    do {
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      return try Journal(path: StorageLayout(root: root).journal)
    } catch {
      throw CommandFailure(.ioError, "cannot open the journal in \(root): \(error)")
    }
  }

  static func registry(_ root: String) throws -> PassiveRegistry {
    PassiveRegistry(journal: try openJournal(root))
  }

  static func listText(_ peripherals: [PassivePeripheral]) -> String {
    guard !peripherals.isEmpty else { return "no registered peripherals" }
    return peripherals.map {
      "\($0.kind.description.padding(15)) \($0.identifier.padding(24)) "
        + ($0.requiresPairing ? ($0.isPaired ? "paired" : "needs pairing") : "-")
    }.joined(separator: "\n")
  }

  static func listJSON(_ peripherals: [PassivePeripheral]) -> String {
    JSONValue.array(
      peripherals.map {
        .object([
          ("identifier", .string($0.identifier)), ("kind", .string($0.kind.description)),
          ("name", $0.name.map { .string($0) } ?? .null),
          ("requiresPairing", .bool($0.requiresPairing)), ("paired", .bool($0.isPaired)),
        ])
      }
    ).serialized
  }

  static func outboxText(_ entries: [OutboxEntry]) -> String {
    guard !entries.isEmpty else { return "the outbox is empty" }
    return entries.map {
      "\($0.idempotencyKey) \($0.delivered ? "delivered" : "pending") attempts \($0.attempts)"
    }.joined(separator: "\n")
  }

  static func outboxJSON(_ entries: [OutboxEntry]) -> String {
    JSONValue.array(
      entries.map {
        .object([
          ("idempotencyKey", .string($0.idempotencyKey)), ("delivered", .bool($0.delivered)),
          ("attempts", .int(Int64($0.attempts))),
          ("lastError", $0.lastError.map { .string($0) } ?? .null),
        ])
      }
    ).serialized
  }

  /// `{"characteristic":"2A1C","name":"Temperature Measurement","fields":[{"name":…,
  /// "value":…,"unit":…},…]}`: every field in wire order, units where they apply.
  static func measurementJSON(_ measurement: HealthMeasurement) -> String {
    JSONValue.object([
      ("characteristic", .string(measurement.characteristic.uuidString)),
      ("name", .string(measurement.characteristic.name)),
      (
        "fields",
        .array(
          measurement.fields.dropFirst().map { field in
            .object(
              [("name", .string(field.name)), ("value", .string(field.value))]
                + (field.unit.map { [("unit", JSONValue.string($0))] } ?? []))
          })
      ),
    ]).serialized
  }
}
