import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// Recorders met before, by serial: the platform's peripheral identity each was last
/// connected through, kept in a file so a relaunched app reaches them without a scan
/// (PROTOCOL.md §1 [project]: after a successful handshake the peripheral identity is
/// remembered for that serial).
///
/// On iOS this is what makes the background work: a recorder advertises no service UUID, so
/// a background scan never finds it, but a connect to a peripheral the system knows needs no
/// scan (``Recorders/connect(serial:heard:session:)`` tries it first) and may wait for the
/// recorder to come back (``Recorders/connectWhenInRange(serial:session:)``, and the keeping
/// of ``Recorders/keepConnected(_:session:reconnectsWhenInRange:)``, which marks the recorder
/// here while it waits so a later launch can wait again: ``Recorders/restoreKeptConnection(session:)``).
///
/// The file is the app's own but read as untrusted: at most ``maximumFileSize`` bytes and
/// ``capacity`` entries; anything malformed reads as no entry, never a crash. Writes replace
/// the file atomically. Thread-safe: one lock around the cached entries.
public final class KnownRecorders: Sendable {
  /// Most recorders remembered; the ones connected longest ago are forgotten first.
  public static let capacity = 64
  /// The largest file read.
  public static let maximumFileSize = 64 << 10

  private struct Entry: Codable, Equatable {
    var serial: String
    var peripheral: String
    var name: String?
    var projectCode: UInt16?
    var firmware: String?
    var portVersion: UInt16?
    /// Increases with every connection: the order of forgetting.
    var sequence: Int
    /// A pending connect to it is owed (``setAwaited(_:serial:)``).
    var awaited: Bool? = nil
  }

  private let path: String
  private let entries: Locked<[String: Entry]>

  /// The recorders remembered in the file at `path` (created when the first is remembered).
  public init(path: String) {
    self.path = path
    entries = Locked(Self.load(path))
  }

  /// How the recorder with `serial` was reached last, or nil when it never was.
  package func device(serial: String) -> DiscoveredDevice? {
    guard let entry = entries.withLock({ $0[serial] }) else { return nil }
    return DiscoveredDevice(
      peripheral: PeripheralID(entry.peripheral), name: entry.name, serial: entry.serial,
      model: RecorderModel.of(serial: entry.serial)
        ?? entry.projectCode.flatMap(RecorderModel.init(rawValue:)),
      projectCode: entry.projectCode, firmware: entry.firmware.flatMap(FirmwareVersion.init),
      portVersion: entry.portVersion, rssi: 0)
  }

  /// The serials remembered, most recently connected first.
  public var serials: [String] {
    entries.withLock { $0.values.sorted { $0.sequence > $1.sequence }.map(\.serial) }
  }

  /// Remembers `device` (it was just connected and authenticated as `serial`). Best effort:
  /// a file that cannot be written keeps the entry for this process only.
  package func remember(_ device: DiscoveredDevice, serial: String) {
    change { entries in
      let next = (entries.values.map(\.sequence).max() ?? 0) + 1
      entries[serial] = Entry(
        serial: serial, peripheral: device.peripheral.rawValue, name: device.name,
        projectCode: device.projectCode, firmware: device.firmware?.description,
        portVersion: device.portVersion, sequence: next, awaited: entries[serial]?.awaited)
      if entries.count > Self.capacity,
        let oldest = entries.values.min(by: { $0.sequence < $1.sequence })
      {
        entries[oldest.serial] = nil
      }
    }
  }

  /// Forgets the recorder with `serial` (it was unbound).
  public func forget(serial: String) { change { $0[serial] = nil } }

  /// Marks whether a pending connect to the recorder with `serial` is owed: set while an
  /// app waits for the recorder to come back, cleared once it is connected or the wait is
  /// withdrawn (``KeptConnection`` keeps it so). The mark outlives the app, so a later launch
  /// (after the user force-quit the app or the phone restarted, when the system keeps no
  /// pending connect) can make the connect again (``awaited``,
  /// ``Recorders/restoreKeptConnection(session:)``). No effect for a recorder not remembered.
  public func setAwaited(_ awaited: Bool, serial: String) {
    guard entries.withLock({ ($0[serial]?.awaited ?? false) != awaited && $0[serial] != nil })
    else { return }
    change { $0[serial]?.awaited = awaited ? true : nil }
  }

  /// The recorders a pending connect is owed to, most recently connected first.
  public var awaited: [String] {
    entries.withLock {
      $0.values.filter { $0.awaited == true }.sorted { $0.sequence > $1.sequence }.map(\.serial)
    }
  }

  /// Applies `body` to the entries and writes the file (best effort).
  private func change(_ body: (inout [String: Entry]) -> Void) {
    let snapshot = entries.withLock { entries -> [Entry] in
      body(&entries)
      return entries.values.sorted { $0.sequence < $1.sequence }
    }
    guard let data = try? JSONEncoder().encode(snapshot) else { return }
    let url = URL(fileURLWithPath: path)
    try? FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try? data.write(to: url, options: .atomic)
  }

  private static func load(_ path: String) -> [String: Entry] {
    guard let handle = FileHandle(forReadingAtPath: path) else { return [:] }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: maximumFileSize + 1),
      data.count <= maximumFileSize,
      let decoded = try? JSONDecoder().decode([Entry].self, from: data)
    else { return [:] }
    var entries: [String: Entry] = [:]
    for entry in decoded.suffix(capacity) where Self.isPlausible(entry) {
      entries[entry.serial] = entry
    }
    return entries
  }

  /// A serial and a peripheral identity of printable ASCII, of bounded length.
  private static func isPlausible(_ entry: Entry) -> Bool {
    func printable(_ text: String, upTo limit: Int) -> Bool {
      !text.isEmpty && text.utf8.count <= limit && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
    return printable(entry.serial, upTo: 64) && printable(entry.peripheral, upTo: 128)
      && (entry.name?.utf8.count ?? 0) <= 64
  }
}
