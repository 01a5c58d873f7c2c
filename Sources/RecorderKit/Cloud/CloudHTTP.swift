import Foundation
import RecorderConcurrency

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What one HTTP exchange produced.
struct HTTPExchange: Sendable {
  var status: Int
  /// Header fields, names lower-cased.
  var headers: [String: String]
  var body: [UInt8]
}

/// Why an exchange produced no response; the first two may pass with a retry.
enum HTTPTransportFailure: Error, Sendable, Equatable {
  /// No byte for the request timeout.
  case timedOut
  /// The connection was refused, reset or cut mid-response.
  case connectionLost
  /// DNS, TLS, a malformed URL: retrying will not help.
  case fatal(String)
  case cancelled
}

/// The client's HTTP plumbing on URLSession (FoundationNetworking on Linux): one request, or
/// one download appended to a file as its bytes arrive (so a cut download keeps what came).
///
/// Thread-safe: the session is immutable; each download has its own delegate, whose state
/// sits in a `Locked`.
final class CloudHTTP: Sendable {
  private let session: URLSession
  private let configuration: URLSessionConfiguration

  /// - Parameter timeout: the longest wait for the next byte of a response (URLSession's
  ///   request timeout, real time).
  init(timeout: Duration) {
    let configuration = URLSessionConfiguration.ephemeral
    // FoundationNetworking arms its timer with whole seconds (a 0.3 s timeout fires at
    // once): round to whole seconds, at least one.
    configuration.timeoutIntervalForRequest = max(1, timeout.seconds.rounded())
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    self.configuration = configuration
    session = URLSession(configuration: configuration)
  }

  deinit { session.finishTasksAndInvalidate() }

  /// Sends `request` and collects the whole response.
  func send(_ request: URLRequest) async -> Result<HTTPExchange, HTTPTransportFailure> {
    let holder = TaskHolder()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let task = session.dataTask(with: request) { data, response, error in
          if let error {
            continuation.resume(returning: .failure(Self.failure(error)))
            return
          }
          guard let http = response as? HTTPURLResponse else {
            continuation.resume(returning: .failure(.fatal("not an HTTP response")))
            return
          }
          continuation.resume(
            returning: .success(
              HTTPExchange(
                status: http.statusCode, headers: Self.headers(http),
                body: data.map { Array($0) } ?? [])))
        }
        holder.start(task)
      }
    } onCancel: {
      holder.cancel()
    }
  }

  /// Sends `request` and appends a 2xx body to the file at `path` as it arrives: a 206 is
  /// appended to what the file holds, a 200 replaces it. Other statuses leave the file alone
  /// (their body, up to 4 KiB, comes back in the exchange). `received` is told the bytes the
  /// file holds after each write. A response cut short returns `HTTPTransportFailure/connectionLost`
  /// or `HTTPTransportFailure/timedOut` with the bytes that came kept on disk.
  func download(
    _ request: URLRequest, appendingTo path: String, received: @escaping @Sendable (Int64) -> Void
  ) async -> Result<HTTPExchange, HTTPTransportFailure> {
    let delegate = DownloadDelegate(path: path, received: received)
    let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let holder = TaskHolder()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        delegate.onFinish { continuation.resume(returning: $0) }
        holder.start(session.dataTask(with: request))
      }
    } onCancel: {
      holder.cancel()
    }
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

/// Writes one download's body to disk as it arrives.
///
/// Thread-safety: URLSession calls it on its delegate queue (serially); `state` sits in a
/// `Locked` anyway, and the file handle is only touched from those calls.
private final class DownloadDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  private struct State {
    var status = 0
    var headers: [String: String] = [:]
    var file: FileHandle?
    var errorBody: [UInt8] = []
    var written: Int64 = 0
    var writeFailure: String?
    var finish: (@Sendable (Result<HTTPExchange, HTTPTransportFailure>) -> Void)?
    var finished = false
  }
  private let state = Locked(State())
  private let path: String
  private let received: @Sendable (Int64) -> Void

  init(path: String, received: @escaping @Sendable (Int64) -> Void) {
    self.path = path
    self.received = received
  }

  func onFinish(_ finish: @escaping @Sendable (Result<HTTPExchange, HTTPTransportFailure>) -> Void)
  {
    state.withLock { $0.finish = finish }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    let http = response as? HTTPURLResponse
    let status = http?.statusCode ?? 0
    let headers = http.map(CloudHTTP.headers) ?? [:]
    var file: FileHandle?
    var failure: String?
    if status == 200 || status == 206 {
      if !FileManager.default.fileExists(atPath: path) {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
      }
      file = FileHandle(forUpdatingAtPath: path)
      if let file {
        do {
          if status == 200 { try file.truncate(atOffset: 0) }
          let end = try file.seekToEnd()
          state.withLock { $0.written = Int64(end) }
        } catch {
          failure = "cannot write"
        }
      } else {
        failure = "cannot open for writing"
      }
    }
    state.withLock { state in
      state.status = status
      state.headers = headers
      state.file = file
      state.writeFailure = failure
    }
    completionHandler(failure == nil ? .allow : .cancel)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let (file, written) = state.withLock { ($0.file, $0.written) }
    guard let file else {
      state.withLock { state in
        if state.errorBody.count < 4096 {
          state.errorBody += data.prefix(4096 - state.errorBody.count)
        }
      }
      return
    }
    do {
      try file.write(contentsOf: data)
    } catch {
      state.withLock { $0.writeFailure = "cannot write" }
      dataTask.cancel()
      return
    }
    let total = written + Int64(data.count)
    state.withLock { $0.written = total }
    received(total)
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
    let (finish, result) = state.withLock {
      state -> (
        (@Sendable (Result<HTTPExchange, HTTPTransportFailure>) -> Void)?,
        Result<
          HTTPExchange, HTTPTransportFailure
        >
      ) in
      try? state.file?.synchronize()
      try? state.file?.close()
      state.file = nil
      let result: Result<HTTPExchange, HTTPTransportFailure>
      if let failure = state.writeFailure {
        result = .failure(.fatal("\(failure) \(path)"))
      } else if let error {
        result = .failure(CloudHTTP.failure(error))
      } else {
        result = .success(
          HTTPExchange(status: state.status, headers: state.headers, body: state.errorBody))
      }
      let finish = state.finished ? nil : state.finish
      state.finished = true
      return (finish, result)
    }
    finish?(result)
  }
}
