#if os(Linux)
  import RecorderBlueZ
  import RecorderConcurrency
  import RecorderKit

  /// `recorder sync --wifi`'s joiner on a Linux host running NetworkManager: joins the
  /// device's hotspot with a connection of its own (``NetworkManagerClient``: volatile,
  /// never autoconnecting, bound to this process) and removes exactly that connection when
  /// the Wi-Fi session ends, however it ends. The user's other connections are never read,
  /// changed or deactivated.
  ///
  /// Each failed join prints one line saying why (the password never in it) and throws
  /// `DeviceError.wifiUnavailable`, so the sync goes on over BLE. A join of a hotspot this
  /// joiner is already on counts as joined.
  struct NetworkManagerJoiner: HotspotJoiner {
    let client: NetworkManagerClient
    /// The networks joined and not yet left, by SSID; copies share it.
    private let joined = Locked<[String: NetworkManagerClient.Joined]>([:])

    init(client: NetworkManagerClient) {
      self.client = client
    }

    func join(_ hotspot: DeviceHotspot, serverPort: UInt16) async throws(DeviceError) {
      if joined.withLock({ $0[hotspot.ssid] }) != nil { return }
      do {
        let network = try await client.join(ssid: hotspot.ssid, password: hotspot.password)
        joined.withLock { $0[hotspot.ssid] = network }
        printError("Wi-Fi: joined \(hotspot.ssid) through NetworkManager (\(network))")
      } catch {
        printError("Wi-Fi: \(error)")
        throw .wifiUnavailable("\(error)")
      }
    }

    func leave(_ hotspot: DeviceHotspot) async {
      guard let network = joined.withLock({ $0.removeValue(forKey: hotspot.ssid) }) else {
        return
      }
      if let failure = await client.leave(network) {
        printError("Wi-Fi: could not remove the connection \(network.id): \(failure)")
      } else {
        printError("Wi-Fi: left \(hotspot.ssid) (connection \(network.id) deleted)")
      }
    }

    func gatewayAddress(of hotspot: DeviceHotspot) async -> String? {
      guard let network = joined.withLock({ $0[hotspot.ssid] }) else { return nil }
      return await client.ipv4(of: network)?.gateway
    }

    func joinedNetwork(_ hotspot: DeviceHotspot) async -> JoinedNetwork? {
      guard let network = joined.withLock({ $0[hotspot.ssid] }),
        let ipv4 = await client.ipv4(of: network)
      else { return nil }
      return JoinedNetwork(address: ipv4.address, netmask: ipv4.netmask)
    }
  }
#endif
