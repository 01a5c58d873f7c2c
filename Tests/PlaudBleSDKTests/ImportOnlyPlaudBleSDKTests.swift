import PlaudBleSDK
import Testing

// This file imports PlaudBleSDK and nothing else of the package: the template app's uses of
// `BleAgent.shared.openLog`, `BleDevice` and `BleFile` must resolve through it alone, and the
// module-qualified names must name the same types.

/// The template app's PlaudBleSDK uses, written as it writes them; compiling is the check.
func templateUsesCompileWithPlaudBleSDKAlone() {
  BleAgent.shared.openLog(true, logBlock: { _ in }, wlogBlock: { _ in })
  let device: PlaudBleSDK.BleDevice = BleDevice(sn: "8810000000000001")
  let file: PlaudBleSDK.BleFile = BleFile("8810000000000001", 1_700_000_000, 32_000)
  let agent: PlaudBleSDK.BleAgent = BleAgent.shared
  _ = (device.rssi as Float, file.duration(), agent.isRecording, agent.sessionId)
}

@Suite("import PlaudBleSDK alone")
struct ImportOnlyPlaudBleSDKTests {
  @Test("BleAgent, BleDevice and BleFile named through PlaudBleSDK are the facade's types")
  func namesResolve() {
    #expect(ObjectIdentifier(PlaudBleSDK.BleAgent.self) == ObjectIdentifier(BleAgent.self))
    #expect(BleFile("881", 1, 16_000).duration() == 4_000)
    #expect(BleDevice(sn: "8810000000001234").wholeName == "PLAUD1234")
  }
}
