import RecorderConcurrency
import RecorderSockets

/// "Joining" an emulated device's hotspot over TCP.
///
/// A real phone joins the device's access point and the device connects to the phone's
/// WebSocket server at the address its DHCP handed out. An emulator has no access point, so
/// its host listens on a join port instead: the phone connects, sends one line
/// `JOIN <ssid> <password> <server port>\n`, and gets `OK\n` once the device accepted the
/// credentials (it then connects to the server port at the phone's address), or
/// `ERR <reason>\n`. Then both sides close. docs/tcp-link.md has the details.
public struct HotspotJoinRequest: Sendable, Equatable {
  public var ssid: String
  public var password: String
  /// The phone's WebSocket server port.
  public var serverPort: UInt16
  /// The phone's address as the join server saw it (where the device should connect).
  public var phoneHost: String

  public init(ssid: String, password: String, serverPort: UInt16, phoneHost: String) {
    self.ssid = ssid
    self.password = password
    self.serverPort = serverPort
    self.phoneHost = phoneHost
  }

  /// Longest line accepted, newline included.
  public static let maximumLineLength = 256

  /// The refusal of a device that is still in a Wi-Fi session and will not take a second
  /// join meanwhile (docs/tcp-link.md): after a join of ours that went unanswered, it is the
  /// device telling that join took (iOS's "already associated").
  public static let sessionAlreadyActive = "a Wi-Fi session is already active"

  /// The request line, newline-terminated. SSID and password must be free of spaces.
  public var line: String { "JOIN \(ssid) \(password) \(serverPort)\n" }

  /// Parses a request line (without its newline). Nil for anything else.
  public init?(line: String, phoneHost: String) {
    let parts = line.split(separator: " ", omittingEmptySubsequences: false)
    // The port in its one canonical form: decimal digits, no sign, no leading zero.
    guard parts.count == 4, parts[0] == "JOIN", !parts[1].isEmpty, !parts[2].isEmpty,
      parts[3].allSatisfy({ ("0"..."9").contains($0) }), parts[3].first != "0",
      let port = UInt16(parts[3])
    else { return nil }
    self.init(
      ssid: String(parts[1]), password: String(parts[2]), serverPort: port, phoneHost: phoneHost)
  }
}

/// Why a join failed.
public enum HotspotJoinError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The join port could not be reached or the exchange broke off.
  case socket(SocketError)
  /// The device refused (wrong SSID or password, no hotspot raised) with this reason.
  case refused(String)
  /// The answer was not `OK` or `ERR …` within the line limit.
  case malformedAnswer
  /// The request went out and no answer came (the exchange broke off, or the join port
  /// closed first): the device may have taken the join.
  case unanswered

  public var description: String {
    switch self {
    case .socket(let error): "hotspot join port: \(error)"
    case .refused(let reason): "the device refused the join: \(reason)"
    case .malformedAnswer: "the hotspot join port answered something else"
    case .unanswered: "the hotspot join port did not answer the join"
    }
  }
}

/// The phone side of one join port, for a host that may join the same hotspot again: how
/// `recorder sync --wifi` reaches `recorder emulate`, and tests an in-process emulator.
///
/// Joining is idempotent: when a join went out and its answer never came (the exchange broke
/// off after the request), the device may have taken it. A device that then refuses the next
/// join of the same hotspot because its Wi-Fi session is already active
/// (``HotspotJoinRequest/sessionAlreadyActive``) is telling that the earlier join took: that
/// refusal counts as joined, as iOS's "already associated" does. Without such an unanswered
/// join the refusal stays a refusal (the device is busy with a session of somebody else's
/// join, or one we closed).
public struct HotspotJoinPort: Sendable {
  public let host: String
  public let port: UInt16
  /// The hotspots (SSID and password) whose last join went unanswered; copies share it.
  private let unanswered = Locked<Set<String>>([])

  public init(host: String = "127.0.0.1", port: UInt16) {
    self.host = host
    self.port = port
  }

  /// Joins the hotspot `ssid` (with `password`) for a phone listening on `serverPort`.
  /// Returns when the device took this join or, by the rule above, an earlier one.
  /// - Throws: the exchange's ``HotspotJoinError``.
  public func join(ssid: String, password: String, serverPort: UInt16)
    async throws(HotspotJoinError)
  {
    let key = "\(ssid) \(password)"
    do {
      try await HotspotJoinClient.join(
        host: host, port: port, ssid: ssid, password: password, serverPort: serverPort)
      unanswered.withLock { _ = $0.remove(key) }
    } catch {
      let tookEarlier = unanswered.withLock { keys in
        switch error {
        case .refused(let reason):
          // A definite answer: whatever it is, no earlier join is in doubt any more.
          return keys.remove(key) != nil && reason == HotspotJoinRequest.sessionAlreadyActive
        case .unanswered:
          keys.insert(key)
          return false
        case .socket, .malformedAnswer:
          return false
        }
      }
      if !tookEarlier { throw error }
    }
  }
}

