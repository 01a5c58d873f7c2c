import RecorderBluetooth
import RecorderCrypto
import RecorderProtocol

// Mode B on the device (PROTOCOL.md §9): the pre-handshake, then sealing every
// notification and opening every write of the connection.
extension EmulatedDevice {
  /// True for a portVersion ≥ 20 device.
  var speaksModeB: Bool { portVersion >= ProtocolDefaults.modeBPortVersion }

  /// The user public key the device holds now (nil: it will ask with `FE11`).
  public var modeBUserKey: RSAPublicKey? { userKey }

  /// A write before the channel is open: pre-handshake chunks only.
  func handlePreHandshakeWrite(_ value: [UInt8], at instant: Duration) {
    let frame = try? Frame(decoding: value, portVersion: portVersion)
    guard case .preHandshake(let chunk)? = frame else {
      if case .control(let control)? = frame, control.opcode == .handshake {
        counterValues.clearHandshakes += 1
      }
      counterValues.ignoredRequests += 1
      return
    }
    let message: (type: UInt16, payload: [UInt8])?
    do {
      message = try connection?.preHandshake.add(chunk)
    } catch {
      counterValues.malformedWrites += 1
      return
    }
    guard let message else { return }
    let readyAt = instant + faults.processingDelay + configuration.modeB.replyDelay
    extendAuthentication(from: readyAt)
    switch message.type {
    case ModeB.signatureType, ModeB.forceClearType:
      // Checked only when the device was given the cloud's signature
      // (``ModeBParameters/requiredSerialSignature``); a wrong one gets no answer.
      if let required = configuration.modeB.requiredSerialSignature, message.payload != required {
        counterValues.refusedSerialSignatures += 1
        return
      }
      if message.type == ModeB.forceClearType { userKey = nil }
      if let userKey {
        sendSessionKey(wrappedFor: userKey, readyAt: readyAt)
      } else {
        notifyPlain(
          PreHandshakeChunk.chunks(
            type: ModeB.wantsUserKeyType, payload: [],
            indexBase: configuration.modeB.chunkIndexBase),
          readyAt: readyAt)
        awaitKeyExchangeAnswer()
      }
    case ModeB.keyMaterialType:
      guard let key = try? RSAPublicKey(pem: String(decoding: message.payload, as: UTF8.self))
      else {
        counterValues.malformedWrites += 1
        return
      }
      userKey = key
      sendSessionKey(wrappedFor: key, readyAt: readyAt)
    default:
      counterValues.ignoredRequests += 1
    }
  }

  /// §9 step 3: a fresh session key, wrapped for `userKey`, as `FE12` chunks; the channel
  /// is open from here on (the chunks themselves go out plain).
  private func sendSessionKey(wrappedFor userKey: RSAPublicKey, readyAt: Duration) {
    guard let channel = try? DeviceChannel.random(),
      let wrapped = try? userKey.encrypt(channel.material().encoded, padding: .pkcs1v15)
    else {
      counterValues.malformedWrites += 1
      return
    }
    var chunks = PreHandshakeChunk.chunks(
      type: ModeB.keyMaterialType, payload: wrapped,
      indexBase: configuration.modeB.chunkIndexBase,
      maximumData: configuration.modeB.maximumChunkData)
    if let tampered = faults.tamperKeyMaterialChunk, chunks.indices.contains(tampered),
      !chunks[tampered].chunk.isEmpty
    {
      faults.tamperKeyMaterialChunk = nil
      chunks[tampered].chunk[chunks[tampered].chunk.count / 2] ^= 0x20
    }
    notifyPlain(chunks, readyAt: readyAt)
    awaitKeyExchangeAnswer()
    connection?.channel = channel
  }

  private func notifyPlain(_ chunks: [PreHandshakeChunk], readyAt: Duration) {
    guard connection != nil else { return }
    for chunk in chunks {
      connection?.outgoing.append(
        Connection.Outgoing(
          characteristic: RecorderGATT.notifyCharacteristic, value: chunk.encoded,
          readyAt: readyAt, plain: true))
    }
    markBusy()
  }

  /// A sealed write opened, or nil (refused and counted).
  func openSealedWrite(_ value: [UInt8]) -> [UInt8]? {
    guard var channel = connection?.channel else { return nil }
    do {
      let frame = try channel.open(value, policy: configuration.modeB.sequencePolicy)
      connection?.channel = channel
      return frame
    } catch {
      counterValues.refusedSealedWrites += 1
      return nil
    }
  }
}

extension EmulatedDevice {
  /// The central must now answer a key exchange message (its RSA work takes real time and no
  /// simulated time): the link holds a manual clock until its next write.
  fileprivate func awaitKeyExchangeAnswer() {
    guard let id = connection?.id else { return }
    awaitCentralWrite(id, .emulatorKeyExchange)
  }
}
