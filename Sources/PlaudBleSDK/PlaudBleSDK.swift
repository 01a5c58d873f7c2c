import Foundation
@_exported import PlaudDeviceBasicSDK
import RecorderConcurrency

// PlaudBleSDK: the vendor's lower BLE framework under its own name (shared/VENDOR-API.md,
// "PlaudBleSDK and PlaudWiFiSDK"). `BleAgent`, `BleDevice` and `BleFile` are the facade's
// (re-exported above, so `import PlaudBleSDK` alone names them); this module adds the
// members and types only the vendor's PlaudBleSDK declares. Everything here is translation
// onto the facade and RecorderKit: no policy, no second connection.

/// A closure taking an `Int` (the vendor's `BleAgent.bleBlock` type).
public typealias Int2Void = (Int) -> Void

/// Logs `text` (and up to `maxBytes` of `data` as hex) through ``BleLogger/shared``'s log
/// block, when logging is on (`BleAgent.shared.openLog(true, …)`).
public func mlog(_ text: String, data: Data? = nil, maxBytes: Int? = 80) {
  BleLogger.shared.log(text, data: data, maxBytes: maxBytes)
}

/// Logs `text` through ``BleLogger/shared``'s write-log block, when logging is on.
public func wlog(_ text: String, data: Data? = nil, maxBytes: Int? = 80) {
  BleLogger.shared.wLog(text, data: data, maxBytes: maxBytes)
}

/// The vendor's logger: lines go to the app's blocks, nowhere else (RecorderKit writes no
/// log files). Off until ``setLog(opened:logBlock:wlogBlock:sync:)`` turns it on. Lines never
/// carry tokens or keys: RecorderKit passes none to it.
public final class BleLogger: Sendable {
  /// The one logger.
  public static let shared = BleLogger()

  private struct Sinks {
    var opened = false
    var logBlock: ((String) -> Void)?
    var wlogBlock: ((String) -> Void)?
  }

  private let sinks = Locked(Sinks())

  private init() {}

  /// Turns logging on or off and sets where lines go: `logBlock` for ``log(_:data:maxBytes:)``,
  /// `wlogBlock` for ``wLog(_:data:maxBytes:)``. `sync` is accepted and changes nothing: the
  /// blocks are always called on the logging thread.
  public func setLog(
    opened: Bool, logBlock: ((String) -> Void)? = nil, wlogBlock: ((String) -> Void)? = nil,
    sync: Bool = false
  ) {
    sinks.withLock { $0 = Sinks(opened: opened, logBlock: logBlock, wlogBlock: wlogBlock) }
  }

  /// Passes `text`, then up to `maxBytes` (all when nil) of `data` as hex, to the log block.
  public func log(_ text: String, data: Data? = nil, maxBytes: Int? = 80) {
    let sink = sinks.withLock { $0.opened ? $0.logBlock : nil }
    sink?(Self.line(text, data, maxBytes))
  }

  /// Passes the line to the write-log block.
  public func wLog(_ text: String, data: Data? = nil, maxBytes: Int? = 80) {
    let sink = sinks.withLock { $0.opened ? $0.wlogBlock : nil }
    sink?(Self.line(text, data, maxBytes))
  }

  static func line(_ text: String, _ data: Data?, _ maxBytes: Int?) -> String {
    guard let data, !data.isEmpty else { return text }
    let shown = maxBytes.map { data.prefix(max(0, $0)) } ?? data[...]
    let more = shown.count < data.count ? " … (\(data.count) bytes)" : ""
    return text + " " + Data(shown).hexDescription + more
  }
}

/// The app's feature flags, as the vendor's SDK asks for them (not class-bound).
public protocol BleFeatureProvider {
  func isFeatureFlagEnabled(_ key: String) -> Bool
  func getFeatureFlag(_ key: String) -> Any?
  func isAppFeatureConfigEnabled(_ key: String) -> Bool
  func getAppFeatureConfig(_ key: String) -> Any?
}

/// Holds the app's ``BleFeatureProvider``. RecorderKit reads no flag from it: its behaviour
/// does not change by flag.
public final class PenBleConfig {
  private static let provider = Locked<(any BleFeatureProvider)?>(nil)

  private init() {}

  /// The app's feature provider (nil until set).
  public static var featureProvider: (any BleFeatureProvider)? {
    get { provider.current }
    set { provider.withLock { $0 = newValue } }
  }
}
