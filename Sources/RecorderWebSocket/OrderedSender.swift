import RecorderConcurrency

/// Sends binary messages on one ``WebSocketConnection`` strictly in the order ``send(_:)``
/// was called, whatever tasks call it: each message is made (sealed, numbered) and queued
/// behind the previous one under one lock, so the order messages are made in is the order
/// they reach the wire. Mode B's sealed PDUs need that: a receiver drops a sequence number
/// that went backwards (PROTOCOL.md §9).
///
/// Each write runs in a task of its own, so a cancelled caller does not cancel it (a
/// cancelled socket write closes the connection, the socket layer's rule).
public final class OrderedSender: Sendable {
  private let connection: WebSocketConnection
  private let last = Locked<Task<Result<Void, WebSocketError>, Never>?>(nil)

  public init(_ connection: WebSocketConnection) {
    self.connection = connection
  }

  /// Makes a message with `make` (called once, in call order) and sends it after every
  /// message made before it; returns once it is written or failed. A message whose
  /// predecessor failed is still tried: the connection then throws its own error.
  public func send(_ make: () -> [UInt8]) async -> Result<Void, WebSocketError> {
    let connection = self.connection
    let write = last.withLock { last in
      let previous = last
      let bytes = make()
      let write = Task { () -> Result<Void, WebSocketError> in
        _ = await previous?.value
        do throws(WebSocketError) {
          try await connection.send(binary: bytes)
          return .success(())
        } catch {
          return .failure(error)
        }
      }
      last = write
      return write
    }
    return await write.value
  }
}
