#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A listening IPv4 TCP socket: ``accept()`` hands out one ``SocketConnection`` per client.
///
/// The blocking wait for a client happens on the listener's own dispatch queue (`poll`, woken
/// by a client or by ``close()``), never on the cooperative pool and never by spinning.
/// SO_REUSEADDR is set, so a restarted server can take its port back at once.
public final class SocketListener: Sendable {
  private let handle: SocketHandle
  /// The port actually bound (the one the system chose when asked for port 0).
  public let port: UInt16
  /// The bound address as "a.b.c.d:port".
  public let localAddress: String

  /// Binds `host:port` and listens. `host` "127.0.0.1" (the default) is loopback only;
  /// "0.0.0.0" (or "") is every IPv4 interface. Port 0 lets the system choose; read ``port``.
  /// Blocking only for name resolution of a `host` that is not a dotted address.
  /// - Throws: ``SocketError`` (`EADDRINUSE`, …).
  public init(host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 64)
    throws(SocketError)
  {
    let address = try SocketHandle.address(host: host, port: port)
    let fd = try SocketHandle.makeStreamSocket()
    let handle = try SocketHandle(fd: fd, label: "RecorderLink.listener")
    do throws(SocketError) {
      try SocketHandle.setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, "setsockopt(SO_REUSEADDR)")
      guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else { throw .lastError("bind") }
      guard listen(fd, backlog) == 0 else { throw .lastError("listen") }
      var bound = sockaddr_in()
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let named = withUnsafeMutablePointer(to: &bound) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
      }
      guard named == 0 else { throw .lastError("getsockname") }
      self.port = UInt16(bigEndian: bound.sin_port)
      self.localAddress = SocketHandle.describe(bound)
    } catch {
      handle.close()
      throw error
    }
    self.handle = handle
  }

  /// Waits for the next client. Concurrent callers are served one after the other.
  /// - Throws: ``SocketError/closed`` once ``close()`` was called (this is how an accept loop
  ///   ends), or the system's error.
  public func accept() async throws(SocketError) -> SocketConnection {
    let handle = self.handle
    return try await handle.run(on: handle.readQueue) {
      () -> Result<SocketConnection, SocketError> in
      while true {
        var peer = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = withUnsafeMutablePointer(to: &peer) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            systemAccept(handle.fd, $0, &length)
          }
        }
        if fd >= 0 {
          do {
            try SocketHandle.setNonblocking(fd)
            try SocketHandle.configureStream(fd)
          } catch {
            _ = SocketHandle.systemClose(fd)
            continue
          }
          // On failure the handle has closed `fd` already.
          guard let connection = try? SocketHandle(fd: fd, label: "RecorderLink.accepted") else {
            continue
          }
          return .success(
            SocketConnection(handle: connection, remoteAddress: SocketHandle.describe(peer)))
        }
        switch errno {
        case EINTR, ECONNABORTED: continue
        case EAGAIN, EWOULDBLOCK:
          if case .failure(let error) = handle.wait(for: Int16(POLLIN)) { return .failure(error) }
        case EMFILE, ENFILE:
          // Out of descriptors: wait a little rather than spin, then try again.
          if case .failure(let error) = handle.wait(for: 0, timeoutMilliseconds: 100) {
            return .failure(error)
          }
        default: return .failure(.lastError("accept"))
        }
      }
    }
  }

  /// Stops listening: a pending ``accept()`` throws ``SocketError/closed``. Connections
  /// already accepted stay open. Idempotent; callable from any thread.
  public func close() { handle.close() }
}

private func systemAccept(
  _ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>
) -> Int32 {
  accept(fd, address, length)
}
