import Foundation
import PlaudDeviceBasicSDK
import RecorderAudio
import RecorderConcurrency
import RecorderEmulator
import RecorderProtocol
import RecorderTesting
import TestSupport
import Testing

/// `bleDecodeFail`: the emulator sends only frames that decode, so this check drives an agent
/// of its own over a scripted central whose live stream carries a frame that does not.
extension MemberStatusRegistry {
  static let decode: [MemberCheck] = [
    on(.offline, callbacks, #"`optional func bleDecodeFail(start: Int)`"#) { _ in
      let id = SessionID(0x69D2_6658)
      let encoder = try DeviceOpusEncoder(channels: 1)
      var signal = SpeechLikeSignal(seed: 41)
      let good = try encoder.encode(signal.nextFrame())
      let central = ScriptedCentral { message in
        guard case .syncStart = message else { return V0095Replies.standard(message) }
        return [
          DeviceMessage.syncHead(SessionStatus(sessionId: id, status: 0)).encoded(),
          Frame.bulk(BulkFrame(sessionId: id, offset: 0, data: good)).encoded(),
          // 80 bytes of zeros at offset 80: a frame of the right size that does not decode.
          Frame.bulk(BulkFrame(sessionId: id, offset: 80, data: [UInt8](repeating: 0, count: 80)))
            .encoded(),
          Frame.bulk(.terminal(sessionId: id)).encoded(),
          DeviceMessage.syncTail(SyncTail(sessionId: id, crc: 0)).encoded(),
        ]
      }
      let clock = ManualClock()
      var configuration = PlaudSDKConfiguration(
        central: central,
        storageRoot: NSTemporaryDirectory() + "plaud-decode-\(UUID().uuidString)",
        clock: AnyClock(clock))
      configuration.domainManager = PlaudDomainManager()
      configuration.scanTimeout = .seconds(5)
      clock.startAutoAdvance()
      defer {
        clock.stopAutoAdvance()
        try? FileManager.default.removeItem(atPath: configuration.storageRoot)
      }
      let agent = PlaudDeviceAgent(configuration: configuration)
      let log = MemberStatusLog()
      agent.delegate = log
      agent.initSDK(
        userAccessToken: FacadeBench.userToken, customDomain: FacadeBench.offlineDomain)
      agent.connectBySN("8881234567890123")
      try await eventually("connected") { log.count("bleStorage") == 1 }
      agent.syncFile(sessionId: Int(id.rawValue), start: 0, end: 0)
      try await eventually("the stream's end") {
        log.count("bleDataComplete") == 1
      }
      let failed = log.all.filter { $0.hasPrefix("bleDecodeFail ") }
      try require(failed == ["bleDecodeFail 80"], "\(failed)")
      try require(log.pcmSizes.current == [640], "PCM \(log.pcmSizes.current)")
      return .answered("bleDecodeFail 80 for the frame that does not decode, PCM for the other")
    }
  ]
}
