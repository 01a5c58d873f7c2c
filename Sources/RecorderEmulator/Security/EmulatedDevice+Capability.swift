import RecorderCrypto
import RecorderProtocol

// CAPABILITY `008A` on the device (PROTOCOL.md §3.1) [sdk-code]: a Mode B device pushes its
// bitmap, whose bit 3 names the AEAD of its Wi-Fi PDUs, and the host answers `FF`.
extension EmulatedDevice {
  /// The bitmap this device pushes: bit 3 set when it seals Wi-Fi PDUs with AES-256-GCM.
  var capabilityBitmap: CapabilityBitmap {
    CapabilityBitmap(wifiAESGCM: configuration.modeB.wifiCipher == .aes256GCM)
  }

  /// Pushes the bitmap after a successful HANDSHAKE, on a Mode B device that does
  /// (``ModeBParameters/pushesCapability``) [project: the moment is not known].
  func pushCapability(readyAt: Duration) {
    guard speaksModeB, configuration.modeB.pushesCapability else { return }
    counterValues.capabilityPushes += 1
    reply(.capability(capabilityBitmap), readyAt: readyAt)
  }

  /// The host's answer: `FF` is the vendor SDK's [sdk-code]; anything else is counted apart.
  func hostAnsweredCapability(_ bitmap: UInt8) {
    if bitmap == CapabilityBitmap.hostAnswer {
      counterValues.capabilityAnswers += 1
    } else {
      counterValues.capabilityWrongAnswers += 1
    }
  }
}
