import Foundation
import RecorderConcurrency

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether the network is reachable, checked with the C library (SystemConfiguration is absent
/// on Linux): a host is reachable when its name resolves; with no host, when an interface
/// other than loopback is up with an address. Every reachable network counts as
/// ``ConnectionType/ethernetOrWiFi`` (the interface kind is not known here).
///
/// The listener hears the status once when listening starts (RecorderKit watches no network
/// changes).
open class NetworkReachabilityManager: @unchecked Sendable {
  // Safety: the mutable state (`listenerQueue`, `listener`, listening) is behind `state`'s
  // lock; the listener is called on `listenerQueue` only.
  /// The network's status.
  public enum NetworkReachabilityStatus: Equatable, Sendable {
    case unknown
    case notReachable
    case reachable(NetworkReachabilityManager.ConnectionType)
  }

  /// The kind of a reachable network.
  public enum ConnectionType: Hashable, Sendable {
    case ethernetOrWiFi
    case wwan
  }

  /// Called with the status.
  public typealias Listener = (NetworkReachabilityManager.NetworkReachabilityStatus) -> Void

  private struct State {
    var queue = DispatchQueue.main
    var listener: Listener?
    var listening = false
  }

  private let host: String?
  private let state = Locked(State())

  /// A manager for `host` (nil: the network as a whole); the package's subclasses inherit it.
  package init(host: String?) { self.host = host }

  /// A manager for `host`; nil for an empty host.
  public convenience init?(host: String) {
    guard !host.isEmpty else { return nil }
    self.init(host: Optional(host))
  }

  /// A manager for the network as a whole.
  public convenience init?() { self.init(host: nil) }

  /// Whether the status is reachable.
  open var isReachable: Bool { isReachableOnWWAN || isReachableOnEthernetOrWiFi }
  /// Whether reachable over a cellular network (never known here: false).
  open var isReachableOnWWAN: Bool { networkReachabilityStatus == .reachable(.wwan) }
  /// Whether reachable over Ethernet or Wi-Fi.
  open var isReachableOnEthernetOrWiFi: Bool {
    networkReachabilityStatus == .reachable(.ethernetOrWiFi)
  }

  /// The status now.
  open var networkReachabilityStatus: NetworkReachabilityStatus {
    if let host { return Self.resolves(host) ? .reachable(.ethernetOrWiFi) : .notReachable }
    return Self.interfaceUp() ? .reachable(.ethernetOrWiFi) : .notReachable
  }

  /// Where the listener is called (the main queue by default).
  open var listenerQueue: DispatchQueue {
    get { state.current.queue }
    set { state.withLock { $0.queue = newValue } }
  }

  /// The listener.
  open var listener: Listener? {
    get { state.current.listener }
    set { state.withLock { $0.listener = newValue } }
  }

  /// Starts listening: the listener hears the status now, once. True.
  @discardableResult
  open func startListening() -> Bool {
    let (queue, listener) = state.withLock { state -> (DispatchQueue, Listener?) in
      state.listening = true
      return (state.queue, state.listener)
    }
    let status = networkReachabilityStatus
    let call = ListenerCall(listener)
    queue.async { call.listener?(status) }
    return true
  }

  /// Stops listening.
  open func stopListening() { state.withLock { $0.listening = false } }

  static func resolves(_ host: String) -> Bool {
    var result: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, nil, nil, &result)
    if let result { freeaddrinfo(result) }
    return status == 0
  }

  static func interfaceUp() -> Bool {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return false }
    defer { freeifaddrs(list) }
    var node: UnsafeMutablePointer<ifaddrs>? = first
    while let current = node {
      let flags = Int32(current.pointee.ifa_flags)
      if flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
        current.pointee.ifa_addr != nil
      {
        return true
      }
      node = current.pointee.ifa_next
    }
    return false
  }
}

/// Two statuses are equal when their cases and connection types are.
public func == (
  lhs: NetworkReachabilityManager.NetworkReachabilityStatus,
  rhs: NetworkReachabilityManager.NetworkReachabilityStatus
) -> Bool {
  switch (lhs, rhs) {
  case (.unknown, .unknown), (.notReachable, .notReachable): true
  case (.reachable(let left), .reachable(let right)): left == right
  default: false
  }
}

/// The app's listener, carried to its queue.
private struct ListenerCall: @unchecked Sendable {
  // Safety: the app's closure is only called on the listener queue it chose.
  let listener: NetworkReachabilityManager.Listener?
  init(_ listener: NetworkReachabilityManager.Listener?) { self.listener = listener }
}
