import RecorderProtocol
import Testing

/// Mode B's pre-handshake framing (PROTOCOL.md §9): chunking, reassembly with either index
/// base, and the typed errors for every broken rule.
@Suite struct ModeBFramingTests {
  @Test("§11 vector 15 assembles: count 1, index 0")
  func vector15() throws {
    guard case .preHandshake(let chunk) = try Frame(decoding: [0x12, 0xFE, 0x01, 0x00, 0xAA, 0xBB])
    else {
      Issue.record("not a prehandshake frame")
      return
    }
    var assembler = PreHandshakeAssembler()
    let message = try assembler.add(chunk)
    #expect(message?.type == 0xFE12)
    #expect(message?.payload == [0xAA, 0xBB])
  }

  @Test(
    "split then joined in any order with either index base gives the payload back",
    arguments: ChunkIndexBase.allCases)
  func roundTrip(base: ChunkIndexBase) throws {
    let payload = (0..<451).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let chunks = PreHandshakeChunk.chunks(type: 0xFE12, payload: payload, indexBase: base)
    #expect(chunks.count == 5)
    #expect(chunks.allSatisfy { $0.chunk.count <= PreHandshakeChunk.maximumChunkLength })
    #expect(chunks.first?.index == base.rawValue)
    var assembler = PreHandshakeAssembler()
    var result: (type: UInt16, payload: [UInt8])?
    for chunk in [chunks[3], chunks[0], chunks[4], chunks[2], chunks[1]] {
      #expect(result == nil)
      result = try assembler.add(Frame.preHandshake(chunk).encoded().decodedChunk())
    }
    #expect(result?.payload == payload)
    #expect(!assembler.isPartial)
  }

  @Test("an empty payload is one empty chunk")
  func emptyPayload() throws {
    let chunks = PreHandshakeChunk.chunks(type: ModeB.wantsUserKeyType, payload: [])
    #expect(chunks == [PreHandshakeChunk(type: 0xFE11, count: 1, index: 0, chunk: [])])
    var assembler = PreHandshakeAssembler()
    #expect(try assembler.add(chunks[0])?.payload == [])
  }

  @Test("broken chunks are typed errors, and the partial message is dropped")
  func brokenChunks() throws {
    var assembler = PreHandshakeAssembler()
    #expect(throws: PreHandshakeError.zeroCount) {
      try assembler.add(PreHandshakeChunk(type: 0xFE12, count: 0, index: 0, chunk: []))
    }
    #expect(throws: PreHandshakeError.indexOutOfRange(index: 4, count: 3)) {
      try assembler.add(PreHandshakeChunk(type: 0xFE12, count: 3, index: 4, chunk: []))
    }
    _ = try assembler.add(PreHandshakeChunk(type: 0xFE12, count: 3, index: 1, chunk: [1]))
    #expect(throws: PreHandshakeError.duplicateIndex(1)) {
      try assembler.add(PreHandshakeChunk(type: 0xFE12, count: 3, index: 1, chunk: [1]))
    }
    #expect(!assembler.isPartial)
    _ = try assembler.add(PreHandshakeChunk(type: 0xFE12, count: 3, index: 1, chunk: [1]))
    #expect(throws: PreHandshakeError.interleaved(expected: 0xFE12, got: 0xFE11)) {
      try assembler.add(PreHandshakeChunk(type: 0xFE11, count: 3, index: 2, chunk: [1]))
    }
    // 0, 1 and 3 of 3: neither base.
    _ = try assembler.add(PreHandshakeChunk(type: 0xFE12, count: 3, index: 0, chunk: [1]))
    _ = try assembler.add(PreHandshakeChunk(type: 0xFE12, count: 3, index: 3, chunk: [1]))
    #expect(throws: PreHandshakeError.indicesNotContiguous) {
      try assembler.add(PreHandshakeChunk(type: 0xFE12, count: 3, index: 1, chunk: [1]))
    }
  }

  @Test("sequence policies: strict wants +1 from 1; increasing allows gaps; neither a repeat")
  func sequencePolicies() {
    #expect(SequencePolicy.strict.accepts(1, after: nil))
    #expect(!SequencePolicy.strict.accepts(2, after: nil))
    #expect(SequencePolicy.strict.accepts(8, after: 7))
    #expect(!SequencePolicy.strict.accepts(9, after: 7))
    #expect(SequencePolicy.increasing.accepts(9, after: 7))
    for policy in SequencePolicy.allCases {
      #expect(!policy.accepts(7, after: 7))
      #expect(!policy.accepts(6, after: 7))
      #expect(!policy.accepts(0, after: nil))
    }
  }

  @Test("sealed plaintext is seq u32 little-endian then the frame; key material layout")
  func layouts() throws {
    #expect(ModeB.sequenced(0x0403_0201, [0xAA]) == [1, 2, 3, 4, 0xAA])
    #expect(try ModeB.unsequenced([1, 0, 0, 0]).sequence == 1)
    #expect(throws: FrameError.self) { try ModeB.unsequenced([1, 0, 0]) }
    let material = SessionKeyMaterial(
      key: Array(repeating: 1, count: 32), nonce: Array(repeating: 2, count: 12),
      associatedData: Array(repeating: 3, count: 12), box: Array(repeating: 4, count: 24))
    #expect(try SessionKeyMaterial(decoding: material.encoded) == material)
    #expect(throws: FrameError.self) {
      try SessionKeyMaterial(decoding: Array(material.encoded.prefix(71)))
    }
  }
}

extension [UInt8] {
  fileprivate func decodedChunk() throws -> PreHandshakeChunk {
    guard case .preHandshake(let chunk) = try Frame(decoding: self) else {
      throw FrameError.unknownKind(first ?? 0)
    }
    return chunk
  }
}
