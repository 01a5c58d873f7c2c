import Foundation
import RecorderConcurrency
import RecorderKit

/// Which cloud domain the SDK's requests go to (the vendor's domain manager).
///
/// The domain in force is the custom domain when one is set
/// (``setCustomDomain(_:)``, or `initSDK`'s `customDomain`, which sets it on the agent's
/// manager), else the current region's. Every cloud request of the agent that owns this
/// manager (firmware check and download, Mode B serial signatures, binding) goes to
/// ``getCurrentBaseURL()``, by RecorderKit's domain rule (docs/cloud.md, "The domain rule"):
/// a domain without a scheme is https, except a loopback host with a port (`127.0.0.1:PORT`,
/// `localhost:PORT`, `[::1]:PORT`), which is plain http.
///
/// **Regions.** Only the US domain, `platform-us.plaud.ai`, is known from the vendor's
/// sources (PROTOCOL.md §8, the template app). No source of ours names the `cn` or `jp`
/// domain, so none is invented: for those regions ``getDomain(for:)`` answers the custom
/// domain when one is set, else ``unknownDomain`` (the empty string), and a request made
/// then fails with an invalid-domain reason instead of going somewhere guessed.
///
/// ``shared`` is the manager of `PlaudDeviceAgent.shared` (unless its configuration names
/// another, ``PlaudSDKConfiguration/domainManager``). Safe to use from any thread.
public final class PlaudDomainManager: NSObject, Sendable {
  /// The vendor's regions.
  public enum Region: String, CaseIterable, Sendable {
    case cn
    case us
    case jp
  }

  /// The manager of `PlaudDeviceAgent.shared`.
  public static let shared = PlaudDomainManager()

  /// What ``getDomain(for:)`` answers for a region whose domain no source of ours knows
  /// (and no custom domain is set): the empty string.
  public static let unknownDomain = ""

  /// The domains the vendor's sources name [sdk]: the US one only.
  static let knownDomains: [Region: String] = [.us: "platform-us.plaud.ai"]

  private struct State {
    var customDomain: String?
    var region: Region = .us
    var autoLanguageAssociation = false
  }
  private let state = Locked(State())
  /// The language code of the phone (replaceable in tests).
  private let languageCode: @Sendable () -> String

  /// RecorderKit addition: a manager of its own (for an agent made with
  /// `PlaudDeviceAgent(configuration:)`); the vendor has only ``shared``. Starts with no
  /// custom domain, region `us`, language association off.
  public override convenience init() {
    self.init(languageCode: { Self.systemLanguageCode() })
  }

  init(languageCode: @escaping @Sendable () -> String) {
    self.languageCode = languageCode
    super.init()
  }

  // MARK: - Domain

  /// Sends every request to `domain` from now on (no scheme: `platform-us.plaud.ai`; the
  /// cloud emulator: `127.0.0.1:PORT`). An empty or blank domain removes the custom
  /// domain (the region's is used again).
  public func setCustomDomain(_ domain: String) {
    let trimmed = domain.trimmingCharacters(in: .whitespacesAndNewlines)
    state.withLock { $0.customDomain = trimmed.isEmpty ? nil : trimmed }
  }

  /// The domain requests go to now: the custom domain, else the current region's (or
  /// ``unknownDomain`` for a region whose domain is unknown).
  public func getCurrentDomain() -> String {
    let (custom, region) = state.withLock { ($0.customDomain, $0.region) }
    return custom ?? Self.knownDomains[region] ?? Self.unknownDomain
  }

  /// `{origin}/developer/api` of ``getCurrentDomain()``; the empty string when the domain is
  /// unknown or not a domain.
  public func getCurrentBaseURL() -> String { Self.baseURL(of: getCurrentDomain()) }

  /// `region`'s domain: the known one (`us`), else the custom domain when set, else
  /// ``unknownDomain``.
  public func getDomain(for region: Region) -> String {
    Self.knownDomains[region] ?? state.withLock { $0.customDomain } ?? Self.unknownDomain
  }

  /// `{origin}/developer/api` of ``getDomain(for:)`` (empty when unknown).
  public func getBaseURL(for region: Region) -> String {
    Self.baseURL(of: getDomain(for: region))
  }

  /// ``getCurrentBaseURL()`` followed by `path` (a `/` is put between when missing); the
  /// empty string when the base is unknown.
  public func buildAPIURL(path: String) -> String { Self.join(getCurrentBaseURL(), path) }

  /// ``getBaseURL(for:)`` followed by `path`.
  public func buildAPIURL(path: String, for region: Region) -> String {
    Self.join(getBaseURL(for: region), path)
  }

  /// The base URL of the region of `languageCode` (``setRegionForLanguage(_:)``'s mapping)
  /// followed by `path`.
  public func buildAPIURL(path: String, for languageCode: String) -> String {
    buildAPIURL(path: path, for: Self.region(forLanguage: languageCode))
  }

  // MARK: - Region and language

  /// Selects `region`: its domain is used when no custom domain is set.
  public func setRegion(_ region: Region) { state.withLock { $0.region = region } }

  /// The region selected (``setRegion(_:)``, ``setRegionForLanguage(_:)``, or the phone's
  /// language when language association was turned on); `us` at first.
  public func getCurrentRegion() -> Region { state.withLock { $0.region } }

  /// Selects the region of `languageCode`: `zh…` `cn`, `ja…` `jp`, anything else `us`. This
  /// mapping is RecorderKit's reading of the vendor's three regions (no source states it).
  public func setRegionForLanguage(_ languageCode: String) {
    setRegion(Self.region(forLanguage: languageCode))
  }

  /// Turns language association on or off (off at first). When turned on, the region of
  /// the phone's language (``getRegionForCurrentLanguage()``) is selected at once.
  public func setAutoLanguageAssociation(_ enabled: Bool) {
    let region = enabled ? getRegionForCurrentLanguage() : nil
    state.withLock { state in
      state.autoLanguageAssociation = enabled
      if let region { state.region = region }
    }
  }

  public func isAutoLanguageAssociationEnabled() -> Bool {
    state.withLock { $0.autoLanguageAssociation }
  }

  /// The region of ``getCurrentLanguageCode()`` by ``setRegionForLanguage(_:)``'s mapping.
  public func getRegionForCurrentLanguage() -> Region {
    Self.region(forLanguage: getCurrentLanguageCode())
  }

  /// The phone's language code (`en`, `zh`, `ja`, …; `en` when the system names none).
  public func getCurrentLanguageCode() -> String { languageCode() }

  // MARK: - Rules

  static func region(forLanguage code: String) -> Region {
    let lower = code.lowercased()
    if lower.hasPrefix("zh") { return .cn }
    if lower.hasPrefix("ja") { return .jp }
    return .us
  }

  static func baseURL(of domain: String) -> String {
    guard !domain.isEmpty, let base = try? CloudClient.apiBase(forDomain: domain) else {
      return ""
    }
    return base
  }

  static func join(_ base: String, _ path: String) -> String {
    guard !base.isEmpty else { return "" }
    return path.hasPrefix("/") ? base + path : base + "/" + path
  }

  static func systemLanguageCode() -> String {
    let identifier = Locale.preferredLanguages.first ?? Locale.current.identifier
    let code = identifier.split(whereSeparator: { $0 == "-" || $0 == "_" }).first
    return code.map { String($0).lowercased() } ?? "en"
  }
}
