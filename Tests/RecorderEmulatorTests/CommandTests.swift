import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// Every §3.1 opcode answered as PROTOCOL.md says, byte-exact where §11 has a vector.
@Suite(.timeLimit(.minutes(5)))
struct CommandTests {
  @Test func sessionOpcodesMatchTheVectors() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()

    // Vector 4 → the device's clock follows.
    try await phone.sendRaw([0x01, 0x04, 0x00, 0xd1, 0x61, 0xd2, 0x69, 0x03, 0x00])
    guard case .timeSync(let time) = try await phone.nextMessage() else {
      Issue.record("no TIME_SYNC reply")
      return
    }
    #expect(time.unixSeconds >= 1_775_395_281 && time.unixSeconds <= 1_775_395_282)
    #expect(time.tzHours == 3)

    try await phone.send(.getState)
    #expect(
      await phone.nextValue()
        == [
          0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ])
    try await phone.send(.storage)
    #expect(
      await phone.nextValue()
        == [
          0x01, 0x06, 0x00, 0x00, 0x00, 0x86, 0x8f, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x88, 0x8f,
          0x0e, 0x00, 0x00, 0x00, 0x90, 0xab, 0xce, 0x36, 0x00, 0x00, 0x00, 0x00,
        ])
    try await phone.sendRaw([0x01, 0x08, 0x00, 0x01, 0x0f, 0x00])
    #expect(await phone.nextValue() == [0x01, 0x08, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00])
    try await phone.send(.getName)
    #expect(
      await phone.nextValue()
        == [0x01, 0x6c, 0x00] + Array("PLAUD_NOTE".utf8) + [0x00, 0x00, 0x00, 0x00])
    #expect(
      try await phone.request(.battery) == .battery(BatteryStatus(level: 100, charging: 0)))
  }

  @Test func everyOtherOpcodeIsAnswered() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    try await bench.device.addRecording(duration: .seconds(2))
    let phone = try await bench.authenticatedPhone()
    let serial = try await phone.request(.getSerial)
    #expect(
      serial
        == .serial(
          SerialResponse(serial: bench.device.serial, firmware: bench.device.configuration.firmware)
        ))
    for setting: UInt16 in [15, 17, 19, 20, 23, 24, 26, 27] {
      let reply = try await phone.request(.settings(.write(setting: setting, value: 2)))
      #expect(reply == .setting(SettingValue(setting: setting, value: 2)))
      #expect(
        try await phone.request(.settings(.read(setting: setting)))
          == .setting(SettingValue(setting: setting, value: 2)))
    }
    guard
      case .name(let renamed) = try await phone.request(
        .setName(DeviceName("Kitchen", fieldWidth: 32)))
    else {
      Issue.record("no SET_NAME reply")
      return
    }
    #expect(renamed.name == "Kitchen")
    #expect(try await phone.request(.setPrivacy(on: 1)) == .privacy(on: 1))
    #expect(try await phone.request(.setActive(1)) == .active(1))
    #expect(try await phone.request(.ping) == .pong([]))
    #expect(try await phone.request(.ledSet(on: 0)) == .ledSet(on: 0))
    #expect(try await phone.request(.ledGet) == .ledGet(on: 0))
    await bench.device.pressMarkButton()
    guard
      case .tagsPage(let tags) = try await phone.request(
        .tags(TagsRequest(requestTag: 9, from: 0, to: 0)))
    else {
      Issue.record("no TAGS reply")
      return
    }
    #expect(tags.total == 1 && tags.tags.count == 1 && tags.requestTag == 9)
    guard case .state(let state) = try await phone.request(.getState) else { return }
    #expect(state.privacy == 1)
    #expect(try await phone.request(.clearAll) == .clearAll(status: 0))
    #expect(try await bench.device.recordings().isEmpty)
    #expect(try await phone.request(.depair(clearFiles: 0)) == .depair(status: 0))

    // Unknown opcodes and malformed writes are ignored and counted, never fatal.
    try await phone.sendRaw([0x01, 0x99, 0x77, 1, 2, 3])
    try await phone.sendRaw([0x01, 0x04])
    try await phone.sendRaw([0x01, 0x04, 0x00, 0x01])
    try await phone.sendRaw([])
    try await phone.sendRaw([0xEE, 0x00])
    #expect(try await phone.request(.battery) == .battery(BatteryStatus(level: 100, charging: 0)))
    let counters = await bench.device.counters
    #expect(counters.malformedWrites == 4)
    #expect(counters.ignoredRequests == 1)
  }

  /// PROTOCOL.md §4 [sdk-code]: DEPAIR changes the device's address (the vendor rescans by
  /// serial after it). Once the link that sent it ends, the old address takes no connection
  /// and the device is heard under a new one; with the option off it keeps its address.
  @Test(arguments: [true, false])
  func depairChangesTheAddress(_ changes: Bool) async throws {
    var configuration = DeviceConfiguration(seed: 0x43_05)
    configuration.depairChangesAddress = changes
    let bench = try TestBench(configuration: configuration)
    defer { bench.cleanUp() }
    let before = await bench.device.peripheralID
    let phone = try await bench.authenticatedPhone()
    #expect(try await phone.request(.depair(clearFiles: 0)) == .depair(status: 0))
    // Still the same address while the link is up.
    #expect(await bench.device.peripheralID == before)
    await phone.link.disconnect()
    let heard = try #require(await bench.firstAdvertisement())
    #expect((heard.peripheral != before) == changes, "heard \(heard.peripheral), was \(before)")
    #expect((await bench.device.peripheralID != before) == changes)
    if changes {
      // Time passes for the connect's timeout (the bench holds it otherwise).
      let stale = await bench.letTimePass {
        try? await bench.central.connect(before, timeout: .seconds(1))
      }
      #expect(stale == nil, "the old address took a connection")
      await stale?.disconnect()
    }
    let again = try await bench.authenticatedPhone()
    await again.link.disconnect()
  }

  @Test func batteryWithChargingAndTheOneByteForm() async throws {
    let bench = try TestBench(
      configuration: DeviceConfiguration(batteryLevel: 64, charging: true))
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    #expect(try await phone.request(.battery) == .battery(BatteryStatus(level: 64, charging: 1)))
    try await phone.link.setNotifications(true, for: RecorderGATT.batteryLevel)
    await bench.device.setBattery(level: 63, charging: false)
    #expect(try await phone.request(.battery) == .battery(BatteryStatus(level: 63, charging: 0)))
    #expect(phone.batteryNotifications == [[63]])
    #expect(try await phone.link.read(RecorderGATT.batteryLevel) == [63])

    let v0095 = try TestBench(
      configuration: DeviceConfiguration(batteryReplyIncludesCharging: false))
    defer { v0095.cleanUp() }
    let old = try await v0095.authenticatedPhone()
    try await old.send(.battery)
    #expect(await old.nextValue() == [0x01, 0x09, 0x00, 0x64])
  }

  @Test func randomBytesNeverCrashTheDevice() async throws {
    let seed: UInt64 = 0xF00D
    let bench = try TestBench(seed: seed)
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    var random = SplitMix64(seed: seed)
    for _ in 0..<300 {
      let length = Int(random.next() % 60)
      var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      if !bytes.isEmpty, random.next() % 2 == 0 { bytes[0] = 0x01 }
      if bytes.count > 2, random.next() % 4 == 0 {
        bytes[1] = 0x1C
        bytes[2] = 0
      }
      // DISCONNECT_ME would end the test early; everything else goes.
      if bytes.count >= 3, bytes[0] == 0x01, bytes[1] == 0x69, bytes[2] == 0x00 { continue }
      try await phone.sendRaw(bytes)
    }
    // Drain whatever the random frames provoked, then the device still answers.
    try await phone.send(.ping)
    while true {
      if case .pong = try await phone.nextMessage() { break }
    }
    #expect(await bench.device.isConnected, "seed \(seed)")
  }
}
