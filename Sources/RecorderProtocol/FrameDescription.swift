/// Which way a frame travelled. Control payloads mean different things each way (`001D` is the
/// sync tail from the device and SYNC_STOP from the phone), so decoding needs it [sdk].
public enum Direction: String, Sendable, CaseIterable {
  case deviceToPhone = "device"
  case phoneToDevice = "phone"
}

extension Frame {
  /// The frame's fields with the PROTOCOL.md §2 names, `kind` first, for display.
  ///
  /// Control frames are decoded further as a ``PhoneMessage`` or ``DeviceMessage`` by
  /// `direction`; a payload that does not fit its opcode's layout throws.
  public func describe(direction: Direction, portVersion: UInt16 = ProtocolDefaults.portVersion)
    throws(FrameError) -> [Field]
  {
    var fields = [Field("kind", .text(kindName))]
    switch self {
    case .control(let frame):
      fields.append(Field("opcode", frame.opcode.rawValue))
      let name: String
      let body: [Field]
      switch direction {
      case .phoneToDevice:
        let message = try PhoneMessage(frame, portVersion: portVersion)
        (name, body) = (message.name, message.fields)
      case .deviceToPhone:
        let message = try DeviceMessage(frame, portVersion: portVersion)
        (name, body) = (message.name, message.fields)
      }
      fields.append(Field("name", .text(name)))
      fields += body
    case .bulk(let frame):
      if let sessionId = frame.sessionId { fields.append(Field("sessionId", sessionId.rawValue)) }
      fields.append(Field("offset", frame.offset))
      fields.append(Field("length", frame.data.count))
      fields.append(Field("final", frame.isTerminal ? 1 : 0))
      if let code = frame.endCode {
        fields.append(Field("code", code))
      } else {
        fields.append(Field("data", .bytes(frame.data)))
      }
    case .ota(let frame):
      fields += [
        Field("offset", frame.offset), Field("length", frame.data.count),
        Field("data", .bytes(frame.data)),
      ]
    case .rateTest(let content):
      fields += [Field("length", content.count)]
    case .log(let frame):
      fields += [
        Field("logType", frame.logType), Field("offset", frame.offset),
        Field("length", frame.data.count), Field("data", .bytes(frame.data)),
      ]
    case .preHandshake(let chunk):
      fields += [
        Field("type", chunk.type), Field("count", chunk.count), Field("index", chunk.index),
        Field("length", chunk.chunk.count), Field("chunk", .bytes(chunk.chunk)),
      ]
    }
    return fields
  }
}
