import Foundation
import RecorderConcurrency

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// ``HTTPTransport`` on URLSession (the transport on Apple platforms; FoundationNetworking on
/// Linux, where tests run it beside libcurl). A delegate refuses every redirect, so the 3xx
/// comes back as the answer; bodies are bounded as they arrive; the deadline cancels the
/// task when it passes.
struct URLSessionTransport: HTTPTransport {
  func exchange(
    _ request: HTTPRequestSpec, bounds: HTTPBounds, sink: HTTPBodySink,
    received: @escaping @Sendable (Int64) -> Void
  ) async -> Result<HTTPExchange, HTTPTransportFailure> {
    guard request.headers.allSatisfy(HTTPTransports.isSafe) else {
      return .failure(.fatal("a header field holds a line break"))
    }
    var urlRequest = URLRequest(url: request.url)
    urlRequest.httpMethod = request.method
    for field in request.headers {
      urlRequest.setValue(field.value, forHTTPHeaderField: field.name)
    }
    urlRequest.httpBody = request.body.map { Data($0) }

    let configuration = URLSessionConfiguration.ephemeral
    // FoundationNetworking arms its timer with whole seconds (a 0.3 s timeout fires at
    // once): round to whole seconds, at least one.
    configuration.timeoutIntervalForRequest = max(1, bounds.idle.seconds.rounded())
    configuration.timeoutIntervalForResource = max(1, bounds.deadline.seconds.rounded(.up))
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    // A loopback destination never through a proxy (the token may travel there in plain
    // http): an empty dictionary is "no proxy", where nil would be the system's settings.
    if LoopbackHost.isLoopback(request.url) { configuration.connectionProxyDictionary = [:] }
    let delegate = BoundedDelegate(sink: sink, bounds: bounds, received: received)
    let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let holder = TaskHolder()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        delegate.onFinish { continuation.resume(returning: $0) }
        let task = session.dataTask(with: urlRequest)
        holder.start(task)
        // The deadline, whatever the resource timeout does on this platform.
        DispatchQueue.global().asyncAfter(deadline: .now() + bounds.deadline.seconds) {
          delegate.deadlinePassed()
          task.cancel()
        }
      }
    } onCancel: {
      holder.cancel()
    }
  }

  static func failure(_ error: any Error) -> HTTPTransportFailure {
    guard let error = error as? URLError else { return .fatal("\(type(of: error))") }
    switch error.code {
    case .cancelled: return .cancelled
    case .timedOut: return .timedOut
    // `unknown`: what FoundationNetworking reports for a body cut short (curl's
    // PARTIAL_FILE), among others; retrying it is bounded.
    case .networkConnectionLost, .cannotConnectToHost, .badServerResponse,
      .cannotParseResponse, .resourceUnavailable, .unknown:
      return .connectionLost
    default: return .fatal("URL error \(error.code.rawValue)")
    }
  }
}

/// A URLSession task that may be cancelled before it exists (cancellation races creation).
private final class TaskHolder: Sendable {
  private struct State {
    var task: URLSessionTask?
    var cancelled = false
  }
  private let state = Locked(State())

  func start(_ task: URLSessionTask) {
    let cancelled = state.withLock { state -> Bool in
      state.task = task
      return state.cancelled
    }
    if cancelled { task.cancel() } else { task.resume() }
  }

  func cancel() {
    let task = state.withLock { state -> URLSessionTask? in
      state.cancelled = true
      return state.task
    }
    task?.cancel()
  }
}

