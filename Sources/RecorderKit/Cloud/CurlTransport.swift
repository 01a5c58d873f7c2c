#if canImport(CCurl)
  import CCurl
  import Dispatch
  import Foundation
  import RecorderConcurrency

  /// ``HTTPTransport`` on libcurl's easy interface. Each exchange runs `curl_easy_perform` on
  /// a dispatch thread, which sleeps in `poll` while the server is silent (no busy loop);
  /// cancellation is seen by the progress callback within about a second. Redirects are not
  /// followed, only http and https are spoken, bodies are never decompressed, and no signal
  /// is used for timeouts (`CURLOPT_NOSIGNAL`), so it is safe on any thread.
  ///
  /// Proxies: a loopback destination (`LoopbackHost`: the cloud emulator, where the token
  /// travels in plain http) never goes through one, whatever `http_proxy`, `HTTPS_PROXY` or
  /// `ALL_PROXY` say (`CURLOPT_PROXY` set empty), so the token is never handed in clear to a
  /// proxy. Every other destination (https only) keeps libcurl's proxy variables, as a
  /// gateway's administrator expects (docs/linux-gateway.md, "Proxies"); the token then
  /// crosses the proxy inside the TLS tunnel (`CONNECT`).
  struct CurlTransport: HTTPTransport {
    /// `curl_global_init`, once, before the first handle.
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    func exchange(
      _ request: HTTPRequestSpec, bounds: HTTPBounds, sink: HTTPBodySink,
      received: @escaping @Sendable (Int64) -> Void
    ) async -> Result<HTTPExchange, HTTPTransportFailure> {
      guard Self.initialised else { return .failure(.fatal("libcurl did not initialise")) }
      guard request.headers.allSatisfy(HTTPTransports.isSafe) else {
        return .failure(.fatal("a header field holds a line break"))
      }
      let cancelled = Locked(false)
      // The result crosses from the dispatch thread through a lock: an explicit
      // happens-before edge for ThreadSanitizer besides the continuation's.
      let box = Locked<Result<HTTPExchange, HTTPTransportFailure>?>(nil)
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          DispatchQueue.global().async {
            let transfer = CurlTransfer(
              sink: sink, bounds: bounds, cancelled: cancelled, received: received)
            let result = transfer.perform(request)
            box.withLock { $0 = result }
            continuation.resume()
          }
        }
      } onCancel: {
        cancelled.withLock { $0 = true }
      }
      return box.withLock { $0 } ?? .failure(.cancelled)
    }
  }

  /// One exchange's state, owned by the thread running `curl_easy_perform` (the callbacks run
  /// on it too); only `cancelled` is shared, through its lock.
  private final class CurlTransfer {
    let sink: HTTPBodySink
    let bounds: HTTPBounds
    let cancelled: Locked<Bool>
    let received: @Sendable (Int64) -> Void

    var handle: UnsafeMutableRawPointer?
    var status = 0
    var headers: [String: String] = [:]
    var headerBytes = 0
    var body: [UInt8] = []
    var file: HTTPFileWriter?
    /// Why a callback stopped the transfer, when one did.
    var stop: HTTPTransportFailure?
    /// The body was not wanted: stopping at its first byte is success.
    var discarded = false

    init(
      sink: HTTPBodySink, bounds: HTTPBounds, cancelled: Locked<Bool>,
      received: @escaping @Sendable (Int64) -> Void
    ) {
      self.sink = sink
      self.bounds = bounds
      self.cancelled = cancelled
      self.received = received
    }

    func perform(_ request: HTTPRequestSpec) -> Result<HTTPExchange, HTTPTransportFailure> {
      guard let easy = curl_easy_init() else { return .failure(.fatal("curl_easy_init failed")) }
      handle = easy
      var list: UnsafeMutablePointer<curl_slist>?
      defer {
        curl_slist_free_all(list)
        curl_easy_cleanup(easy)
        if let failure = file?.close(), stop == nil { stop = .fatal(failure) }
      }
      for field in request.headers {
        list = curl_slist_append(list, "\(field.name): \(field.value)")
      }
      // No `Expect: 100-continue` round trip before a body.
      list = curl_slist_append(list, "Expect:")
      let context = Unmanaged.passUnretained(self).toOpaque()
      let deadline = Self.milliseconds(bounds.deadline)
      var failed = false
      func set(_ code: CURLcode) { if code != CURLE_OK { failed = true } }
      set(rk_curl_set_pointer(easy, CURLOPT_URL, request.url.absoluteString))
      set(rk_curl_set_pointer(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
      if LoopbackHost.isLoopback(request.url) {
        set(rk_curl_set_pointer(easy, CURLOPT_PROXY, ""))
      }
      set(rk_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0))
      set(rk_curl_set_long(easy, CURLOPT_NOSIGNAL, 1))
      set(rk_curl_set_long(easy, CURLOPT_TIMEOUT_MS, deadline))
      set(
        rk_curl_set_long(
          easy, CURLOPT_CONNECTTIMEOUT_MS, min(deadline, Self.milliseconds(bounds.idle))))
      set(rk_curl_set_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1))
      set(
        rk_curl_set_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int(bounds.idle.components.seconds))))
      set(rk_curl_set_pointer(easy, CURLOPT_USERAGENT, "RecorderKit"))
      set(rk_curl_set_pointer(easy, CURLOPT_HTTPHEADER, list))
      set(rk_curl_set_data_callback(easy, CURLOPT_HEADERFUNCTION, curlHeaderCallback))
      set(rk_curl_set_pointer(easy, CURLOPT_HEADERDATA, context))
      set(rk_curl_set_data_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback))
      set(rk_curl_set_pointer(easy, CURLOPT_WRITEDATA, context))
      set(rk_curl_set_long(easy, CURLOPT_NOPROGRESS, 0))
      set(rk_curl_set_progress_callback(easy, curlProgressCallback))
      set(rk_curl_set_pointer(easy, CURLOPT_XFERINFODATA, context))
      if case .memory = sink {
        set(rk_curl_set_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(bounds.maximumBody)))
      }
      switch (request.method, request.body) {
      case ("GET", nil):
        set(rk_curl_set_long(easy, CURLOPT_HTTPGET, 1))
      case ("POST", let body):
        let bytes = body ?? []
        set(rk_curl_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
        // Copied by libcurl: the array need not outlive this call.
        set(
          bytes.withUnsafeBytes {
            rk_curl_set_pointer(
              easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1))
          })
      default:
        return .failure(.fatal("unsupported request: \(request.method)"))
      }
      guard !failed else { return .failure(.fatal("libcurl refused an option")) }

      let code = curl_easy_perform(easy)
      if let stop { return .failure(stop) }
      if code == CURLE_OK || (code == CURLE_WRITE_ERROR && discarded) {
        return .success(HTTPExchange(status: status, headers: headers, body: body))
      }
      return .failure(Self.failure(code, limit: bounds.maximumBody))
    }

    /// Header lines arrive one per call; a status line starts a new block (after a 1xx), and
    /// the blank line ends it.
    func header(_ line: UnsafeRawBufferPointer) -> Bool {
      headerBytes += line.count
      guard headerBytes <= HTTPTransportLimits.headerBytes else {
        stop = .tooLarge(limit: Int64(HTTPTransportLimits.headerBytes))
        return false
      }
      let text = String(decoding: line, as: UTF8.self).trimmingCharacters(
        in: .whitespacesAndNewlines)
      if text.hasPrefix("HTTP/") {
        headers = [:]
        return true
      }
      if text.isEmpty {
        return endOfHeaders()
      }
      guard let colon = text.firstIndex(of: ":") else { return true }
      let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
      let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      headers[name] = value
      return true
    }

    private func endOfHeaders() -> Bool {
      var code = 0
      if let handle { _ = rk_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &code) }
      guard code >= 200 else { return true }  // 1xx: the final answer follows
      status = code
      guard case .file(let path) = sink, status == 200 || status == 206 else { return true }
      let writer = HTTPFileWriter()
      if let failure = writer.open(path, status: status) {
        stop = .fatal("\(failure): \(path)")
        return false
      }
      guard writer.size <= bounds.maximumBody else {
        stop = .tooLarge(limit: bounds.maximumBody)
        return false
      }
      file = writer
      received(writer.size)
      return true
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
      switch sink {
      case .discard:
        discarded = true
        return false
      case .memory:
        guard Int64(body.count + bytes.count) <= bounds.maximumBody else {
          stop = .tooLarge(limit: bounds.maximumBody)
          return false
        }
        body += bytes
        return true
      case .file:
        guard let file else {
          if body.count < HTTPTransportLimits.errorBody {
            body += bytes.prefix(HTTPTransportLimits.errorBody - body.count)
          }
          return true
        }
        guard file.size + Int64(bytes.count) <= bounds.maximumBody else {
          stop = .tooLarge(limit: bounds.maximumBody)
          return false
        }
        if let failure = file.write(bytes) {
          stop = .fatal(failure)
          return false
        }
        received(file.size)
        return true
      }
    }

    var isCancelled: Bool { cancelled.withLock { $0 } }

    static func milliseconds(_ duration: Duration) -> Int {
      let (seconds, attoseconds) = duration.components
      return max(1, Int(clamping: seconds) &* 1000 &+ Int(attoseconds / 1_000_000_000_000_000))
    }

    static func failure(_ code: CURLcode, limit: Int64) -> HTTPTransportFailure {
      switch code {
      case CURLE_OPERATION_TIMEDOUT: return .timedOut
      case CURLE_ABORTED_BY_CALLBACK: return .cancelled
      case CURLE_FILESIZE_EXCEEDED: return .tooLarge(limit: limit)
      case CURLE_COULDNT_CONNECT, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE,
        CURLE_GOT_NOTHING:
        return .connectionLost
      default:
        return .fatal(String(cString: curl_easy_strerror(code)))
      }
    }
  }

  private func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer {
    Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
  }

  private let curlHeaderCallback: rk_curl_data_callback = { data, size, count, context in
    let length = size * count
    let line = UnsafeRawBufferPointer(start: data, count: length)
    return transfer(context).header(line) ? length : 0
  }

  private let curlWriteCallback: rk_curl_data_callback = { data, size, count, context in
    let length = size * count
    let bytes = UnsafeRawBufferPointer(start: data, count: length)
    return transfer(context).write(bytes) ? length : 0
  }

  private let curlProgressCallback: rk_curl_progress_callback = { context, _, _, _, _ in
    transfer(context).isCancelled ? 1 : 0
  }
#endif
