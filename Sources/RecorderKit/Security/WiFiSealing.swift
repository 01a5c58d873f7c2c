import RecorderCrypto
import RecorderProtocol

/// The Mode B key a Wi-Fi Fast Transfer session seals its PDUs with: the BLE session's key,
/// nonce and associated data ("Wi-Fi PDUs use the same scheme", PROTOCOL.md §9 step 4).
/// ``DeviceSession/wifiSessionConfiguration()`` fills it in for a Mode B device; it is
/// opaque and describes itself redacted.
package struct WiFiSealing: Sendable, CustomStringConvertible, CustomReflectable {
  let material: SessionKeyMaterial
  /// The AEAD the device's CAPABILITY bitmap named (bit 3: AES-256-GCM, else
  /// ChaCha20-Poly1305, PROTOCOL.md §3.1, §6) [sdk-code]; nil when the device pushed none.
  let cipher: AEADAlgorithm?

  init(_ material: SessionKeyMaterial, cipher: AEADAlgorithm? = nil) {
    self.material = material
    self.cipher = cipher
  }

  public var description: String { "Mode B Wi-Fi sealing (key <redacted>)" }
  public var customMirror: Mirror { Mirror(self, children: []) }
}

/// One Wi-Fi session's Mode B channel, phone side (docs/mode-b.md, "Wi-Fi"):
/// - every PDU is one binary WebSocket message holding `seal(seq u32 ‖ PDU)` under the BLE
///   session's key, nonce and associated data [sdk];
/// - the AEAD is the one the device's CAPABILITY bitmap named (bit 3 set: AES-256-GCM,
///   clear: ChaCha20-Poly1305, §3.1) [sdk-code], and only that one; when the device pushed
///   no bitmap, whichever of ``candidates`` its first PDU (its HELLO) authenticates under
///   [project: an AEAD tag tells the two apart with certainty, and the phone speaks only
///   after HELLO], fixed for the session;
/// - sequence numbers count per WebSocket connection, from ``ModeB/firstSequence`` each way
///   [project], judged by ``ModeB/sequencePolicy`` like BLE notifications.
struct WiFiPDUChannel {
  /// The AEADs a device may seal with, tried in this order on its first PDU.
  static let candidates: [AEADAlgorithm] = [.chaCha20Poly1305, .aes256GCM]

  private let material: SessionKeyMaterial
  /// Set by the first PDU that authenticates.
  private(set) var cipher: SessionCipher?

  init(_ sealing: WiFiSealing) {
    material = sealing.material
    cipher = sealing.cipher.map { SessionCipher(material: material, algorithm: $0) }
  }

  /// The PDU inside one message from the device. Before the AEAD is known, each candidate
  /// is tried and the one that authenticates is kept.
  /// - Throws: ``SecureChannelError``: the message did not authenticate, held no sequence
  ///   number, or repeated or went back on one.
  mutating func open(_ message: [UInt8]) throws(SecureChannelError) -> [UInt8] {
    if let cipher { return try cipher.open(message) }
    for algorithm in Self.candidates {
      let candidate = SessionCipher(material: material, algorithm: algorithm)
      do {
        let pdu = try candidate.open(message)
        cipher = candidate
        return pdu
      } catch .authenticationFailed {
        continue
      } catch {
        cipher = candidate
        throw error
      }
    }
    throw .authenticationFailed
  }

  /// `pdu` sealed with the next send sequence; nil while the device's AEAD is not known (the
  /// phone speaks only after HELLO).
  func seal(_ pdu: [UInt8]) -> [UInt8]? {
    cipher?.seal([pdu]).first
  }
}
