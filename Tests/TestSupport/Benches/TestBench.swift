import Foundation
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderProtocol

/// One emulated device on a manual clock, its in-process central and a temporary flash
/// directory.
///
/// Time: the test (the phone) holds the clock still while it works, so the auto-advance
/// driver never jumps past a device timeout just because the test task was slow to be
/// scheduled (tests run in parallel). The link model moves time itself while it carries
/// traffic; where a test wants idle time to pass (a timeout, a recording growing) it says so
/// with ``letTimePass(_:)`` or ``sleep(for:)``.
package struct TestBench {
  package let clock: ManualClock
  package let device: EmulatedDevice
  package let central: EmulatorCentral
  package let directory: String
  package let seed: UInt64
  private let hold: Locked<ManualClock.WorkToken?>

  package init(
    seed: UInt64 = 1, configuration: DeviceConfiguration? = nil, autoAdvance: Bool = true
  ) throws {
    self.seed = seed
    clock = ManualClock()
    directory = NSTemporaryDirectory() + "recorder-emulator-tests-\(UUID().uuidString)"
    let configuration = configuration ?? DeviceConfiguration(seed: seed)
    device = try EmulatedDevice(
      configuration: configuration, flashDirectory: directory, time: .manual(clock))
    central = EmulatorCentral(device: device)
    hold = Locked(clock.beginWork())
    if autoAdvance { clock.startAutoAdvance() }
  }

  /// Runs `body` with the clock free to auto-advance through idle time.
  package func letTimePass<T>(_ body: () async throws -> T) async rethrows -> T {
    hold.withLock { token in
      token?.end()
      token = nil
    }
    defer { hold.withLock { $0 = clock.beginWork() } }
    return try await body()
  }

  /// Moves virtual time forward by `duration` at once (firing every timer on the way, in
  /// order). Not through auto-advance: that could run on to a far timer (a recording's
  /// 5-hour limit) before the test takes its hold back.
  package func sleep(for duration: Duration) async throws {
    clock.advance(by: duration)
    await Task.yield()
  }

  package func cleanUp() {
    hold.withLock { token in
      token?.end()
      token = nil
    }
    clock.stopAutoAdvance()
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// The first advertisement heard.
  package func firstAdvertisement() async -> Advertisement? {
    for await advertisement in central.scan(services: [RecorderGATT.service]) {
      return advertisement
    }
    return nil
  }

  /// Scans, connects, asks for `mtu`, subscribes: the §4 steps before HANDSHAKE.
  package func connectPhone(mtu: Int = ModelCapabilities.requestedMTU(for: nil)) async throws
    -> Phone
  {
    guard let advertisement = await firstAdvertisement() else { throw TestFailure("no advert") }
    let link = try await central.connect(advertisement.peripheral, timeout: .seconds(10))
    _ = try await link.requestMTU(mtu)
    try await link.setNotifications(true, for: RecorderGATT.notifyCharacteristic)
    return Phone(link: link, portVersion: device.configuration.portVersion)
  }

  /// Connected and authenticated with the right token.
  package func authenticatedPhone(mtu: Int = ModelCapabilities.requestedMTU(for: nil)) async throws
    -> Phone
  {
    let phone = try await connectPhone(mtu: mtu)
    let reply = try await phone.request(
      .handshake(HandshakeRequest(token: device.configuration.token)))
    guard case .handshake(let response) = reply, response.status == 0 else {
      throw TestFailure("handshake failed: \(reply)")
    }
    return phone
  }
}

package struct TestFailure: Error, CustomStringConvertible {
  package let description: String
  package init(_ description: String) { self.description = description }
}

/// The phone side of the protocol, as raw frames: encodes `PhoneMessage`, decodes what the
/// device notifies. Used from one test task only.
package final class Phone {
  package let link: any PeripheralLink
  package let portVersion: UInt16
  private var iterator: BackpressureStream<LinkEvent>.Iterator
  /// Set when the link's events ended.
  package private(set) var disconnectReason: DisconnectReason?
  /// Battery notifications seen while waiting for vendor frames.
  package private(set) var batteryNotifications: [[UInt8]] = []

  package init(link: any PeripheralLink, portVersion: UInt16) {
    self.link = link
    self.portVersion = portVersion
    iterator = link.events.makeAsyncIterator()
  }

  package func send(_ message: PhoneMessage) async throws {
    try await sendRaw(message.encoded(portVersion: portVersion))
  }

  package func sendRaw(_ bytes: [UInt8]) async throws {
    try await link.write(bytes, to: RecorderGATT.writeCharacteristic, type: .withoutResponse)
  }

  /// The next raw link event.
  package func nextEvent() async -> LinkEvent? {
    let event = await iterator.next()
    if case .disconnected(let reason) = event { disconnectReason = reason }
    return event
  }

  /// The next vendor notification's bytes; nil when the link ended.
  package func nextValue() async -> [UInt8]? {
    while let event = await nextEvent() {
      switch event {
      case .notification(let characteristic, let value):
        if characteristic == RecorderGATT.notifyCharacteristic { return value }
        batteryNotifications.append(value)
      case .disconnected: return nil
      case .readyToSendWriteWithoutResponse, .bondStateChanged: continue
      }
    }
    return nil
  }

  /// The next vendor frame, decoded.
  package func nextFrame() async throws -> Frame {
    guard let value = await nextValue() else {
      throw TestFailure("link ended: \(String(describing: disconnectReason))")
    }
    return try Frame(decoding: value, portVersion: portVersion)
  }

  /// The next control message from the device.
  package func nextMessage() async throws -> DeviceMessage {
    while true {
      let frame = try await nextFrame()
      if case .control(let control) = frame {
        return try DeviceMessage(control, portVersion: portVersion)
      }
    }
  }

  package func request(_ message: PhoneMessage) async throws -> DeviceMessage {
    try await send(message)
    return try await nextMessage()
  }

  /// Events left after a local disconnect (the device must have said nothing).
  package func disconnectAndDrain() async -> [LinkEvent] {
    await link.disconnect()
    var rest: [LinkEvent] = []
    while let event = await nextEvent() { rest.append(event) }
    return rest
  }
}
