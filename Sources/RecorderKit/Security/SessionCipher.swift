import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol

/// Mode B's channel once the pre-handshake is done (PROTOCOL.md §9 step 4): every write is
/// `seal(seq u32 ‖ frame)` with a send sequence from 1, every notification opens to
/// `seq u32 ‖ frame` and is accepted only if its sequence follows the last one by
/// `ModeB/sequencePolicy`. One key, nonce and associated data for the whole session, as
/// the vendor does (a nonce reused across frames: the device's design, not ours).
///
/// Thread-safe: the sequence counters sit in one `Locked`; sealing happens inside the
/// lock so sequence numbers are handed out in the order frames are sealed.
final class SessionCipher: Sendable {
  private struct Counters {
    var nextSend = ModeB.firstSequence
    var lastReceived: UInt32?
  }

  /// The session's key, nonce and associated data (a Wi-Fi session seals with them too).
  let material: SessionKeyMaterial
  /// ChaCha20-Poly1305 over BLE [sdk]; a Wi-Fi session's may be AES-256-GCM.
  let algorithm: AEADAlgorithm
  private let policy: SequencePolicy
  private let counters = Locked(Counters())

  /// Bytes sealing adds to a frame: the 4-byte sequence number and the 16-byte tag.
  static let overhead = 4 + ChaChaPoly.tagLength

  init(
    material: SessionKeyMaterial, algorithm: AEADAlgorithm = .chaCha20Poly1305,
    policy: SequencePolicy = ModeB.sequencePolicy
  ) {
    self.material = material
    self.algorithm = algorithm
    self.policy = policy
  }

  /// Unwraps the device's `FE12` payload with the user's key and checks its box.
  /// - Throws: ``ModeBError/sessionKeyDidNotUnwrap`` when it does not unwrap or the box does
  ///   not open to `PLAUD.AI` (a changed chunk, or another user's key: one link cannot tell);
  ///   ``ModeBError/malformedKeyMaterial`` for a short plaintext.
  static func unwrap(_ wrapped: [UInt8], with userKey: RSAPrivateKey) throws(ModeBError)
    -> SessionCipher
  {
    let plaintext: [UInt8]
    do {
      plaintext = try userKey.decrypt(wrapped, padding: .pkcs1v15)
    } catch {
      throw .sessionKeyDidNotUnwrap
    }
    let material: SessionKeyMaterial
    do {
      material = try SessionKeyMaterial(decoding: plaintext)
    } catch {
      throw .malformedKeyMaterial
    }
    do {
      let check = try ChaChaPoly.open(
        material.box, key: material.key, nonce: material.nonce,
        authenticating: material.associatedData)
      guard check == ModeB.sessionKeyCheck else { throw ModeBError.sessionKeyDidNotUnwrap }
    } catch {
      throw .sessionKeyDidNotUnwrap
    }
    return SessionCipher(material: material)
  }

  /// `frames` sealed in order, each with the next send sequence.
  func seal(_ frames: [[UInt8]]) -> [[UInt8]] {
    counters.withLock { counters in
      frames.map { frame in
        let sequence = counters.nextSend
        counters.nextSend &+= 1
        // Key and nonce lengths were checked when the box opened: sealing cannot fail.
        return
          (try? algorithm.seal(
            ModeB.sequenced(sequence, frame), key: material.key, nonce: material.nonce,
            authenticating: material.associatedData)) ?? []
      }
    }
  }

  /// The frame inside one notification.
  /// - Throws: ``SecureChannelError``; the receive sequence moves only for accepted frames.
  func open(_ sealed: [UInt8]) throws(SecureChannelError) -> [UInt8] {
    let plaintext: [UInt8]
    do {
      plaintext = try algorithm.open(
        sealed, key: material.key, nonce: material.nonce,
        authenticating: material.associatedData)
    } catch {
      throw .authenticationFailed
    }
    guard let (sequence, frame) = try? ModeB.unsequenced(plaintext) else { throw .truncated }
    let refusedAfter = counters.withLock { counters -> UInt32?? in
      guard policy.accepts(sequence, after: counters.lastReceived) else {
        return .some(counters.lastReceived)
      }
      counters.lastReceived = sequence
      return .none
    }
    if let last = refusedAfter { throw .replayed(sequence: sequence, last: last) }
    return frame
  }
}
