// libFuzzer entry over the TCP link message decoder (docs/tcp-link.md): the bytes are fed to
// a stream decoder in two pieces, as a socket would deliver them. Built with the RecorderLink
// sources in one module by scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown
// TCPLinkMessageError is the expected answer to garbage.

@_cdecl("LLVMFuzzerTestOneInput")
public func tcpLinkMessageFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  var decoder = TCPLinkMessageDecoder()
  let cut = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
  decoder.append(bytes[..<cut])
  var messages: [TCPLinkMessage] = []
  while let message = try? decoder.next() { messages.append(message) }
  decoder.append(bytes[cut...])
  while let message = try? decoder.next() { messages.append(message) }
  for message in messages {
    // Whatever decodes must re-encode and decode to the same value.
    var again = TCPLinkMessageDecoder()
    again.append(message.encoded())
    precondition((try? again.next()) == message, "message did not survive re-encoding")
  }
  return 0
}
