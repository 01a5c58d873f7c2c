import Foundation
import RecorderBluetooth
import RecorderEmulator
import RecorderProtocol
import TestSupport
import Testing

/// Each fault of `FaultPlan`, and the device-level ones (reboot, range).
@Suite(.timeLimit(.minutes(5)))
struct FaultTests {
  @Test func dropTheLinkAtNotifiedByteN() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(20))
    let phone = try await bench.authenticatedPhone()
    await bench.device.setFaults(FaultPlan(dropLinkAfterNotifiedBytes: 5_000))
    var received = 0
    while let value = await phone.nextValueAfterSending(
      received == 0 ? .syncStart(SyncStartRequest(sessionId: info.sessionId)) : nil)
    {
      received += value.count
    }
    #expect(phone.disconnectReason == .linkLoss)
    #expect(received <= 5_000 && received > 5_000 - 90)
    #expect(await bench.device.faultPlan.dropLinkAfterNotifiedBytes == nil)
  }

  @Test func dropTheLinkAtVirtualTime() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    let at = bench.clock.elapsed + .seconds(3)
    await bench.device.setFaults(FaultPlan(dropLinkAt: at))
    let event = await bench.letTimePass { await phone.nextEvent() }
    #expect(event == .disconnected(.linkLoss))
    #expect(bench.clock.elapsed >= at && bench.clock.elapsed < at + .milliseconds(20))
  }

  @Test func corruptDuplicateAndDropDataFrames() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(2))
    let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: info.path)))
    let phone = try await bench.authenticatedPhone()

    await bench.device.setFaults(FaultPlan(corruptDataFrame: 7))
    let corrupted = try await phone.sync(SyncStartRequest(sessionId: info.sessionId))
    #expect(corrupted.bytes.count == file.count)
    let differing = corrupted.dataFrames.filter {
      Array(file[Int($0.offset)..<Int($0.offset) + 80]) != $0.data
    }
    #expect(differing.map(\.offset) == [7 * 80])
    #expect(corrupted.tail?.crc == CRC16.checksum(file))
    #expect(CRC16.checksum(corrupted.bytes) != CRC16.checksum(file))

    await bench.device.setFaults(FaultPlan(duplicateDataFrame: 3))
    let duplicated = try await phone.sync(SyncStartRequest(sessionId: info.sessionId))
    #expect(
      duplicated.dataFrames.map(\.offset) == [0, 80, 160, 240, 240]
        + (4..<100).map { UInt32($0 * 80) })

    await bench.device.setFaults(FaultPlan(dropDataFrame: 10))
    let dropped = try await phone.sync(SyncStartRequest(sessionId: info.sessionId))
    #expect(dropped.dataFrames.count == 99)
    #expect(!dropped.dataFrames.contains { $0.offset == 800 })
    #expect(dropped.tail?.crc == CRC16.checksum(file))
  }

  @Test func flashFull() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    _ = try await phone.request(.recordStart(RecordCommand()))
    try await bench.sleep(for: .seconds(1))
    await bench.device.setFaults(FaultPlan(flashFull: true))
    guard case .recordStopped(let stopped) = try await phone.nextMessage() else {
      Issue.record("no REC_STOP when the flash filled")
      return
    }
    #expect(stopped.reason == RecordingStopReason.flashFull)
    guard case .storage(let storage) = try await phone.request(.storage) else { return }
    #expect(storage.freeBytes == 0 && storage.remaining == 0)
    guard case .recordStarted(let refused) = try await phone.request(.recordStart(RecordCommand()))
    else { return }
    #expect(refused.status != 0)

    // A genuinely small flash fills up by itself.
    let small = try TestBench(
      configuration: DeviceConfiguration(flashCapacity: 131_072 + 8_000))
    defer { small.cleanUp() }
    let other = try await small.authenticatedPhone()
    _ = try await other.request(.recordStart(RecordCommand()))
    guard
      case .recordStopped(let full) = try await small.letTimePass({ try await other.nextMessage() })
    else { return }
    #expect(full.reason == RecordingStopReason.flashFull && full.fileSize == 8_000)
  }

  @Test func slowDeviceAnswersLate() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    await bench.device.setFaults(FaultPlan(processingDelay: .seconds(3)))
    let sent = bench.clock.elapsed
    _ = try await phone.request(.battery)
    let took = bench.clock.elapsed - sent
    #expect(took >= .seconds(3) && took < .seconds(3) + .milliseconds(50))
  }

  @Test func rebootRotatesTheAddressAndKeepsTheFlash() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(1))
    let phone = try await bench.authenticatedPhone()
    let before = phone.link.peripheral
    _ = try await phone.request(.recordStart(RecordCommand()))
    try await bench.sleep(for: .seconds(2))
    await bench.device.reboot()
    #expect(await phone.nextValue() == nil)
    #expect(phone.disconnectReason == .linkLoss)

    let advertisement = try #require(await bench.firstAdvertisement())
    #expect(advertisement.peripheral != before)
    let payload = try ManufacturerPayload(manufacturerData: advertisement.manufacturerData ?? [])
    #expect(payload.serial == bench.device.serial)
    await #expect(throws: LinkError.connectTimeout) {
      try await bench.letTimePass {
        _ = try await bench.central.connect(before, timeout: .seconds(1))
      }
    }
    let again = try await bench.authenticatedPhone()
    guard case .listPage(let page) = try await again.request(.list(ListRequest(requestTag: 1)))
    else { return }
    #expect(page.entries.count == 2)
    #expect(page.entries.first?.sessionId == info.sessionId)
    #expect(page.entries.allSatisfy { $0.attribute == 0 })  // the recording stopped
    guard case .state(let state) = try await again.request(.getState) else { return }
    #expect(state.state == 1)
  }

  @Test func outOfRangeAndBack() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let phone = try await bench.authenticatedPhone()
    let address = phone.link.peripheral
    await bench.device.goOutOfRange()
    #expect(await phone.nextValue() == nil)
    #expect(phone.disconnectReason == .linkLoss)
    #expect(await bench.device.currentAdvertisement == nil)
    await #expect(throws: LinkError.connectTimeout) {
      try await bench.letTimePass {
        _ = try await bench.central.connect(address, timeout: .seconds(2))
      }
    }
    await bench.device.comeBackInRange()
    let advertisement = try #require(await bench.firstAdvertisement())
    #expect(advertisement.peripheral == address)
    _ = try await bench.authenticatedPhone()
  }

  @Test func syncCannotWorkBelowMTU93() async throws {
    let bench = try TestBench()
    defer { bench.cleanUp() }
    let info = try await bench.device.addRecording(duration: .seconds(1))
    let phone = try await bench.authenticatedPhone(mtu: 64)
    let result = try await phone.sync(SyncStartRequest(sessionId: info.sessionId))
    #expect(result.head?.status == 0)
    #expect(result.dataFrames.isEmpty)
    #expect(result.terminal != nil)
    #expect(await bench.device.counters.oversizeFramesRefused == 50)
  }
}

extension Phone {
  /// Sends `message` first when given, then returns the next vendor notification.
  func nextValueAfterSending(_ message: PhoneMessage?) async -> [UInt8]? {
    if let message { try? await send(message) }
    return await nextValue()
  }
}
