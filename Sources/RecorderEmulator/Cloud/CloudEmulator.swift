import Foundation
import RecorderConcurrency
import RecorderCrypto
import RecorderProtocol
import RecorderSockets
import RecorderWebSocket

/// The vendor cloud's partner API as this project understands it (PROTOCOL.md §8,
/// docs/cloud.md), on loopback plain HTTP, for tests and `recorder emulate --cloud`.
///
/// Endpoints under `/developer/api`:
/// - `POST /open/partner/sdk/bind` and `/unbind`, Bearer user JWT, JSON `{"type","sn"}`:
///   401 for an unknown or expired token, 400 for a malformed body or a type that does not
///   match the serial, 403 when the device is bound to another user; idempotent otherwise.
/// - `GET /open/partner/sdk/binding?type=&sn=` → `{"code":0,"data":{"is_bind":…}}`.
/// - `GET /open/partner/sdk/firmware/latest?type=&sn=&version=` (this project's choice) →
///   `{"code":0,"data":{version_number, version_code, version_description, is_force,
///   file_md5, file_sha256, download_url}}`, or `"data":null` when nothing is published.
/// - `GET /firmware/<name>` (outside the API, no token needed): the image, with `Range`.
/// - Mode B (this project's choice of shapes, docs/mode-b.md): `POST /open/partner/sdk/gen-key`
///   `{"public_key": PEM}` stores the user's public key; `POST /open/partner/sdk/sn-sign`
///   `{"type","sn"}` → `{"code":0,"data":{"signature": base64}}`, the serial signed with a
///   secret of this emulator (SHA-256 of secret ‖ serial: nothing a device checks).
///
/// Tokens are issued here (``issueToken(userID:)``): JWT-shaped, `sub` =
/// `client_user_<userID>`, signed with nothing a client could check. Faults
/// (``CloudFaults``) make it fail the ways a real server does.
public final class CloudEmulator: Sendable {
  /// `http://127.0.0.1:PORT`: the domain to give a client.
  public let url: String
  public var port: UInt16 { server.port }

  private struct Firmware {
    var version: FirmwareVersion
    var notes: String
    var force: Bool
    var image: [UInt8]
    var md5: String
    var sha256: String
    var name: String
    /// Whether the check's answer carries `file_md5` and `file_sha256`.
    var publishesDigests: Bool
  }

  private struct State {
    /// Token → user id, and the tokens that expired.
    var tokens: [String: String] = [:]
    var expired: Set<String> = []
    var nextToken = 0
    /// Serial → user id.
    var bindings: [String: String] = [:]
    /// Every user a serial was bound to, one entry per bind, oldest first.
    var bindHistory: [String: [String]] = [:]
    /// Device type → latest firmware.
    var firmware: [String: Firmware] = [:]
    var faults = CloudFaults.none
    var log: [CloudRequestRecord] = []
    /// User id → the Mode B public key it registered (gen-key).
    var userKeys: [String: RSAPublicKey] = [:]
    /// What sn-sign signs with.
    var signingSecret: [UInt8] = (try? SecureRandom.bytes(32)) ?? Array(repeating: 7, count: 32)
  }

  /// Everything mutable; handlers run on any thread.
  private let state = Locked(State())
  private let server: HTTPServer

  /// Starts serving on `host` (loopback by default), port `port` (0: any free one).
  /// - Parameters:
  ///   - host: the address to listen on.
  ///   - port: the port (0: any free one).
  ///   - clock: the clock of trickled bodies and request timeouts.
  /// - Throws: `SocketError` when the address cannot be bound.
  public init(host: String = "127.0.0.1", port: UInt16 = 0, clock: AnyClock = .continuous)
    throws(SocketError)
  {
    let state = self.state
    server = try HTTPServer(host: host, port: port, clock: clock) { request in
      Self.handle(request, state: state)
    }
    url = "http://\(host):\(server.port)"
  }

  /// Stops serving. Idempotent.
  public func stop() { server.stop() }

  // MARK: - Driving it

