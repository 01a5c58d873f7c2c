import Foundation
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import Testing

/// Binding and firmware hang off the front door.
struct FrontDoorCloudTests {
  @Test("the door binds: the handshake with the user's token, then the cloud; unbind undoes both")
  func bindThroughTheDoor() async throws {
    let cloud = try CloudClientTests.Bench()
    defer { cloud.cleanUp() }
    let client = try cloud.client()
    var configuration = DeviceConfiguration(seed: 46)
    configuration.token = cloud.user.deviceToken
    let directory = NSTemporaryDirectory() + "door-bind-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let device = try EmulatedDevice(
      configuration: configuration, flashDirectory: directory, time: .manual(cloud.clock))
    // The door's own token is not the device's: binding uses the user's.
    var session = DeviceSession.Configuration(token: try #require(DeviceToken("not-the-users")))
    session.clock = AnyClock(cloud.clock)
    let recorders = Recorders(
      radio: .shared(EmulatorCentral(device: device)), configuration: .init(session: session))

    let bound = try await recorders.connectAndBind(serial: device.serial, cloud: client)
    #expect(bound.isBound, "\(String(describing: bound.cloudError))")
    #expect(cloud.cloud.binding(of: device.serial) == "4f1c-22aa-9d03")
    try await recorders.unbindAndDepair(bound.connection, cloud: client)
    #expect(cloud.cloud.binding(of: device.serial) == nil)
    await #expect(throws: DeviceError.tokenRejected) {
      _ = try await recorders.connect(serial: device.serial)
    }
  }
}
