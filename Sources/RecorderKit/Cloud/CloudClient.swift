import Foundation
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol

/// The vendor cloud's partner API (PROTOCOL.md §8): device binding and the firmware check
/// and download, over libcurl on Linux and URLSession on Apple platforms.
///
/// - **Domain.** `platform-us.plaud.ai` (no scheme) means `https://platform-us.plaud.ai`;
///   every request goes to `{domain}/developer/api/…`. Plain http is only for loopback
///   hosts (the cloud emulator in tests): a loopback host with a port and no scheme
///   (`127.0.0.1:PORT`) means http, and `http://` elsewhere is refused. Loopback is parsed
///   (`LoopbackHost`: 127.0.0.0/8, `::1`, the name `localhost`), never a text prefix.
/// - **Proxies.** A loopback destination never goes through a proxy, whatever the
///   environment's proxy variables say (its plain-http requests carry the token); any other
///   destination keeps the platform's proxy settings (libcurl's `https_proxy`, `ALL_PROXY`,
///   `NO_PROXY`), the token then inside the TLS tunnel (docs/cloud.md, "Proxies").
/// - **Token.** Every request carries `Authorization: Bearer <user JWT>`. The token in force
///   is read at each attempt, so a token refreshed with ``setUserToken(_:)`` while a request
///   waits to retry is the one its retry uses. A 401 asks ``Configuration/tokenRefresher``
///   (when set) for a new token and retries once with it; otherwise it is
///   ``CloudError/tokenExpired``.
/// - **Retries.** 5xx, timeouts and dropped connections are retried with ``RetryPolicy``
///   (backoff with jitter on the injected clock), then reported as
///   ``CloudError/unavailable(status:attempts:)``. Bind and unbind are idempotent on the
///   server, so a retry after a lost answer is safe.
/// - **Redirects** are never followed: a 3xx is ``CloudError/redirected(status:)``, so the
///   token goes only to the domain it was given for.
/// - **Bounds.** Every request ends within ``Configuration/requestDeadline`` (each firmware
///   download attempt within ``Configuration/downloadDeadline``), whatever the server sends; an
///   API answer over ``maximumAnswerSize`` bytes, or a download past
///   ``FirmwareFile/maximumSize``, is cut off as it arrives and refused with
///   ``CloudError/responseTooLarge(limit:)``.
/// - **Secrets.** Tokens never appear in errors, descriptions or logs.
public actor CloudClient {
  /// Clock, retries, timeouts.
  public struct Configuration: Sendable {
    /// The clock backoff waits on.
    public var clock: AnyClock = .continuous
    public var retry = RetryPolicy()
    /// The longest wait for the next byte of a response (real time, whole seconds, at least
    /// one).
    public var requestTimeout: Duration = .seconds(20)
    /// The longest one API request may take, first byte to last (real time). With the
    /// retries, a call ends within `retry.maximumAttempts` deadlines plus the backoffs.
    public var requestDeadline: Duration = .seconds(60)
    /// The longest one firmware download attempt may take (real time); a cut attempt
    /// resumes where it stopped.
    public var downloadDeadline: Duration = .seconds(600)
    /// The HTTP transport (the platform's; tests run both on Linux).
    var transport: any HTTPTransport = HTTPTransports.platform
    /// Called on a 401: a fresh token, or nil to give up with ``CloudError/tokenExpired``.
    public var tokenRefresher: (@Sendable () async -> UserToken?)?

    public init() {}
  }

  /// `scheme://host[:port]` of the domain.
  public nonisolated let origin: String
  /// `{origin}/developer/api`.
  public nonisolated let apiBase: String

  /// The most bytes of an API answer read (the JSON parser's own limit).
  public static let maximumAnswerSize = 256 * 1024

  private var token: UserToken
  private let configuration: Configuration

  /// A client for `domain` (`platform-us.plaud.ai`; in tests `127.0.0.1:PORT` or
  /// `http://127.0.0.1:PORT`), by the domain rule above.
  /// - Throws: ``CloudError/invalidDomain(_:)``, ``CloudError/insecureURL(_:)``.
  public init(domain: String, userToken: UserToken, configuration: Configuration = .init())
    throws(CloudError)
  {
    origin = try Self.origin(of: domain)
    apiBase = origin + "/developer/api"
    token = userToken
    self.configuration = configuration
  }

  /// Replaces the user token (after the app refreshed it); requests waiting to retry use it.
  public func setUserToken(_ token: UserToken) { self.token = token }

  /// The user token in force.
  public var userToken: UserToken { token }

  // MARK: - Binding

  /// `POST /open/partner/sdk/bind {type, sn}`: registers the device with this user.
  /// Idempotent: binding a device already bound to this user succeeds.
  /// - Throws: ``CloudError/boundToAnotherAccount(serial:)`` (403),
  ///   ``CloudError/tokenExpired`` (401), ``CloudError/unavailable(status:attempts:)``, …
  public func bind(serial: String) async throws(CloudError) {
    try await binding("bind", serial: serial)
  }

  /// `POST /open/partner/sdk/unbind {type, sn}`: removes the device from this user.
  /// Idempotent: unbinding a device that is not bound succeeds.
  /// - Throws: as ``bind(serial:)``.
  public func unbind(serial: String) async throws(CloudError) {
    try await binding("unbind", serial: serial)
  }

  /// `GET /open/partner/sdk/binding?type=&sn=`: `is_bind` (nil when the cloud does not know).
  public func isBound(serial: String) async throws(CloudError) -> Bool? {
    try await bindingStatus(serial: serial).isBound
  }

  /// What the cloud says of `serial`'s binding (PROTOCOL.md §8): `is_bind`, and `bind_history`,
  /// the users it was bound to, newest first, one entry per bind event (so repeated).
  /// Entries that are not strings, or are longer than 256 characters, are skipped; at most
  /// 1,000 are read.
  public func bindingStatus(serial: String) async throws(CloudError) -> CloudBindingStatus {
    let type = CloudDeviceType(serial: serial).rawValue
    let exchange = try await perform(
      "GET", path: "/open/partner/sdk/binding", query: [("type", type), ("sn", serial)])
    try Self.expectSuccess(exchange, serial: serial)
    let body = try Self.json(exchange.body)
    try Self.checkBusinessCode(body)
    let fields = body["data"].flatMap { $0 == .null ? nil : $0 } ?? body
    let isBound: Bool?
    switch fields["is_bind"] {
    case .bool(let value)?: isBound = value
    case .null?, nil: isBound = nil
    default: throw .malformedResponse(reason: "`is_bind` is not a boolean")
    }
    var history: [String] = []
    if case .array(let entries)? = fields["bind_history"] {
      for entry in entries.prefix(1_000) {
        if case .string(let id) = entry, !id.isEmpty, id.count <= 256 { history.append(id) }
      }
    }
    return CloudBindingStatus(isBound: isBound, history: history)
  }

  private func binding(_ action: String, serial: String) async throws(CloudError) {
    let body = JSONValue.object([
      ("type", .string(CloudDeviceType(serial: serial).rawValue)), ("sn", .string(serial)),
    ])
    let exchange = try await perform(
      "POST", path: "/open/partner/sdk/\(action)", body: Array(body.serialized.utf8))
    try Self.expectSuccess(exchange, serial: serial)
    // An empty 2xx body is success; a body must be JSON, and a business code must be 0.
    guard !exchange.body.isEmpty else { return }
    try Self.checkBusinessCode(try Self.json(exchange.body))
  }

  // MARK: - Mode B

  /// `POST /open/partner/sdk/gen-key` `{"public_key": PEM}`: registers the user's Mode B
  /// public key (PROTOCOL.md §8 names the endpoint; the body is this project's choice,
  /// docs/mode-b.md).
  public func registerUserKey(_ key: RSAPublicKey) async throws(CloudError) {
    let pem: String
    do {
      pem = try key.pem()
    } catch {
      throw .malformedResponse(reason: "the public key cannot be written as PEM")
    }
    let body = JSONValue.object([("public_key", .string(pem))])
    let exchange = try await perform(
      "POST", path: "/open/partner/sdk/gen-key", body: Array(body.serialized.utf8))
    try Self.expectSuccess(exchange, serial: "")
    guard !exchange.body.isEmpty else { return }
    try Self.checkBusinessCode(try Self.json(exchange.body))
  }

  /// `POST /open/partner/sdk/sn-sign` `{"type","sn"}` → `data.signature` (base64): the
  /// serial signature Mode B sends as `FE10`, base64-decoded (PROTOCOL.md §9).
  public func serialSignature(serial: String) async throws(CloudError) -> [UInt8] {
    let body = JSONValue.object([
      ("type", .string(CloudDeviceType(serial: serial).rawValue)), ("sn", .string(serial)),
    ])
    let exchange = try await perform(
      "POST", path: "/open/partner/sdk/sn-sign", body: Array(body.serialized.utf8))
    try Self.expectSuccess(exchange, serial: serial)
    let json = try Self.json(exchange.body)
    try Self.checkBusinessCode(json)
    guard let text = json["data"]?["signature"]?.stringValue,
      let bytes = Data(base64Encoded: text)
    else { throw .malformedResponse(reason: "`data.signature` is not base64") }
    return Array(bytes)
  }

  // MARK: - Firmware

  /// `GET /open/partner/sdk/version/latest?type=&sn=&current_version=-1` with the device's
  /// serial signature (base64) in `X-Device-Signature` and no Bearer token (PROTOCOL.md §8)
  /// [sdk-code]: the newest firmware published for the device. `signature` is the one
  /// `sn-sign` gives (Mode B keeps it); nil asks ``serialSignature(serial:)`` for it first.
  /// - Throws: ``CloudError/rejected(code:message:)`` (a business code, or HTTP 401 / 403:
  ///   the signature was refused), ``CloudError/malformedResponse(reason:)``, …
  public func checkFirmware(
    serial: String, current: FirmwareVersion, signature: [UInt8]? = nil
  ) async throws(CloudError) -> FirmwareRelease {
    let signed: [UInt8]
    if let signature {
      signed = signature
    } else {
      signed = try await serialSignature(serial: serial)
    }
    let exchange = try await perform(
      "GET", path: Self.firmwareCheckPath,
      query: [
        ("type", CloudDeviceType(serial: serial).rawValue), ("sn", serial),
        ("current_version", "-1"),
      ],
      headers: [(Self.deviceSignatureHeader, Data(signed).base64EncodedString())],
      bearer: false)
    switch exchange.status {
    case 200..<300: break
    case 401, 403:
      throw .rejected(code: Int64(exchange.status), message: "the serial signature was refused")
    default: throw .unexpectedStatus(exchange.status)
    }
    let body = try Self.json(exchange.body)
    try Self.checkBusinessCode(body)
    return try FirmwareRelease.parse(body, current: current)
  }

  /// The firmware check endpoint under ``apiBase`` (PROTOCOL.md §8) [sdk-code]. The
  /// `/open/partner/sdk/firmware/latest` used before was this project's invention: no
  /// source shows it, so it is gone.
  package static let firmwareCheckPath = "/open/partner/sdk/version/latest"
  /// The header the firmware check carries the serial signature in [sdk-code].
  package static let deviceSignatureHeader = "X-Device-Signature"

  /// Downloads `release` to `path`, resumably: bytes arrive in a fresh private scratch
  /// beside `path` (`DownloadScratch`: a `mkdtemp` directory, the file created exclusively,
  /// 0600, never through a link); a download cut during this call continues with an HTTP
  /// `Range` request, and a server that ignores the range starts it over. The whole file is
  /// then checked against the release's MD5 when it has one (and SHA-256 when given); a
  /// mismatch deletes it.
  /// On success the file is renamed to `path`; the scratch is removed on every path.
  /// `progress` gets the bytes on disk and the total when known. The user's token goes with
  /// the request only when `download_url` is on the API's origin (`CloudOrigin`: scheme,
  /// host and port equal; never a URL with userinfo).
  ///
  /// - Throws: ``CloudError/checksumMismatch(algorithm:)``, ``CloudError/io(path:reason:)``,
  ///   ``CloudError/insecureURL(_:)``, ``CloudError/unavailable(status:attempts:)``, …
  public func download(
    _ release: FirmwareRelease, to path: String,
    progress: @escaping @Sendable (_ bytes: Int64, _ total: Int64?) -> Void = { _, _ in }
  ) async throws(CloudError) -> FirmwareFile {
    let url = try resolve(release.downloadUrl)
    let scratch = try DownloadScratch(beside: path)
    defer { scratch.remove() }
    let part = scratch.part
    let total = Locked<Int64?>(nil)
    return try await configuration.retry.run(on: configuration.clock, cancelled: .cancelled) {
      attempt throws(CloudError) -> RetryOutcome<FirmwareFile, CloudError> in
      let have = Self.fileSize(part)
      var request = HTTPRequestSpec(method: "GET", url: url)
      if CloudOrigin.isSameOrigin(url, as: origin) {
        request.headers.append(("Authorization", "Bearer \(token.jwt)"))
      }
      if have > 0 { request.headers.append(("Range", "bytes=\(have)-")) }
      let bounds = HTTPBounds(
        deadline: configuration.downloadDeadline, idle: configuration.requestTimeout,
        maximumBody: Int64(FirmwareFile.maximumSize))
      let result = await configuration.transport.exchange(
        request, bounds: bounds, sink: .file(path: part)
      ) { bytes in
        progress(bytes, total.withLock { $0 })
      }
      if Task.isCancelled { throw .cancelled }
      let unavailable = { (status: Int?) in
        RetryOutcome<FirmwareFile, CloudError>.failed(
          .unavailable(status: status, attempts: attempt.number))
      }
      switch result {
      case .success(let exchange):
        switch exchange.status {
        case 200, 206:
          if let length = Self.totalLength(exchange, resumedFrom: have) {
            total.withLock { $0 = length }
          }
          let size = Self.fileSize(part)
          // A short body without an error: treat as cut.
          if let expected = total.withLock({ $0 }), size != expected { return unavailable(nil) }
          progress(size, size)
          return .success(try Self.verify(part, release: release, finalPath: path))
        case 416:
          // The range starts past the file the server has: start over.
          try? FileManager.default.removeItem(atPath: part)
          return unavailable(416)
        case 401: throw .tokenExpired
        case 300..<400: throw .redirected(status: exchange.status)
        case 500..<600: return unavailable(exchange.status)
        default: throw .unexpectedStatus(exchange.status)
        }
      case .failure(.cancelled): throw .cancelled
      case .failure(.tooLarge(let limit)):
        try? FileManager.default.removeItem(atPath: part)
        throw .responseTooLarge(limit: limit)
      case .failure(.fatal(let reason)): throw .network(reason)
      case .failure(.timedOut), .failure(.connectionLost): return unavailable(nil)
      }
    }
  }

  // MARK: - Requests

  /// One API request with the retry rules of the type's documentation; returns the final
  /// answer (2xx, or a status the caller interprets).
  /// `bearer` false sends no `Authorization` (the firmware check: its `headers` carry the
  /// device's signature instead), and a 401 is then the caller's to interpret.
  private func perform(
    _ method: String, path: String, query: [(String, String)] = [], body: [UInt8]? = nil,
    headers extra: [(String, String)] = [], bearer: Bool = true
  ) async throws(CloudError) -> HTTPExchange {
    var components = URLComponents()
    components.path = path
    if !query.isEmpty {
      components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
    }
    guard let suffix = components.string, let url = URL(string: apiBase + suffix) else {
      throw .invalidDomain(apiBase)
    }
    var refreshed = false
    return try await configuration.retry.run(on: configuration.clock, cancelled: .cancelled) {
      attempt throws(CloudError) -> RetryOutcome<HTTPExchange, CloudError> in
      // A 401 is asked again in the same try: once for a token replaced meanwhile, once with
      // a refreshed one.
      var resent = false
      while true {
        let used = token
        var request = HTTPRequestSpec(
          method: method, url: url, headers: [("Accept", "application/json")] + extra, body: body)
        if bearer { request.headers.insert(("Authorization", "Bearer \(used.jwt)"), at: 0) }
        if body != nil { request.headers.append(("Content-Type", "application/json")) }
        let bounds = HTTPBounds(
          deadline: configuration.requestDeadline, idle: configuration.requestTimeout,
          maximumBody: Int64(Self.maximumAnswerSize))
        let result = await configuration.transport.exchange(request, bounds: bounds)
        if Task.isCancelled { throw .cancelled }
        switch result {
        case .success(let exchange) where exchange.status == 401 && bearer:
          // Refreshed meanwhile: ask again with the new one.
          if token != used, !resent {
            resent = true
            continue
          }
          guard !refreshed, let refresher = configuration.tokenRefresher,
            let fresh = await refresher(), fresh != used
          else { throw .tokenExpired }
          refreshed = true
          token = fresh
          continue
        case .success(let exchange) where (500..<600).contains(exchange.status):
          return .failed(.unavailable(status: exchange.status, attempts: attempt.number))
        case .success(let exchange) where (300..<400).contains(exchange.status):
          throw .redirected(status: exchange.status)
        case .success(let exchange): return .success(exchange)
        case .failure(.cancelled): throw .cancelled
        case .failure(.tooLarge(let limit)): throw .responseTooLarge(limit: limit)
        case .failure(.fatal(let reason)): throw .network(reason)
        case .failure(.timedOut), .failure(.connectionLost):
          return .failed(.unavailable(status: nil, attempts: attempt.number))
        }
      }
    }
  }

  // MARK: - Helpers

  /// `scheme://host[:port]` for a domain as the app gives it (docs/cloud.md, "The domain
  /// rule"): a domain without a scheme is https, except a loopback host with a port
  /// (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`), which is plain http (the cloud
  /// emulator); an explicit `https://` or loopback `http://` is taken as written.
  /// - Throws: ``CloudError/invalidDomain(_:)``, ``CloudError/insecureURL(_:)``.
  package static func origin(of domain: String) throws(CloudError) -> String {
    let trimmed = domain.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else { throw .invalidDomain(domain) }
    let text = trimmed.contains("://") ? trimmed : defaultScheme(of: trimmed) + "://" + trimmed
    guard let components = URLComponents(string: text),
      let scheme = components.scheme?.lowercased(),
      let host = components.host, !host.isEmpty, components.user == nil,
      components.password == nil, components.query == nil, components.fragment == nil,
      components.path.isEmpty || components.path == "/"
    else { throw .invalidDomain(domain) }
    switch scheme {
    case "https": break
    // Decided on the host as sent (percent escapes kept), the text the transport reads.
    case "http":
      guard LoopbackHost.isLoopback(components.percentEncodedHost ?? "") else {
        throw .insecureURL(trimmed)
      }
    default: throw .invalidDomain(domain)
    }
    let port = components.port.map { ":\($0)" } ?? ""
    return "\(scheme)://\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)\(port)"
  }

  /// `https`, or `http` for a loopback host with a port written without a scheme.
  private static func defaultScheme(of domain: String) -> String {
    guard let components = URLComponents(string: "http://" + domain),
      let host = components.percentEncodedHost, components.port != nil,
      LoopbackHost.isLoopback(host)
    else { return "https" }
    return "http"
  }

  /// `{origin}/developer/api` for a domain as the app gives it (the domain rule of
  /// ``origin(of:)``): what every request of a client made for `domain` starts with.
  /// - Throws: ``CloudError/invalidDomain(_:)``, ``CloudError/insecureURL(_:)``.
  package static func apiBase(forDomain domain: String) throws(CloudError) -> String {
    try origin(of: domain) + "/developer/api"
  }

  /// A download URL: absolute (https, or http on loopback) or a path on the API's origin.
  private func resolve(_ text: String) throws(CloudError) -> URL {
    let absolute = text.hasPrefix("/") ? origin + text : text
    guard let url = URL(string: absolute), let scheme = url.scheme?.lowercased(),
      let host = url.host, !host.isEmpty
    else { throw .malformedResponse(reason: "`download_url` is not a URL") }
    switch scheme {
    case "https": return url
    case "http" where LoopbackHost.isLoopback(url): return url
    case "http": throw .insecureURL(absolute)
    default: throw .malformedResponse(reason: "`download_url` is not http(s)")
    }
  }

  private static func expectSuccess(_ exchange: HTTPExchange, serial: String) throws(CloudError) {
    switch exchange.status {
    case 200..<300: return
    case 403: throw .boundToAnotherAccount(serial: serial)
    default: throw .unexpectedStatus(exchange.status)
    }
  }

  private static func json(_ body: [UInt8]) throws(CloudError) -> JSONValue {
    do {
      return try JSONParser(maxSize: maximumAnswerSize, maxDepth: 16).parse(body)
    } catch {
      throw .malformedResponse(reason: "not JSON (\(error))")
    }
  }

  /// `{"code": N, "msg": …}` with N ≠ 0 is a refusal even under HTTP 200.
  private static func checkBusinessCode(_ body: JSONValue) throws(CloudError) {
    guard case .object = body else { throw .malformedResponse(reason: "not a JSON object") }
    guard let value = body["code"], value != .null else { return }
    guard let code = value.integerValue else {
      throw .malformedResponse(reason: "`code` is not an integer")
    }
    guard code == 0 else {
      let message = body["msg"]?.stringValue ?? body["message"]?.stringValue ?? ""
      throw .rejected(code: code, message: String(message.prefix(200)))
    }
  }

  /// The whole file's length from `Content-Range: bytes a-b/N` or the body's length.
  private static func totalLength(_ exchange: HTTPExchange, resumedFrom have: Int64) -> Int64? {
    if exchange.status == 206, let range = exchange.headers["content-range"],
      let slash = range.lastIndex(of: "/"), let total = Int64(range[range.index(after: slash)...])
    {
      return total
    }
    guard let length = exchange.headers["content-length"].flatMap({ Int64($0) }) else {
      return nil
    }
    return exchange.status == 206 ? have + length : length
  }

  static func fileSize(_ path: String) -> Int64 {
    let attributes = try? FileManager.default.attributesOfItem(atPath: path)
    return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
  }

  private static func verify(_ part: String, release: FirmwareRelease, finalPath: String)
    throws(CloudError) -> FirmwareFile
  {
    let file: FirmwareFile
    do {
      file = try FirmwareFile(path: part, version: release.latestVersion)
    } catch {
      try? FileManager.default.removeItem(atPath: part)
      throw error.asCloudError(path: part)
    }
    // The cloud may publish no MD5 (a NotePin S's release had none, PROTOCOL.md §8).
    guard release.md5.isEmpty || file.md5 == release.md5.lowercased() else {
      try? FileManager.default.removeItem(atPath: part)
      throw .checksumMismatch(algorithm: "MD5")
    }
    if let sha256 = release.sha256, file.sha256 != sha256.lowercased() {
      try? FileManager.default.removeItem(atPath: part)
      throw .checksumMismatch(algorithm: "SHA-256")
    }
    try DownloadScratch.publish(part, to: finalPath)
    return file.moved(to: finalPath)
  }
}

/// The cloud's word on a device's binding (``CloudClient/bindingStatus(serial:)``).
public struct CloudBindingStatus: Sendable, Equatable {
  /// True: bound to an account now (only that account can unbind it); nil: unknown.
  public var isBound: Bool?
  /// The user ids it was bound to, newest first, one entry per bind event.
  public var history: [String]
}