/// Receives one exchange: refuses redirects, bounds the body, writes a file sink's body.
///
/// Thread-safety: URLSession calls it on its delegate queue (serially); `deadlinePassed` and
/// `onFinish` come from other threads. Every stored field but the immutable configuration
/// sits in `state`, behind its lock, and the file writer is only touched inside it.
private final class BoundedDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private struct State {
    var status = 0
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    var file: HTTPFileWriter?
    var stop: HTTPTransportFailure?
    var discarded = false
    var deadlinePassed = false
    var finish: (@Sendable (Result<HTTPExchange, HTTPTransportFailure>) -> Void)?
    var finished = false
  }
  private let state = Locked(State())
  private let sink: HTTPBodySink
  private let bounds: HTTPBounds
  private let received: @Sendable (Int64) -> Void

  init(sink: HTTPBodySink, bounds: HTTPBounds, received: @escaping @Sendable (Int64) -> Void) {
    self.sink = sink
    self.bounds = bounds
    self.received = received
  }

  func onFinish(_ finish: @escaping @Sendable (Result<HTTPExchange, HTTPTransportFailure>) -> Void)
  {
    state.withLock { $0.finish = finish }
  }

  func deadlinePassed() { state.withLock { $0.deadlinePassed = true } }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
  ) {
    // Never follow: the 3xx is the answer.
    completionHandler(nil)
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    let http = response as? HTTPURLResponse
    let status = http?.statusCode ?? 0
    let headers = http.map(Self.headers) ?? [:]
    let allow = state.withLock { state -> Bool in
      state.status = status
      state.headers = headers
      switch sink {
      case .discard:
        state.discarded = true
        return false
      case .memory:
        if response.expectedContentLength > bounds.maximumBody {
          state.stop = .tooLarge(limit: bounds.maximumBody)
          return false
        }
        return true
      case .file(let path):
        guard status == 200 || status == 206 else { return true }
        let writer = HTTPFileWriter()
        if let failure = writer.open(path, status: status) {
          state.stop = .fatal("\(failure): \(path)")
          return false
        }
        guard writer.size <= bounds.maximumBody else {
          state.stop = .tooLarge(limit: bounds.maximumBody)
          return false
        }
        state.file = writer
        return true
      }
    }
    if allow, case .file = sink, let size = state.withLock({ $0.file?.size }) { received(size) }
    completionHandler(allow ? .allow : .cancel)
    // FoundationNetworking may not end a task told `.cancel` until its timeout.
    if !allow { dataTask.cancel() }
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let (keep, size) = state.withLock { state -> (Bool, Int64?) in
      guard state.stop == nil else { return (false, nil) }
      switch sink {
      case .discard:
        state.discarded = true
        return (false, nil)
      case .memory:
        guard Int64(state.body.count + data.count) <= bounds.maximumBody else {
          state.stop = .tooLarge(limit: bounds.maximumBody)
          return (false, nil)
        }
        state.body += data
        return (true, nil)
      case .file:
        guard let file = state.file else {
          if state.body.count < HTTPTransportLimits.errorBody {
            state.body += data.prefix(HTTPTransportLimits.errorBody - state.body.count)
          }
          return (true, nil)
        }
        guard file.size + Int64(data.count) <= bounds.maximumBody else {
          state.stop = .tooLarge(limit: bounds.maximumBody)
          return (false, nil)
        }
        if let failure = data.withUnsafeBytes({ file.write($0) }) {
          state.stop = .fatal(failure)
          return (false, nil)
        }
        return (true, file.size)
      }
    }
    if !keep {
      dataTask.cancel()
    } else if let size {
      received(size)
    }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    let (finish, result) = state.withLock {
      state -> (
        (@Sendable (Result<HTTPExchange, HTTPTransportFailure>) -> Void)?,
        Result<HTTPExchange, HTTPTransportFailure>
      ) in
      if let failure = state.file?.close(), state.stop == nil { state.stop = .fatal(failure) }
      state.file = nil
      let exchange = HTTPExchange(status: state.status, headers: state.headers, body: state.body)
      let result: Result<HTTPExchange, HTTPTransportFailure>
      if let stop = state.stop {
        result = .failure(stop)
      } else if state.discarded, state.status != 0 {
        result = .success(exchange)
      } else if state.deadlinePassed {
        result = .failure(.timedOut)
      } else if let error {
        result = .failure(URLSessionTransport.failure(error))
      } else {
        result = .success(exchange)
      }
      let finish = state.finished ? nil : state.finish
      state.finished = true
      return (finish, result)
    }
    finish?(result)
  }

  static func headers(_ response: HTTPURLResponse) -> [String: String] {
    var headers: [String: String] = [:]
    for (name, value) in response.allHeaderFields {
      if let name = name as? String, let value = value as? String {
        headers[name.lowercased()] = value
      }
    }
    return headers
  }
}
