/// Misbehaviour the cloud emulator can be told to show; each count is of requests still to
/// come and goes down as they are served.
public struct CloudFaults: Sendable, Equatable {
  /// Answer the next N API requests (not downloads) with 503.
  public var serverErrors: Int
  /// Answer the next N API requests with 200 and a body that is not JSON.
  public var malformedBodies: Int
  /// Cut the next N firmware downloads after half of the bytes they would carry.
  public var truncatedDownloads: Int
  /// Send the head of the next N API responses, then nothing (the client times out).
  public var stalledResponses: Int
  /// Send every body `trickleBytes` at a time with a pause between (0: at once).
  public var trickleBytes: Int
  /// The pause between trickled pieces, on the emulator's clock.
  public var tricklePause: Duration

  public init(
    serverErrors: Int = 0, malformedBodies: Int = 0, truncatedDownloads: Int = 0,
    stalledResponses: Int = 0, trickleBytes: Int = 0, tricklePause: Duration = .milliseconds(1)
  ) {
    self.serverErrors = serverErrors
    self.malformedBodies = malformedBodies
    self.truncatedDownloads = truncatedDownloads
    self.stalledResponses = stalledResponses
    self.trickleBytes = trickleBytes
    self.tricklePause = tricklePause
  }

  public static let none = CloudFaults()
}

/// One request the cloud emulator served (no header, no token: safe to print).
public struct CloudRequestRecord: Sendable, Equatable {
  public var method: String
  public var path: String
  /// The `Range` header of a download, if any.
  public var range: String?
  public var status: Int
}
