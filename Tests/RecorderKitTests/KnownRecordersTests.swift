import Foundation
import RecorderBluetooth
import RecorderKit
import Testing

/// The file of recorders met before: read as untrusted, bounded, and kept across instances.
@Suite("Known recorders")
struct KnownRecordersTests {
  static func device(_ serial: String, peripheral: String) -> DiscoveredDevice {
    DiscoveredDevice(
      peripheral: PeripheralID(peripheral), name: "PLAUD_NOTE", serial: serial, model: nil,
      projectCode: 888, firmware: nil, portVersion: 10, rssi: -50)
  }

  static func path() -> String {
    NSTemporaryDirectory() + "known-\(UUID().uuidString)/known.json"
  }

  @Test func remembersAcrossInstancesAndForgets() {
    let path = Self.path()
    defer {
      try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
    KnownRecorders(path: path).remember(Self.device("8881", peripheral: "P-1"), serial: "8881")
    let again = KnownRecorders(path: path)
    #expect(again.device(serial: "8881")?.peripheral == PeripheralID("P-1"))
    #expect(again.device(serial: "8881")?.portVersion == 10)
    again.remember(Self.device("8881", peripheral: "P-2"), serial: "8881")
    #expect(KnownRecorders(path: path).device(serial: "8881")?.peripheral == PeripheralID("P-2"))
    again.forget(serial: "8881")
    #expect(KnownRecorders(path: path).device(serial: "8881") == nil)
  }

  @Test("an owed pending connect is marked across instances, kept through a reconnect's remember")
  func awaitedAcrossInstances() {
    let path = Self.path()
    defer {
      try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
    let known = KnownRecorders(path: path)
    known.setAwaited(true, serial: "8881")  // not remembered: no effect
    #expect(known.awaited.isEmpty)
    known.remember(Self.device("8881", peripheral: "P-1"), serial: "8881")
    known.remember(Self.device("8882", peripheral: "P-2"), serial: "8882")
    known.setAwaited(true, serial: "8881")
    known.setAwaited(true, serial: "8882")
    #expect(KnownRecorders(path: path).awaited == ["8882", "8881"], "most recent first")
    known.remember(Self.device("8881", peripheral: "P-3"), serial: "8881")
    #expect(KnownRecorders(path: path).awaited == ["8881", "8882"])
    known.setAwaited(false, serial: "8881")
    #expect(KnownRecorders(path: path).awaited == ["8882"])
  }

  @Test func theOldestIsForgottenPastCapacity() {
    let path = Self.path()
    defer {
      try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
    let known = KnownRecorders(path: path)
    for index in 0...KnownRecorders.capacity {
      known.remember(Self.device("S\(index)", peripheral: "P-\(index)"), serial: "S\(index)")
    }
    let reread = KnownRecorders(path: path)
    #expect(reread.serials.count == KnownRecorders.capacity)
    #expect(reread.device(serial: "S0") == nil)
    #expect(reread.serials.first == "S\(KnownRecorders.capacity)")
  }

  @Test(
    "a malformed file reads as no recorder",
    arguments: [
      "", "not json", "{}", "[1,2,3]", #"[{"serial":"8881"}]"#,
      #"[{"serial":"88 81","peripheral":"P","sequence":1}]"#,
      #"[{"serial":"","peripheral":"P","sequence":1}]"#,
      #"[{"serial":"8881","peripheral":"P\u0000","sequence":1}]"#,
      String(repeating: " ", count: KnownRecorders.maximumFileSize + 1)
        + #"[{"serial":"8881","peripheral":"P","sequence":1}]"#,
    ])
  func malformed(contents: String) throws {
    let path = Self.path()
    defer {
      try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    let known = KnownRecorders(path: path)
    #expect(known.serials.isEmpty)
    #expect(known.device(serial: "8881") == nil)
  }

  @Test func aWellFormedFileIsRead() throws {
    let path = Self.path()
    defer {
      try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
    }
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(#"[{"serial":"8881","peripheral":"P-9","sequence":1}]"#.utf8).write(
      to: URL(fileURLWithPath: path))
    #expect(KnownRecorders(path: path).device(serial: "8881")?.peripheral == PeripheralID("P-9"))
  }
}
