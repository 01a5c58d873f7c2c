import Testing

@testable import RecorderProtocol

/// Issue 43: GET_STATE's recording reading (PROTOCOL.md §3.1): recording iff `state` is 4099,
/// otherwise by `keyState` (0 idle, 1 record, 2 transfer, 3 switch-on, 4 switch-off)
/// [sdk-code]; this project's earlier 2 / 3 still read as recording / paused [project].
@Suite("GET_STATE recording reading")
struct DeviceStateReadingTests {
  @Test("§11 vector 20: `01 03 00 03 10 00 00 00` is state 4099, recording, privacy 0")
  func vector20() throws {
    let frame = try Frame(
      decoding: [0x01, 0x03, 0x00, 0x03, 0x10, 0x00, 0x00, 0x00], portVersion: 20)
    guard case .control(let control) = frame,
      case .state(let state) = try DeviceMessage(control, portVersion: 20)
    else {
      Issue.record("not a GET_STATE reply: \(frame.kindName)")
      return
    }
    #expect(state == DeviceState(state: 4099, privacy: 0))
    #expect(state.isRecording && state.hasRecordingInProgress)
    #expect(state.key == nil)
    #expect(
      DeviceMessage.state(state).encoded(portVersion: 20)
        == [0x01, 0x03, 0x00, 0x03, 0x10, 0x00, 0x00, 0x00])
  }

  @Test("keyState's meanings; recording by state 4099, by keyState 1, or by the earlier 2")
  func readings() {
    #expect(KeyState.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
    #expect(
      KeyState.allCases.map(\.description) == [
        "idle", "record", "transfer", "switch-on", "switch-off",
      ])
    // §11 vector 5, the captured idle V0095: state 1, keyState 4.
    let idle = DeviceState(state: 1, privacy: 0, keyState: 4, usb: 0, scene: 0, sessionId: 0)
    #expect(idle.key == .switchOff && !idle.isRecording && !idle.hasRecordingInProgress)
    #expect(DeviceState(state: 1, privacy: 0, keyState: 1).isRecording)
    #expect(DeviceState(state: 2, privacy: 0).isRecording)
    let paused = DeviceState(state: 3, privacy: 0, keyState: 0)
    #expect(!paused.isRecording && paused.hasRecordingInProgress)
    // An unknown keyState byte is no meaning, never a crash.
    let odd = DeviceState(state: 1, privacy: 0, keyState: 0xEE)
    #expect(odd.key == nil && !odd.isRecording)
  }
}
