import Dispatch
import RecorderConcurrency

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One TCP connection (IPv4), accepted by a ``SocketListener`` or opened with
/// ``connect(host:port:timeout:localHost:)``.
///
/// Reads and writes suspend the calling task; the blocking waits happen on this connection's
/// own dispatch queues (a `poll` with no timeout, woken by data or by ``close()``), never on
/// the cooperative pool and never by spinning. One read and one write may run at the same
/// time; concurrent reads (or concurrent writes) are served one after the other.
///
/// Failure: every operation throws ``SocketError``; after ``close()`` they throw
/// ``SocketError/closed``. Cancelling a task inside ``read(upTo:)`` or ``write(_:)`` closes the
/// connection, since a half-done operation leaves the byte stream in an unknown state.
public final class SocketConnection: Sendable {
  private let handle: SocketHandle
  /// The peer as "a.b.c.d:port".
  public let remoteAddress: String

  init(handle: SocketHandle, remoteAddress: String) {
    self.handle = handle
    self.remoteAddress = remoteAddress
  }

  /// Opens a TCP connection to `host:port` (a dotted IPv4 address or a name that resolves to
  /// one), with TCP_NODELAY set, from `localHost` when given (a source address of this
  /// host: tests play a client from another loopback address, 127.0.0.2).
  /// - Throws: ``SocketError/timedOut`` after `timeout`, ``SocketError/unresolvable(host:)``,
  ///   or the system's error (`ECONNREFUSED`, `EADDRNOTAVAIL`, …).
  public static func connect(
    host: String, port: UInt16, timeout: Duration = .seconds(10), localHost: String? = nil
  ) async throws(SocketError) -> SocketConnection {
    let (seconds, attoseconds) = timeout.components
    let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    // The connection is built on a dispatch thread; it crosses to the caller through a lock,
    // an explicit happens-before edge for everything its initialiser wrote (ThreadSanitizer
    // does not see one through the continuation alone).
    let box = Locked<Result<SocketConnection, SocketError>?>(nil)
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        let result = Result { () throws(SocketError) in
          try connectBlocking(
            host: host, port: port, localHost: localHost,
            timeoutMilliseconds: max(milliseconds, 1))
        }
        box.withLock { $0 = result }
        continuation.resume()
      }
    }
    guard let result = box.withLock({ $0 }) else { throw .closed }
    return try result.get()
  }

  private static func connectBlocking(
    host: String, port: UInt16, localHost: String?, timeoutMilliseconds: Int32
  ) throws(SocketError) -> SocketConnection {
    let address = try SocketHandle.address(host: host, port: port)
    let fd = try SocketHandle.makeStreamSocket()
    let handle = try SocketHandle(fd: fd, label: "RecorderLink.socket.\(host):\(port)")
    if let localHost {
      do throws(SocketError) {
        let local = try SocketHandle.address(host: localHost, port: 0)
        guard local.withSockaddr({ bind(fd, $0, $1) }) == 0 else {
          throw SocketError.lastError("bind")
        }
      } catch {
        handle.close()
        throw error
      }
    }
    let started = address.withSockaddr { systemConnect(fd, $0, $1) }
    if started != 0 {
      guard errno == EINPROGRESS else {
        let error = SocketError.lastError("connect")
        handle.close()
        throw error
      }
      switch handle.wait(for: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds) {
      case .failure(let error):
        handle.close()
        throw error
      case .success(false):
        handle.close()
        throw .timedOut
      case .success(true):
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else {
          let error = SocketError.lastError("getsockopt(SO_ERROR)")
          handle.close()
          throw error
        }
        if code != 0 {
          handle.close()
          throw .system(call: "connect", code: code, message: String(cString: strerror(code)))
        }
      }
    }
    return SocketConnection(handle: handle, remoteAddress: SocketHandle.describe(address))
  }

  /// Reads at least one and at most `maximum` bytes; an empty array means the peer closed its
  /// side (end of stream).
  public func read(upTo maximum: Int) async throws(SocketError) -> [UInt8] {
    precondition(maximum > 0, "read(upTo:) needs room for at least one byte")
    let handle = self.handle
    return try await handle.run(on: handle.readQueue) { () -> Result<[UInt8], SocketError> in
      // Received straight into the result's storage: no zero fill, no second copy (both
      // showed in the Wi-Fi receive's profile).
      var failure: SocketError?
      let bytes = [UInt8](unsafeUninitializedCapacity: maximum) { buffer, initialized in
        initialized = 0
        while true {
          let count = recv(handle.fd, buffer.baseAddress, maximum, 0)
          if count > 0 {
            initialized = count
            return
          }
          if count == 0 { return }
          switch errno {
          case EINTR: continue
          case EAGAIN, EWOULDBLOCK:
            if case .failure(let error) = handle.wait(for: Int16(POLLIN)) {
              failure = error
              return
            }
          case ECONNRESET: return
          default:
            failure = .lastError("recv")
            return
          }
        }
      }
      if let failure { return .failure(failure) }
      return .success(bytes)
    }
  }

  /// Writes every byte of `bytes` (waiting, without spinning, while the send buffer is full).
  /// Returns when the kernel has taken them all, not when the peer has read them.
  public func write(_ bytes: [UInt8]) async throws(SocketError) {
    guard !bytes.isEmpty else { return }
    let handle = self.handle
    try await handle.run(on: handle.writeQueue) { () -> Result<Void, SocketError> in
      var sent = 0
      while sent < bytes.count {
        let count = bytes.withUnsafeBytes {
          send(
            handle.fd, $0.baseAddress.map { $0 + sent }, bytes.count - sent, SocketHandle.sendFlags)
        }
        if count > 0 {
          sent += count
          continue
        }
        switch errno {
        case EINTR: continue
        case EAGAIN, EWOULDBLOCK:
          if case .failure(let error) = handle.wait(for: Int16(POLLOUT)) { return .failure(error) }
        default: return .failure(.lastError("send"))
        }
      }
      return .success(())
    }
  }

  /// Closes the connection: pending and later reads and writes throw ``SocketError/closed``;
  /// the peer sees end of stream. Idempotent; callable from any thread or task.
  public func close() { handle.close() }

  /// True once ``close()`` was called (or a cancelled operation closed it).
  public var isClosed: Bool { handle.isClosed }
}

/// `connect(2)` under a name that does not collide with ``SocketConnection/connect``.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t)
  -> Int32
{
  connect(fd, address, length)
}
