import RecorderConcurrency
import RecorderSockets

extension WebSocketConnection {
  /// Opens a client connection to `ws://host:port/target` (from `localHost` when given; see
  /// `SocketConnection/connect(host:port:timeout:localHost:)`): TCP connect, the Upgrade request
  /// with a fresh key, and the server's 101 checked (status, headers, Sec-WebSocket-Accept),
  /// all within ``WebSocketConfiguration/handshakeTimeout``. The emulator's Wi-Fi side uses
  /// this to play the device.
  /// - Throws: ``WebSocketError/socket(_:)``, ``WebSocketError/handshake(_:)``,
  ///   ``WebSocketError/acceptMismatch``, ``WebSocketError/handshakeTimeout``.
  public static func connect(
    host: String, port: UInt16, target: String = "/",
    configuration: WebSocketConfiguration = WebSocketConfiguration(),
    clock: AnyClock = .continuous, localHost: String? = nil
  ) async throws(WebSocketError) -> WebSocketConnection {
    let socket: SocketConnection
    do {
      socket = try await SocketConnection.connect(
        host: host, port: port, timeout: configuration.handshakeTimeout, localHost: localHost)
    } catch {
      throw error == .timedOut ? .handshakeTimeout : .socket(error)
    }
    let key = WebSocketHandshake.makeKey()
    let limits = configuration.headLimits
    let timeout = configuration.handshakeTimeout
    let result = await withTaskGroup(of: Result<[UInt8], WebSocketError>?.self) { group in
      group.addTask {
        do throws(SocketError) {
          try await socket.write(
            WebSocketHandshake.request(host: host, port: port, target: target, key: key))
          var bytes: [UInt8] = []
          while true {
            do throws(WebSocketError) {
              let parsed: (head: HTTPUpgradeHead, consumed: Int)?
              do throws(HTTPUpgradeError) {
                parsed = try HTTPUpgradeHead.parse(bytes, limits: limits)
              } catch {
                throw .handshake(error)
              }
              if let (head, consumed) = parsed {
                try WebSocketHandshake.validateResponse(head, key: key)
                return .success(Array(bytes[consumed...]))
              }
            } catch {
              return .failure(error)
            }
            let chunk = try await socket.read(upTo: 4096)
            guard !chunk.isEmpty else { return .failure(.connectionLost) }
            bytes += chunk
          }
        } catch {
          return .failure(.socket(error))
        }
      }
      group.addTask {
        do { try await clock.sleep(for: timeout) } catch { return nil }
        return .failure(.handshakeTimeout)
      }
      var outcome: Result<[UInt8], WebSocketError> = .failure(.handshakeTimeout)
      for await result in group {
        guard let result else { continue }
        outcome = result
        break
      }
      group.cancelAll()
      return outcome
    }
    switch result {
    case .success(let leftover):
      return WebSocketConnection(
        socket: socket, role: .client, configuration: configuration, clock: clock,
        leftover: leftover)
    case .failure(let error):
      socket.close()
      throw error
    }
  }
}
