import Dispatch
import RecorderConcurrency

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What went wrong in the socket layer, with the system's words.
public enum SocketError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A system call failed: its name, `errno` and `strerror`.
  case system(call: String, code: Int32, message: String)
  /// The socket was closed (by ``SocketConnection/close()``, ``SocketListener/close()``, or a
  /// cancelled read or write) before or while the operation ran.
  case closed
  /// `connect` did not complete in time.
  case timedOut
  /// The host name could not be turned into an IPv4 address.
  case unresolvable(host: String)

  public var description: String {
    switch self {
    case .system(let call, let code, let message): "\(call) failed: \(message) (errno \(code))"
    case .closed: "socket closed"
    case .timedOut: "connection timed out"
    case .unresolvable(let host): "cannot resolve \(host) to an IPv4 address"
    }
  }

  /// The error of the system call `call` from the current `errno`.
  static func lastError(_ call: String) -> SocketError {
    let code = errno
    return .system(call: call, code: code, message: String(cString: strerror(code)))
  }
}

/// One file descriptor of the socket layer and its wake-up pipe.
///
/// Every blocking wait is a `poll` on the descriptor and on the read end of a private pipe, on
/// a dispatch queue of this handle (never on the Swift cooperative pool). ``close()`` writes a
/// byte into the pipe, which wakes every waiter at once; the descriptors are closed only when
/// no operation is in flight any more, so a descriptor number is never reused under a waiter.
///
/// `@unchecked`-free: all mutable state is in `state` (a `Locked`); `fd` and the pipe ends
/// are immutable after `init`.
final class SocketHandle: Sendable {
  let fd: Int32
  private let wakeRead: Int32
  private let wakeWrite: Int32
  /// Serialises reads (and accepts): one blocking wait at a time.
  let readQueue: DispatchQueue
  /// Serialises writes, so the bytes of two writes never interleave.
  let writeQueue: DispatchQueue

  private struct State {
    var closeRequested = false
    var inFlight = 0
    var descriptorsClosed = false
  }
  private let state = Locked(State())

