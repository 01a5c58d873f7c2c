import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderKit
import Testing

/// iBeacon frames heard on the air and the beacon identities an app configures: what parses,
/// what is refused, and that nothing traps on garbage.
@Suite("Beacon frames and identities")
struct BeaconIdentityTests {
  static let uuidText = "6E4F0000-0000-4000-8000-00000000B1E0"
  static let frame: [UInt8] =
    [0x4C, 0x00, 0x02, 0x15]
    + [0x6E, 0x4F, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0xB1, 0xE0]
    + [0x01, 0x02, 0x03, 0x04, 0xC5]

  @Test("an iBeacon frame parses and writes back the same bytes")
  func frameRoundTrip() throws {
    let beacon = try #require(IBeacon(manufacturerData: Self.frame))
    #expect(beacon.uuid.uuidString == Self.uuidText)
    #expect(beacon.major == 0x0102)
    #expect(beacon.minor == 0x0304)
    #expect(beacon.measuredPower == -59)
    #expect(beacon.manufacturerData == Self.frame)
  }

  @Test(
    "not an iBeacon: another company, another Apple frame type, a length off by one",
    arguments: [
      [0x59, 0x00] + Self.frame.dropFirst(2),  // Nordic's company id
      [0x4C, 0x00, 0x10, 0x15] + Self.frame.dropFirst(4),  // Apple "nearby", not a beacon
      [0x4C, 0x00, 0x02, 0x14] + Self.frame.dropFirst(4),  // a wrong length byte
      Array(Self.frame.dropLast()), Self.frame + [0], [], [0x4C],
    ] as [[UInt8]])
  func notABeacon(bytes: [UInt8]) {
    #expect(IBeacon(manufacturerData: bytes) == nil)
  }

  @Test("random manufacturer data never traps and is a beacon only with the prefix")
  func randomBytes() {
    let seed: UInt64 = 0xBEAC_0001
    var random = SplitMix64(seed: seed)
    for _ in 0..<2000 {
      let count = Int(random.next() % 32)
      var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      if random.next() % 2 == 0, bytes.count >= 4 {
        bytes.replaceSubrange(0..<4, with: [0x4C, 0, 2, 0x15])
      }
      let beacon = IBeacon(manufacturerData: bytes)
      let expected = bytes.count == 25 && Array(bytes.prefix(4)) == [0x4C, 0, 2, 0x15]
      #expect((beacon != nil) == expected, "seed \(seed): \(bytes)")
    }
  }

  @Test(
    "UUID text: canonical form only",
    arguments: [
      "6E4F0000-0000-4000-8000-00000000B1E", "6E4F0000-0000-4000-8000-00000000B1E00",
      "6E4F00000000-4000-8000-00000000B1E0", "6E4F0000-0000-4000-8000-00000000B1EG",
      "6E4F0000-0000-4000-8000-00000000B1Eé", "６E4F000-0000-4000-8000-00000000B1E0",
      "{6E4F0000-0000-4000-8000-00000000B1E0}", "", "-----",
    ])
  func malformedUUIDText(text: String) {
    #expect(BluetoothUUID(string: text) == nil)
  }

  @Test("identities parse UUID[:major[:minor]] and match beacons by what they name")
  func identities() throws {
    let any = try BeaconIdentity(parsing: Self.uuidText.lowercased())
    let major = try BeaconIdentity(parsing: Self.uuidText + ":258")
    let exact = try BeaconIdentity(parsing: Self.uuidText + ":258:772")
    let other = try BeaconIdentity(parsing: Self.uuidText + ":258:773")
    let beacon = try #require(IBeacon(manufacturerData: Self.frame))
    #expect(any.matches(beacon) && major.matches(beacon) && exact.matches(beacon))
    #expect(!other.matches(beacon))
    #expect(exact.description == Self.uuidText + ":258:772")
    #expect(try BeaconIdentity(parsing: exact.description) == exact)
    #expect(BeaconIdentity(exactly: beacon) == exact)
    #expect(BeaconIdentity(uuid: beacon.uuid) == any)
    #expect(BeaconRegionMirror(identifier: "r", uuid: Self.uuidText, minor: 1).identity == nil)
  }

  @Test(
    "malformed identities are typed errors",
    arguments: [
      "nonsense", ":1", Self.uuidText + ":", Self.uuidText + ":65536", Self.uuidText + ":-1",
      Self.uuidText + ":+1", Self.uuidText + ": 1", Self.uuidText + ":1:2:3",
      Self.uuidText + ":１", Self.uuidText + ":000001",
    ])
  func malformedIdentity(text: String) {
    #expect(throws: BeaconIdentityError.self) { try BeaconIdentity(parsing: text) }
  }

  @Test("Info.plist identities: a shared one and one per serial; other shapes are refused")
  func propertyList() throws {
    let identities = try BeaconIdentities(
      propertyList: [
        "shared": Self.uuidText,
        "serials": ["8881000000000001": Self.uuidText + ":1:2"],
      ] as [String: Any])
    #expect(identities.identity(for: "8881000000000001")?.minor == 2)
    #expect(identities.identity(for: "8881000000000002")?.major == nil)
    #expect(identities.identity(for: "8881000000000002") != nil)
    #expect(try BeaconIdentities(propertyList: [String: Any]()) == .none)
    #expect(BeaconIdentities.none.identity(for: "8881000000000001") == nil)

    let tooMany = Dictionary(
      uniqueKeysWithValues: (0...BeaconIdentities.maximumEntries).map { ("\($0)", Self.uuidText) })
    let refused: [Any] = [
      "not a dictionary", ["shared": 1] as [String: Any], ["Shared": Self.uuidText],
      ["serials": [Self.uuidText]] as [String: Any], ["serials": ["": Self.uuidText]],
      ["serials": [String(repeating: "8", count: 65): Self.uuidText]],
      ["serials": ["8881": 7]] as [String: Any], ["serials": ["8881": "x"]],
      ["serials": tooMany],
    ]
    for list in refused {
      #expect(throws: BeaconIdentityError.self, "\(list)") {
        try BeaconIdentities(propertyList: list)
      }
    }
  }
}