  /// A new user token for `userID` (a JWT whose `sub` is `client_user_<userID>`).
  public func issueToken(userID: String) -> String {
    let serial = state.withLock { state -> Int in
      state.nextToken += 1
      return state.nextToken
    }
    let header = Self.base64URL(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    let claims = JSONValue.object([
      ("sub", .string("client_user_" + userID)), ("iat", .int(1_775_395_281)),
      ("exp", .int(1_775_395_281 + 3600)), ("jti", .int(Int64(serial))),
    ])
    let payload = Self.base64URL(Array(claims.serialized.utf8))
    let signature = Self.base64URL(Digest.sha256(Array("\(header).\(payload)".utf8)))
    let token = "\(header).\(payload).\(signature)"
    state.withLock { $0.tokens[token] = userID }
    return token
  }

  /// The cloud stops accepting `token` (401 from now on).
  public func expire(_ token: String) { _ = state.withLock { $0.expired.insert(token) } }

  /// Binds `serial` to `userID` as if another app had (for 403 tests).
  public func setBinding(serial: String, userID: String?) {
    state.withLock { state in
      state.bindings[serial] = userID
      if let userID { state.bindHistory[serial, default: []].append(userID) }
    }
  }

  /// The user `serial` is bound to, if any.
  public func binding(of serial: String) -> String? { state.withLock { $0.bindings[serial] } }

  /// Publishes `image` as the latest firmware `version` for devices of `type` (`note`,
  /// `notepin`, …). `md5` overrides the published MD5 (to publish a wrong one);
  /// `publishesDigests` false leaves `file_md5` (and `file_sha256`) out of the check's answer,
  /// as the real cloud did for a NotePin S (PROTOCOL.md §8) [client].
  public func publishFirmware(
    type: String, version: FirmwareVersion, image: [UInt8], notes: String = "", force: Bool = false,
    md5: String? = nil, publishesDigests: Bool = true
  ) {
    let name = "\(type)-\(version.description).bin"
    let firmware = Firmware(
      version: version, notes: notes, force: force, image: image,
      md5: md5 ?? Digest.md5(image).hexDigits(), sha256: Digest.sha256(image).hexDigits(),
      name: name, publishesDigests: publishesDigests)
    state.withLock { $0.firmware[type] = firmware }
  }

  /// Replaces the faults in force.
  public func setFaults(_ faults: CloudFaults) { state.withLock { $0.faults = faults } }

  /// Every request served, oldest first (method, path, Range, status: never a token).
  public var requestLog: [CloudRequestRecord] { state.withLock { $0.log } }

  // MARK: - Serving

  private static let api = "/developer/api"
  /// The firmware check under ``api`` (PROTOCOL.md §8) [sdk-code].
  private static let firmwareCheck = "/open/partner/sdk/version/latest"
  /// The header that carries the serial signature, base64 [sdk-code].
  private static let deviceSignatureHeader = "X-Device-Signature"

  private static func handle(_ request: HTTPRequest, state: Locked<State>) -> HTTPResponse {
    let response = route(request, state: state)
    state.withLock {
      $0.log.append(
        CloudRequestRecord(
          method: request.method, path: request.path, range: request.header("Range"),
          status: response.status))
    }
    return response
  }

  private static func route(_ request: HTTPRequest, state: Locked<State>) -> HTTPResponse {
    let path = request.path
    if path.hasPrefix("/firmware/") { return serveImage(request, state: state) }
    guard path.hasPrefix(api) else { return .json(404, #"{"code":404,"msg":"not found"}"#) }
    if let fault = apiFault(state) { return fault }
    let endpoint = String(path.dropFirst(api.count))
    // The firmware check is signed by the device's serial signature, not a user token
    // (PROTOCOL.md §8) [sdk-code].
    if endpoint == firmwareCheck {
      guard request.method == "GET" else {
        return .json(405, #"{"code":405,"msg":"method not allowed"}"#)
      }
      return latestFirmware(request, state: state)
    }
    let user: String
    switch authenticate(request, state: state) {
    case .success(let id): user = id
    case .failure(let failure): return failure.response
    }
    switch (request.method, endpoint) {
    case ("POST", "/open/partner/sdk/bind"): return bind(request, user: user, state: state)
    case ("POST", "/open/partner/sdk/unbind"): return unbind(request, user: user, state: state)
    case ("GET", "/open/partner/sdk/binding"): return bindingStatus(request, state: state)
    case ("POST", "/open/partner/sdk/gen-key"):
      return registerKey(request, user: user, state: state)
    case ("POST", "/open/partner/sdk/sn-sign"): return signSerial(request, state: state)
    case (_, "/open/partner/sdk/gen-key"), (_, "/open/partner/sdk/sn-sign"),
      (_, "/open/partner/sdk/bind"), (_, "/open/partner/sdk/unbind"),
      (_, "/open/partner/sdk/binding"):
      return .json(405, #"{"code":405,"msg":"method not allowed"}"#)
    default: return .json(404, #"{"code":404,"msg":"not found"}"#)
    }
  }

  /// The fault the next API request suffers, if any (one count spent).
  private static func apiFault(_ state: Locked<State>) -> HTTPResponse? {
    state.withLock { state -> HTTPResponse? in
      if state.faults.serverErrors > 0 {
        state.faults.serverErrors -= 1
        return .json(503, #"{"code":503,"msg":"service unavailable"}"#)
      }
      if state.faults.stalledResponses > 0 {
        state.faults.stalledResponses -= 1
        var response = HTTPResponse.json(200, #"{"code":0,"msg":"success"}"#)
        response.delivery = .stalled
        return response
      }
      if state.faults.malformedBodies > 0 {
        state.faults.malformedBodies -= 1
        return .json(200, #"{"code":0,"data":{"is_bind":tru"#)
      }
      return nil
    }
  }

  private static func authenticate(_ request: HTTPRequest, state: Locked<State>) -> Result<
    String, ResponseFailure
  > {
    guard let header = request.header("Authorization"), header.hasPrefix("Bearer ") else {
      return .failure(ResponseFailure(.json(401, #"{"code":401,"msg":"missing token"}"#)))
    }
    let token = String(header.dropFirst("Bearer ".count))
    return state.withLock { state in
      guard let user = state.tokens[token] else {
        return .failure(ResponseFailure(.json(401, #"{"code":401,"msg":"invalid token"}"#)))
      }
      guard !state.expired.contains(token) else {
        return .failure(ResponseFailure(.json(401, #"{"code":401,"msg":"token expired"}"#)))
      }
      return .success(user)
    }
  }

  /// `{type, sn}` from a request body, or the 400 answer.
  private static func device(_ request: HTTPRequest) -> Result<String, ResponseFailure> {
    guard let body = try? JSONParser(maxSize: 4096, maxDepth: 4).parse(request.body),
      let type = body["type"]?.stringValue, let serial = body["sn"]?.stringValue,
      !serial.isEmpty, serial.utf8.count <= 64
    else {
      return .failure(ResponseFailure(.json(400, #"{"code":400,"msg":"malformed body"}"#)))
    }
    guard type == deviceType(serial) else {
      return .failure(
        ResponseFailure(.json(400, #"{"code":400,"msg":"type does not match the serial"}"#)))
    }
    return .success(serial)
  }

  private static func bind(_ request: HTTPRequest, user: String, state: Locked<State>)
    -> HTTPResponse
  {
    setBinding(request, to: user, by: user, state: state)
  }

  private static func unbind(_ request: HTTPRequest, user: String, state: Locked<State>)
    -> HTTPResponse
  {
    setBinding(request, to: nil, by: user, state: state)
  }

  /// Binds the request's device to `owner` (nil: unbinds it) for `user`: refused with 403
  /// when another account holds it; idempotent otherwise.
  private static func setBinding(
    _ request: HTTPRequest, to owner: String?, by user: String, state: Locked<State>
  ) -> HTTPResponse {
    let serial: String
    switch device(request) {
    case .success(let value): serial = value
    case .failure(let failure): return failure.response
    }
    return state.withLock { state in
      if let holder = state.bindings[serial], holder != user {
        return .json(403, #"{"code":403,"msg":"device bound to another account"}"#)
      }
      state.bindings[serial] = owner
      if let owner { state.bindHistory[serial, default: []].append(owner) }
      return .json(200, #"{"code":0,"msg":"success"}"#)
    }
  }

  /// gen-key: stores the user's Mode B public key.
  private static func registerKey(_ request: HTTPRequest, user: String, state: Locked<State>)
    -> HTTPResponse
  {
    guard let body = try? JSONParser(maxSize: 16384, maxDepth: 4).parse(request.body),
      let pem = body["public_key"]?.stringValue, let key = try? RSAPublicKey(pem: pem)
    else { return .json(400, #"{"code":400,"msg":"public_key is not a PEM public key"}"#) }
    state.withLock { $0.userKeys[user] = key }
    return .json(200, #"{"code":0,"msg":"success"}"#)
  }

  /// sn-sign: the serial's signature, base64.
  private static func signSerial(_ request: HTTPRequest, state: Locked<State>) -> HTTPResponse {
    let serial: String
    switch device(request) {
    case .success(let value): serial = value
    case .failure(let failure): return failure.response
    }
    let secret = state.withLock { $0.signingSecret }
    let signature = Data(signature(of: serial, secret: secret)).base64EncodedString()
    return .json(200, #"{"code":0,"data":{"signature":"\#(signature)"}}"#)
  }

  static func signature(of serial: String, secret: [UInt8]) -> [UInt8] {
    Digest.sha256(secret + Array(serial.utf8))
  }

  /// The Mode B public key `userID` registered with gen-key, if any.
  public func userPublicKey(of userID: String) -> RSAPublicKey? {
    state.withLock { $0.userKeys[userID] }
  }

  /// The signature sn-sign gives for `serial`.
  public func serialSignature(for serial: String) -> [UInt8] {
    Self.signature(of: serial, secret: state.withLock { $0.signingSecret })
  }

  private static func bindingStatus(_ request: HTTPRequest, state: Locked<State>) -> HTTPResponse {
    guard let serial = request.query["sn"], !serial.isEmpty else {
      return .json(400, #"{"code":400,"msg":"sn is required"}"#)
    }
    let (bound, history) = state.withLock {
      ($0.bindings[serial] != nil, $0.bindHistory[serial, default: []])
    }
    // Newest first, one entry per bind event [sdk-code].
    let entries = JSONValue.array(history.reversed().map { .string($0) }).serialized
    return .json(200, #"{"code":0,"data":{"is_bind":\#(bound),"bind_history":\#(entries)}}"#)
  }

  /// The firmware check: `type`, `sn`, `current_version` and the serial signature sn-sign
  /// gives for `sn` (base64) in `X-Device-Signature`; a missing or wrong signature is 401
  /// [project: the real cloud's refusal is not known]. The answer has the fields of §8:
  /// `version_number` empty, as the real cloud sent it [client]; `file_md5` only when
  /// published.
  private static func latestFirmware(_ request: HTTPRequest, state: Locked<State>) -> HTTPResponse {
    guard let serial = request.query["sn"], !serial.isEmpty else {
      return .json(400, #"{"code":400,"msg":"sn is required"}"#)
    }
    let expected = Data(signature(of: serial, secret: state.withLock { $0.signingSecret }))
    guard let header = request.header(deviceSignatureHeader),
      Data(base64Encoded: header) == expected
    else {
      return .json(401, #"{"code":401,"msg":"invalid device signature"}"#)
    }
    let type = request.query["type"] ?? deviceType(serial)
    guard let firmware = state.withLock({ $0.firmware[type] }) else {
      return .json(200, #"{"code":0,"data":null}"#)
    }
    var fields: [(String, JSONValue)] = [
      ("version_code", .int(Int64(firmware.version.code))),
      ("version_type", .string(String(UnicodeScalar(firmware.version.type)))),
      ("version_number", .string("")),
      ("version_description", .string(firmware.notes)),
      ("download_url", .string("/firmware/\(firmware.name)")),
      ("is_force", .bool(firmware.force)),
      ("is_strong_guidance", .bool(false)),
    ]
    if firmware.publishesDigests {
      fields += [("file_md5", .string(firmware.md5)), ("file_sha256", .string(firmware.sha256))]
    }
    return .json(
      200, JSONValue.object([("code", .int(0)), ("data", .object(fields))]).serialized)
  }

  /// A firmware image, whole or from a `Range: bytes=N-` (206), maybe cut short (a fault).
  private static func serveImage(_ request: HTTPRequest, state: Locked<State>) -> HTTPResponse {
    let name = String(request.path.dropFirst("/firmware/".count))
    let (found, truncate, trickle, pause) = state.withLock {
      state -> (Firmware?, Bool, Int, Duration) in
      let found = state.firmware.values.first { $0.name == name }
      let truncate = found != nil && state.faults.truncatedDownloads > 0
      if truncate { state.faults.truncatedDownloads -= 1 }
      return (found, truncate, state.faults.trickleBytes, state.faults.tricklePause)
    }
    guard request.method == "GET", let firmware = found else {
      return .json(404, #"{"code":404,"msg":"no such file"}"#)
    }
    var response: HTTPResponse
    if let range = request.header("Range") {
      guard let start = rangeStart(range) else {
        return HTTPResponse(
          status: 416, fields: [("Content-Range", "bytes */\(firmware.image.count)")])
      }
      guard start < firmware.image.count else {
        return HTTPResponse(
          status: 416, fields: [("Content-Range", "bytes */\(firmware.image.count)")])
      }
      response = HTTPResponse(
        status: 206,
        fields: [
          ("Content-Type", "application/octet-stream"),
          ("Content-Range", "bytes \(start)-\(firmware.image.count - 1)/\(firmware.image.count)"),
        ],
        body: Array(firmware.image[start...]))
    } else {
      response = HTTPResponse(
        status: 200, fields: [("Content-Type", "application/octet-stream")], body: firmware.image)
    }
    if truncate {
      response.delivery = .truncated(afterBodyBytes: response.body.count / 2)
    } else if trickle > 0 {
      response.delivery = .trickled(chunk: trickle, pause: pause)
    }
    return response
  }

  /// `bytes=N-` → N (the only form a resuming client sends).
  static func rangeStart(_ header: String) -> Int? {
    guard header.hasPrefix("bytes="), header.hasSuffix("-") else { return nil }
    let digits = header.dropFirst("bytes=".count).dropLast()
    guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy(\.isASCII) else { return nil }
    return Int(digits)
  }

  /// The cloud's device type for a serial (PROTOCOL.md §8): the capability table's
  /// (``ModelCapabilities/cloudDeviceType(serial:)``).
  public static func deviceType(_ serial: String) -> String {
    ModelCapabilities.cloudDeviceType(serial: serial)
  }

  static func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
  }
}

/// An early answer (a refusal) carried through `Result`.
private struct ResponseFailure: Error {
  let response: HTTPResponse
  init(_ response: HTTPResponse) { self.response = response }
}