  /// Takes ownership of `fd` (already nonblocking) and makes the wake pipe.
  init(fd: Int32, label: String) throws(SocketError) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else {
      let error = SocketError.lastError("pipe")
      _ = SocketHandle.systemClose(fd)
      throw error
    }
    for end in ends { try? SocketHandle.setNonblocking(end) }
    self.fd = fd
    wakeRead = ends[0]
    wakeWrite = ends[1]
    readQueue = DispatchQueue(label: "\(label).read")
    writeQueue = DispatchQueue(label: "\(label).write")
  }

  deinit { closeDescriptorsIfIdle(force: true) }

  var isClosed: Bool { state.withLock { $0.closeRequested } }

  /// Runs `body` on `queue` as one in-flight operation and returns its result to the caller's
  /// task. Cancelling the calling task closes the socket (a half-done read or write leaves the
  /// byte stream in an unknown state), which wakes `body`.
  func run<T: Sendable>(
    on queue: DispatchQueue, _ body: @escaping @Sendable () -> Result<T, SocketError>
  ) async throws(SocketError) -> T {
    let admitted = state.withLock { state -> Bool in
      guard !state.closeRequested else { return false }
      state.inFlight += 1
      return true
    }
    guard admitted else { throw .closed }
    // The result (a new connection, fresh buffers) is made on `queue`'s thread and handed
    // over through a lock: an explicit happens-before edge ThreadSanitizer can see.
    let box = Locked<Result<T, SocketError>?>(nil)
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        queue.async {
          let result = body()
          self.endOperation()
          box.withLock { $0 = result }
          continuation.resume()
        }
      }
    } onCancel: {
      self.close()
    }
    guard let result = box.withLock({ $0 }) else { throw .closed }
    return try result.get()
  }

  private func endOperation() {
    state.withLock { $0.inFlight -= 1 }
    closeDescriptorsIfIdle(force: false)
  }

  /// Waits without spinning until `fd` is ready for `events` (POLLIN / POLLOUT), the handle is
  /// closed, or `timeoutMilliseconds` pass (-1: forever). Returns false on timeout.
  func wait(for events: Int16, timeoutMilliseconds: Int32 = -1) -> Result<Bool, SocketError> {
    while true {
      if isClosed { return .failure(.closed) }
      var fds = [
        pollfd(fd: fd, events: events, revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      let count = poll(&fds, 2, timeoutMilliseconds)
      if count < 0 {
        if errno == EINTR { continue }
        return .failure(.lastError("poll"))
      }
      if count == 0 { return .success(false) }
      if fds[1].revents != 0 || isClosed { return .failure(.closed) }
      return .success(true)
    }
  }

  /// Asks every operation to stop and closes the descriptors once none is in flight.
  /// Idempotent; callable from any thread.
  func close() {
    let first = state.withLock { state -> Bool in
      defer { state.closeRequested = true }
      return !state.closeRequested
    }
    guard first else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
    closeDescriptorsIfIdle(force: false)
  }

  private func closeDescriptorsIfIdle(force: Bool) {
    let shouldClose = state.withLock { state -> Bool in
      guard !state.descriptorsClosed, force || (state.closeRequested && state.inFlight == 0) else {
        return false
      }
      state.descriptorsClosed = true
      return true
    }
    guard shouldClose else { return }
    _ = SocketHandle.systemClose(fd)
    _ = SocketHandle.systemClose(wakeRead)
    _ = SocketHandle.systemClose(wakeWrite)
  }

  // MARK: - Small wrappers over the platform's calls

  static func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
      Glibc.close(fd)
    #else
      Darwin.close(fd)
    #endif
  }

  static func setNonblocking(_ fd: Int32) throws(SocketError) {
    let flags = fcntl(fd, F_GETFL, 0)
    guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
      throw .lastError("fcntl")
    }
  }

  static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ call: String)
    throws(SocketError)
  {
    var value = value
    guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
      throw .lastError(call)
    }
  }

  /// A new nonblocking IPv4 stream socket with SIGPIPE suppressed where the platform needs a
  /// socket option for it (Darwin; Linux passes `MSG_NOSIGNAL` on every send).
  static func makeStreamSocket() throws(SocketError) -> Int32 {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw .lastError("socket") }
    do {
      try setNonblocking(fd)
      try configureStream(fd)
    } catch {
      _ = systemClose(fd)
      throw error
    }
    return fd
  }

  /// TCP_NODELAY (a message is sent when written, not batched by Nagle) and, on Darwin,
  /// SO_NOSIGPIPE.
  static func configureStream(_ fd: Int32) throws(SocketError) {
    try setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "setsockopt(TCP_NODELAY)")
    #if canImport(Darwin)
      try setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1, "setsockopt(SO_NOSIGPIPE)")
    #endif
  }

  static var sendFlags: Int32 {
    #if canImport(Glibc)
      Int32(MSG_NOSIGNAL)
    #else
      0
    #endif
  }

  /// An IPv4 socket address for `host` (dotted quad, "localhost", or a name resolved with
  /// `getaddrinfo`; blocking, so call it off the cooperative pool) and `port`.
  static func address(host: String, port: UInt16) throws(SocketError) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    let name = host.isEmpty ? "0.0.0.0" : (host == "localhost" ? "127.0.0.1" : host)
    if inet_pton(AF_INET, name, &address.sin_addr) == 1 { return address }
    var hints = addrinfo()
    hints.ai_family = AF_INET
    #if canImport(Glibc)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var list: UnsafeMutablePointer<addrinfo>?
    guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else {
      throw .unresolvable(host: host)
    }
    defer { freeaddrinfo(list) }
    guard let raw = first.pointee.ai_addr, first.pointee.ai_family == AF_INET else {
      throw .unresolvable(host: host)
    }
    raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
      address.sin_addr = $0.pointee.sin_addr
    }
    return address
  }

  /// "a.b.c.d:port" of an IPv4 socket address.
  static func describe(_ address: sockaddr_in) -> String {
    var sinAddr = address.sin_addr
    var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
    guard inet_ntop(AF_INET, &sinAddr, &text, socklen_t(INET_ADDRSTRLEN)) != nil else {
      return "?:\(UInt16(bigEndian: address.sin_port))"
    }
    let host = String(
      decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return "\(host):\(UInt16(bigEndian: address.sin_port))"
  }
}

extension sockaddr_in {
  /// Calls `body` with this address as the generic `sockaddr` the socket calls take.
  func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
    var copy = self
    return withUnsafePointer(to: &copy) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
  }
}
