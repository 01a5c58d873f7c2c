import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol

extension RequestChannel {
  /// Mode B's pre-handshake (PROTOCOL.md §9 steps 1–3), holding the gate: the serial
  /// signature as `FE10` (`FE20` to force a clear), the user's public key as `FE12` if the
  /// device answers `FE11`, then the device's `FE12` key material, unwrapped with the user's
  /// key. From its return every write is sealed and every notification opened (step 4); the
  /// plain HANDSHAKE then runs inside the channel.
  ///
  /// Each step waits at most `timeout` for the device's next chunk.
  ///
  /// - Throws: ``DeviceError/modeB(_:)`` (wrong key, malformed chunks, an unexpected
  ///   message, ``ModeBError/serialSignatureUnanswered(signed:)`` when the device let the
  ///   signature go unanswered), timeouts, link errors.
  func establishModeB(
    credentials: ModeBCredentials, serial: String, timeout: Duration
  ) async throws(DeviceError) {
    try await enterGate()
    defer { leaveGate() }
    let userKey: RSAPrivateKey
    do {
      userKey = try credentials.userKey()
    } catch {
      throw .modeB(error)
    }
    let signature = await credentials.serialSignature(serial)
    let opening = credentials.forceClear ? ModeB.forceClearType : ModeB.signatureType
    var reply: (type: UInt16, payload: [UInt8])
    do {
      reply = try await preHandshakeExchange(
        PreHandshakeChunk.chunks(type: opening, payload: signature), timeout: timeout)
    } catch .timeout, .disconnected(.remoteTerminated) {
      // §9: the device checks the signature against Plaud's key; silence, or the device
      // ending the link, is its refusal.
      throw .modeB(.serialSignatureUnanswered(signed: !signature.isEmpty))
    }
    if reply.type == ModeB.wantsUserKeyType {
      let publicKey: RSAPublicKey
      let pem: String
      do {
        publicKey = try userKey.publicKey()
        pem = try publicKey.pem()
      } catch {
        throw .modeB(.wrongUserKey)
      }
      await credentials.publishUserKey(publicKey)
      reply = try await preHandshakeExchange(
        PreHandshakeChunk.chunks(type: ModeB.keyMaterialType, payload: Array(pem.utf8)),
        timeout: timeout)
    }
    guard reply.type == ModeB.keyMaterialType else {
      throw .modeB(.unexpectedMessage(type: reply.type))
    }
    do {
      cipher = try SessionCipher.unwrap(reply.payload, with: userKey)
    } catch {
      throw .modeB(error)
    }
  }

  /// Writes `chunks` and returns the device's next whole message (`FE11` or `FE12`).
  private func preHandshakeExchange(_ chunks: [PreHandshakeChunk], timeout: Duration)
    async throws(DeviceError) -> (type: UInt16, payload: [UInt8])
  {
    var assembler = PreHandshakeAssembler()
    var message: (type: UInt16, payload: [UInt8])?
    var failure: PreHandshakeError?
    try await exchangeHoldingGate(
      frames: chunks.map(\.encoded), operation: "Mode B pre-handshake", timeout: timeout,
      accepts: { incoming in
        guard case .preHandshake(let chunk) = incoming else { return false }
        return chunk.type == ModeB.wantsUserKeyType || chunk.type == ModeB.keyMaterialType
      }
    ) { incoming in
      guard case .preHandshake(let chunk) = incoming else { return false }
      do throws(PreHandshakeError) {
        message = try assembler.add(chunk)
      } catch {
        failure = error
        return true
      }
      return message != nil
    }
    if let failure { throw .modeB(.malformedPreHandshake(failure)) }
    guard let message else { throw .timeout(operation: "Mode B pre-handshake") }
    return message
  }
}
