// swift-format-ignore-file
// A stand-in for Apple's NetworkExtension: declarations only, with the signatures of Apple's
// documentation, for the API the hotspot binding uses (AppleBindingTypeCheckTests). Never run.
import Foundation

open class NEHotspotConfiguration: NSObject {
  public init(ssid SSID: String, passphrase: String, isWEP: Bool) { fatalError("stand-in") }
  open var joinOnce: Bool = false
}

open class NEHotspotConfigurationManager: NSObject {
  open class var shared: NEHotspotConfigurationManager { fatalError("stand-in") }
  open func apply(
    _ configuration: NEHotspotConfiguration,
    completionHandler: (@Sendable ((any Error)?) -> Void)? = nil)
  {}
  open func removeConfiguration(forSSID SSID: String) {}
}

public enum NEHotspotConfigurationError: Int, @unchecked Sendable {
  case invalid = 0, invalidSSID, invalidWPAPassphrase, invalidWEPPassphrase, invalidEAPSettings
  case invalidHS20Settings, invalidHS20DomainName, userDenied, `internal`, pending
  case systemConfiguration, unknown, joinOnceNotSupported, alreadyAssociated
  case applicationIsNotInForeground, invalidSSIDPrefix, userUnauthorized, systemDenied
}

public let NEHotspotConfigurationErrorDomain: String = "NEHotspotConfigurationErrorDomain"
