import Foundation
import PlaudDeviceBasicSDK
import RecorderConcurrency

/// A weak reference to an app object (a delegate) that PlaudBleSDK calls on its delegate
/// queue.
///
/// `@unchecked Sendable` on the facade's contract (its `WeakReference`): the object is only
/// ever invoked on one serial queue, never concurrently, and its state is never touched;
/// `value` is written once in `init` and weak-reference loads are atomic in the Swift
/// runtime.
final class Weak<Object: AnyObject>: @unchecked Sendable {
  private(set) weak var value: Object?
  init(_ value: Object?) { self.value = value }
}

/// What PlaudBleSDK's extensions of `BleAgent` keep (an extension cannot store): the app's
/// delegates and settings, and the state the events tell. One per process, as `BleAgent`.
struct LowerState {
  static let shared = Locked(LowerState())

  var delegateObject = Weak<AnyObject>(nil)
  var glassDelegateObject = Weak<AnyObject>(nil)
  var otaDelegateObject = Weak<AnyObject>(nil)
  var bleBlock: Int2Void?
  var cmdDelegateQueue = DispatchQueue(label: "PlaudBleSDK.BleAgent.callbacks")
  var repeatCommondInterval = 0
  var nameFilter: [String] = []
  var poweredOn = false
  var charging = false
  var usbState = false
  var wifiOpen = false
  var wifiConnected = false
  var needDecode = false
  var onlyOne = false
  var settingScene = 0
  var versionType: String?
  var versionCode: Int?
  var secretPackages: [Data] = []
  var secretIndex = 0
  var secretCount = 0
  var chacha20Key: Data?
  var chacha20Nonce: Data?
  var chacha20AD: Data?
  var wifiUseAes = false
  var globalSendSeq = 0
  var globalReceiveSeq = 0
  var lastError: PlaudSDKError?

  var delegate: (any BleAgentProtocol)? { delegateObject.value as? any BleAgentProtocol }
  var glassDelegate: (any GlassProtocol)? { glassDelegateObject.value as? any GlassProtocol }
  var otaDelegate: (any OtaProtocol)? { otaDelegateObject.value as? any OtaProtocol }
}
