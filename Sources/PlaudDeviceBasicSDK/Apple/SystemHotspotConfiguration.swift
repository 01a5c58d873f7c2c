#if canImport(NetworkExtension)
  import Foundation
  import NetworkExtension
  import RecorderKit

  /// `NEHotspotConfigurationManager` as a `HotspotConfigurationMirror`: translation only.
  public struct SystemHotspotConfiguration: HotspotConfigurationMirror {
    public init() {}

    public func apply(ssid: String, passphrase: String, joinOnce: Bool) async
      -> HotspotConfigurationFailure?
    {
      let configuration = NEHotspotConfiguration(ssid: ssid, passphrase: passphrase, isWEP: false)
      configuration.joinOnce = joinOnce
      let error: NSError? = await withCheckedContinuation { continuation in
        NEHotspotConfigurationManager.shared.apply(configuration) { error in
          continuation.resume(returning: error as NSError?)
        }
      }
      guard let error else { return nil }
      guard error.domain == NEHotspotConfigurationErrorDomain,
        let code = NEHotspotConfigurationError(rawValue: error.code)
      else { return .other(error.localizedDescription) }
      switch code {
      case .alreadyAssociated: return .alreadyAssociated
      case .userDenied: return .userDenied
      case .invalid, .invalidSSID, .invalidWPAPassphrase: return .invalidConfiguration
      case .applicationIsNotInForeground: return .applicationIsNotInForeground
      case .systemDenied: return .systemDenied
      default: return .other(error.localizedDescription)
      }
    }

    public func removeConfiguration(ssid: String) {
      NEHotspotConfigurationManager.shared.removeConfiguration(forSSID: ssid)
    }
  }
#endif
