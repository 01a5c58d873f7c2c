import COgg

/// Writes Opus packets into an Ogg Opus file (RFC 7845) with libogg, without re-encoding.
///
/// Pages: OpusHead alone on the first page, OpusTags ending its page, then audio pages
/// (libogg's ~4 KiB pages). Each audio packet is 20 ms, so the granule position after packet
/// *n* is n × 960 (48 kHz units, as RFC 7845 requires whatever the input rate). The last
/// packet carries end-of-stream. OpusTags is held back until the first audio packet so an
/// empty recording still ends with an end-of-stream page.
///
/// Ownership: not `Sendable`; one export owns it.
final class OggOpusWriter {
  /// How the OpusHead describes the packets.
  enum Layout {
    /// Mapping family 0 with `channels` 1 or 2 (a mono packet in a 2-channel family-0
    /// stream is decoded to both channels: the vendor's "duplicate" option without
    /// re-encoding).
    case family0(channels: Int)
    /// Mapping family 1, 2 channels, 2 uncoupled mono streams: the 2-channel device
    /// recording as it is, packets in multistream framing.
    case twoMonoStreams
  }

  /// Input rate recorded in OpusHead: the device's 16 kHz.
  static let inputSampleRate: UInt32 = 16_000
  /// 48 kHz samples per 20 ms packet.
  static let granulePerPacket: Int64 = 960

  private let file: AudioOutputFile
  private let stream: UnsafeMutablePointer<ogg_stream_state>
  /// The packet held back so the last one can carry end-of-stream (libogg copies packet
  /// data, so this buffer is reused).
  private var pending: [UInt8] = []
  private var hasPending = false
  private var pendingIsTags = false
  private var pendingGranule: Int64 = 0
  private var packetNumber: Int64 = 0
  private var audioPackets: Int64 = 0

  init(path: String, layout: Layout, preSkip: Int, serial: Int32, vendor: String) throws(AudioError)
  {
    stream = .allocate(capacity: 1)
    guard ogg_stream_init(stream, serial) == 0 else {
      stream.deallocate()
      throw .oggFailed(stage: "ogg_stream_init")
    }
    do {
      file = try AudioOutputFile(path: path)
    } catch {
      ogg_stream_clear(stream)
      stream.deallocate()
      throw error
    }
    pending = Self.opusHead(layout: layout, preSkip: preSkip)
    try submit(granule: 0, endOfStream: false)
    try drain(flush: true)  // OpusHead alone on the first page.
    pending = Self.opusTags(vendor: vendor)
    pendingIsTags = true
    hasPending = true
  }

  deinit {
    ogg_stream_clear(stream)
    stream.deallocate()
  }

  /// Adds one 20 ms audio packet.
  func write(packet: UnsafeRawBufferPointer) throws(AudioError) {
    try submitPending(endOfStream: false)
    audioPackets += 1
    pending.removeAll(keepingCapacity: true)
    pending.append(contentsOf: packet)
    pendingGranule = audioPackets * Self.granulePerPacket
    pendingIsTags = false
    hasPending = true
  }

  /// Adds one 20 ms audio packet.
  func write(packet: [UInt8]) throws(AudioError) {
    let result = packet.withUnsafeBytes { raw in
      Result { () throws(AudioError) in try write(packet: raw) }
    }
    try result.get()
  }

  /// Marks the last packet end-of-stream, flushes every page and closes the file.
  func finish() throws(AudioError) {
    try submitPending(endOfStream: true)
    try drain(flush: true)
    try file.close()
  }

  private func submitPending(endOfStream: Bool) throws(AudioError) {
    guard hasPending else { return }
    hasPending = false
    try submit(granule: pendingIsTags ? 0 : pendingGranule, endOfStream: endOfStream)
    // OpusTags must end its page, so audio starts on a fresh page (RFC 7845 §3).
    try drain(flush: pendingIsTags)
  }

  /// Hands `pending` to libogg as the next packet.
  private func submit(granule: Int64, endOfStream: Bool) throws(AudioError) {
    let number = packetNumber
    let status = pending.withUnsafeMutableBufferPointer { buffer in
      var packet = ogg_packet()
      packet.packet = buffer.baseAddress
      packet.bytes = buffer.count
      packet.b_o_s = number == 0 ? 1 : 0
      packet.e_o_s = endOfStream ? 1 : 0
      packet.granulepos = granule
      packet.packetno = number
      return ogg_stream_packetin(stream, &packet)
    }
    guard status == 0 else { throw .oggFailed(stage: "ogg_stream_packetin") }
    packetNumber += 1
  }

  /// Writes every page libogg has ready (`flush`: also the partial last one).
  private func drain(flush: Bool) throws(AudioError) {
    var page = ogg_page()
    while (flush ? ogg_stream_flush(stream, &page) : ogg_stream_pageout(stream, &page)) != 0 {
      try file.write(UnsafeRawBufferPointer(start: page.header, count: page.header_len))
      try file.write(UnsafeRawBufferPointer(start: page.body, count: page.body_len))
    }
  }

  /// OpusHead, RFC 7845 §5.1.
  static func opusHead(layout: Layout, preSkip: Int) -> [UInt8] {
    var bytes = Array("OpusHead".utf8)
    let channels: UInt8
    switch layout {
    case .family0(let count): channels = UInt8(count)
    case .twoMonoStreams: channels = 2
    }
    bytes.append(1)  // version
    bytes.append(channels)
    bytes.append(UInt8(preSkip & 0xFF))
    bytes.append(UInt8(preSkip >> 8 & 0xFF))
    withUnsafeBytes(of: inputSampleRate.littleEndian) { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: [0, 0])  // output gain
    switch layout {
    case .family0:
      bytes.append(0)
    case .twoMonoStreams:
      bytes.append(contentsOf: [1, 2, 0, 0, 1])  // family 1, 2 streams, 0 coupled, map 0 1
    }
    return bytes
  }

  /// OpusTags, RFC 7845 §5.2, with the vendor string and no comments.
  static func opusTags(vendor: String) -> [UInt8] {
    var bytes = Array("OpusTags".utf8)
    let vendorBytes = Array(vendor.utf8)
    withUnsafeBytes(of: UInt32(vendorBytes.count).littleEndian) { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: vendorBytes)
    bytes.append(contentsOf: [0, 0, 0, 0])
    return bytes
  }
}
