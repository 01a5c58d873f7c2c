#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// This host's network interfaces, as `getifaddrs(3)` reports them.
public enum NetworkInterfaces {
  /// The first IPv4 address of interface `name` ("en0", "wlan0", "lo") with its netmask, as
  /// dotted quads; nil when the interface is absent, down or has no IPv4 address.
  public static func ipv4(named name: String) -> (address: String, netmask: String)? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return nil }
    defer { freeifaddrs(list) }
    var entry: UnsafeMutablePointer<ifaddrs>? = first
    while let current = entry {
      defer { entry = current.pointee.ifa_next }
      let interface = current.pointee
      guard String(cString: interface.ifa_name) == name,
        interface.ifa_flags & UInt32(IFF_UP) != 0,
        let address = interface.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
        let mask = interface.ifa_netmask
      else { continue }
      guard let text = dottedQuad(address), let maskText = dottedQuad(mask) else { continue }
      return (text, maskText)
    }
    return nil
  }

  private static func dottedQuad(_ address: UnsafeMutablePointer<sockaddr>) -> String? {
    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
      var inAddress = pointer.pointee.sin_addr
      var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
      guard inet_ntop(AF_INET, &inAddress, &text, socklen_t(INET_ADDRSTRLEN)) != nil else {
        return nil
      }
      return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
  }
}
