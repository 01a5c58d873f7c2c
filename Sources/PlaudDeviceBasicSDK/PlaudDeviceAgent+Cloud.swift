import Foundation
import RecorderKit

/// Credentials and the vendor's SDK-resource calls. What our sources know is done over
/// RecorderKit; what they do not is refused through the member's own callback with a
/// reason that says "not supported by RecorderKit".
extension PlaudDeviceAgent {
  /// RecorderKit addition: the domain manager this agent's cloud requests read
  /// (``PlaudSDKConfiguration/domainManager``; ``PlaudDomainManager/shared`` by default).
  public var domainManager: PlaudDomainManager { core.domains }

  /// Forgets the user access token and the handshake token, as `setUserAccessToken(nil)`
  /// does: cloud requests and connects then fail with ``PlaudSDKError/noUserToken``. The
  /// Mode B user keys stay in the key store (recordings encrypted to them stay readable).
  public func clearSDKCredentials() { setUserAccessToken(nil) }

  /// Not supported by RecorderKit: the vendor sends an API token to the device over BLE, but
  /// no source of ours says how (command, framing, answer). `callback` gets `false` and the
  /// reason on the callback queue; nothing is sent.
  public func sendApiToken(token: String, callback: @escaping (Bool, String) -> Void) {
    let closure = AppClosure<(Bool, String)>(callback)
    let error = PlaudSDKError.notSupported(
      member: "sendApiToken", reason: "the device command that carries an API token is unknown")
    core.fail(error)
    let reason = error.description
    callbackQueue.async { closure.body((false, reason)) }
  }

  /// Not supported by RecorderKit: the vendor checks its resource bundle
  /// (`PlaudDeviceBasicSDK.bundle`), which this SDK does not have. Answers
  /// `onSdkCheckResourceResult(pass: false, tips:)` with the reason (also in ``lastError``).
  public func checkSdkResource() {
    let error = PlaudSDKError.notSupported(
      member: "checkSdkResource", reason: "this SDK ships no resource bundle to check")
    core.fail(error)
    let reason = error.description
    enqueue { core in core.emit { $0.onSdkCheckResourceResult(pass: false, tips: reason) } }
  }
}