/// The phone side of the join exchange.
public enum HotspotJoinClient {
  /// Sends the JOIN line to `host:port` and waits for the answer.
  public static func join(
    host: String, port: UInt16, ssid: String, password: String, serverPort: UInt16,
    timeout: Duration = .seconds(10)
  ) async throws(HotspotJoinError) {
    guard !ssid.contains(where: \.isWhitespace), !password.contains(where: \.isWhitespace) else {
      throw .refused("the SSID and password cannot contain spaces")
    }
    let connection: SocketConnection
    do {
      connection = try await SocketConnection.connect(host: host, port: port, timeout: timeout)
    } catch {
      throw .socket(error)
    }
    defer { connection.close() }
    let request = HotspotJoinRequest(
      ssid: ssid, password: password, serverPort: serverPort, phoneHost: host)
    do {
      try await connection.write(Array(request.line.utf8))
    } catch {
      throw .socket(error)
    }
    let answer: Line
    do {
      answer = try await readLine(connection)
    } catch {
      throw .unanswered
    }
    guard case .line(let answer) = answer else {
      throw answer == .closed ? .unanswered : .malformedAnswer
    }
    if answer == "OK" { return }
    if answer.hasPrefix("ERR ") { throw .refused(String(answer.dropFirst(4))) }
    throw .malformedAnswer
  }

  /// What one line read gave.
  enum Line: Equatable {
    /// The line, without its newline.
    case line(String)
    /// The peer closed before a newline.
    case closed
    /// No newline within ``HotspotJoinRequest/maximumLineLength``.
    case tooLong
  }

  /// One line, or why there is none.
  static func readLine(_ connection: SocketConnection) async throws(SocketError) -> Line {
    var bytes: [UInt8] = []
    while bytes.count < HotspotJoinRequest.maximumLineLength {
      let chunk = try await connection.read(upTo: HotspotJoinRequest.maximumLineLength)
      if chunk.isEmpty { return .closed }
      bytes += chunk
      if let newline = bytes.firstIndex(of: 0x0A) {
        return .line(String(decoding: bytes[..<newline], as: UTF8.self))
      }
    }
    return .tooLong
  }
}

/// The emulator host's join port: hands each well-formed JOIN to `handler` and answers with
/// its verdict. A malformed or oversized line gets `ERR malformed request`; one client at a
/// time is enough (joins are rare), but each is served in its own task.
public final class HotspotJoinServer: Sendable {
  /// The port actually bound.
  public let port: UInt16
  private let listener: SocketListener
  private let loop: Locked<Task<Void, Never>?> = Locked(nil)

  /// Binds `host:port` and starts serving. Call ``stop()`` when done.
  /// - Parameters:
  ///   - host: the address to listen on.
  ///   - port: the port (0: any free one).
  ///   - losingFirstAnswers: the first this many joins the device accepts get no answer: the
  ///     connection closes after the device took the join, so the phone cannot tell whether
  ///     it joined (a lost association reply). 0 (default): every verdict is answered.
  ///   - handler: the device's verdict: nil accepts, a string is the refusal reason.
  public init(
    host: String = "127.0.0.1", port: UInt16 = 0, losingFirstAnswers: Int = 0,
    handler: @escaping @Sendable (HotspotJoinRequest) async -> String?
  ) throws(SocketError) {
    listener = try SocketListener(host: host, port: port)
    self.port = listener.port
    let listener = self.listener
    let toLose = Locked(max(0, losingFirstAnswers))
    let task = Task {
      while let connection = try? await listener.accept() {
        Task { await Self.serve(connection, losing: toLose, handler: handler) }
      }
    }
    loop.withLock { $0 = task }
  }

  private static func serve(
    _ connection: SocketConnection, losing toLose: Locked<Int>,
    handler: @Sendable (HotspotJoinRequest) async -> String?
  ) async {
    defer { connection.close() }
    let host = String(connection.remoteAddress.prefix { $0 != ":" })
    guard case .line(let line) = try? await HotspotJoinClient.readLine(connection),
      let request = HotspotJoinRequest(line: line, phoneHost: host)
    else {
      try? await connection.write(Array("ERR malformed request\n".utf8))
      return
    }
    let verdict = await handler(request)
    let lost =
      verdict == nil
      && toLose.withLock { left in
        guard left > 0 else { return false }
        left -= 1
        return true
      }
    guard !lost else { return }
    let answer = verdict.map { "ERR \($0.filter { $0 != "\n" })\n" } ?? "OK\n"
    try? await connection.write(Array(answer.utf8))
  }

  /// Stops accepting. Idempotent.
  public func stop() {
    listener.close()
    loop.withLock { $0?.cancel() }
  }
}
