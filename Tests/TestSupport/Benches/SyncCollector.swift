import RecorderProtocol

/// What one SYNC_START brought back.
package struct SyncResult {
  package var head: SessionStatus?
  package var dataFrames: [BulkFrame] = []
  package var terminal: BulkFrame?
  package var tail: SyncTail?
  /// Control messages that arrived between head and tail (REC_* events, replies).
  package var interleaved: [DeviceMessage] = []

  /// The data bytes in arrival order.
  package var bytes: [UInt8] { dataFrames.flatMap(\.data) }
}

extension Phone {
  /// Sends SYNC_START and collects everything until the tail (or a head with status ≠ 0).
  /// `onData` sees each data frame as it arrives (to act mid-stream).
  package func sync(
    _ request: SyncStartRequest,
    onData: (BulkFrame, inout SyncResult) async throws -> Void = { _, _ in }
  ) async throws -> SyncResult {
    try await send(.syncStart(request))
    var result = SyncResult()
    while true {
      switch try await nextFrame() {
      case .bulk(let frame):
        if frame.isTerminal {
          result.terminal = frame
        } else {
          result.dataFrames.append(frame)
          try await onData(frame, &result)
        }
      case .control(let control):
        let message = try DeviceMessage(control, portVersion: portVersion)
        switch message {
        case .syncHead(let head):
          result.head = head
          if head.status != 0 { return result }
        case .syncTail(let tail):
          result.tail = tail
          return result
        default: result.interleaved.append(message)
        }
      default: continue
      }
    }
  }
}
