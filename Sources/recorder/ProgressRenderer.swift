import RecorderKit
import RecorderProtocol

/// Draws sync progress on stderr: bars redrawn in place when stderr is a terminal, plain
/// lines otherwise (so logs and CI stay readable). Never writes to stdout.
actor ProgressRenderer {
  private let interactive: Bool
  private var total = 0
  private var done = 0
  private var lastLine = ""
  private var lastPlainPercent: [SessionID: Int] = [:]

  init(interactive: Bool = stderrIsTerminal) { self.interactive = interactive }

  /// Consumes `events` until they end.
  func run(_ events: AsyncStream<SyncEvent>) async {
    for await event in events { render(event) }
    end()
  }

  /// Ends the last redrawn line, if any.
  func end() {
    if interactive, !lastLine.isEmpty {
      printError("")
      lastLine = ""
    }
  }

  /// Draws one event.
  func render(_ event: SyncEvent) {
    switch event {
    case .listed(let files, let bytes):
      total = files
      line("device lists \(files) recording\(files == 1 ? "" : "s"), \(formatBytes(bytes))")
    case .fileProgress(let sessionId, let fraction, let bytes, let rate, let eta):
      let percent = Int(fraction * 100)
      if interactive {
        let bar = Self.bar(fraction, width: 24)
        let etaText =
          eta.map { " ETA " + formatDuration(milliseconds: Int($0.seconds * 1000)) } ?? ""
        redraw(
          "\(sessionId) \(bar) \(percent)% \(formatBytes(bytes)) \(formatBytes(Int64(rate)))/s\(etaText)"
            + "  [\(done)/\(total) files \(Self.bar(total == 0 ? 1 : Double(done) / Double(total), width: 10))]"
        )
      } else if percent / 25 != (lastPlainPercent[sessionId] ?? -1) / 25 {
        lastPlainPercent[sessionId] = percent
        line("\(sessionId): \(percent)% (\(formatBytes(bytes)), \(formatBytes(Int64(rate)))/s)")
      }
    case .fileStored(let sessionId, let verified):
      line("\(sessionId): stored\(verified ? ", verified" : ", NOT verified (kept on device)")")
    case .fileExported(let sessionId, let path): line("\(sessionId): exported to \(path)")
    case .fileDeleted(let sessionId): line("\(sessionId): deleted from the device")
    case .fileSkipped(let sessionId, let reason): line("\(sessionId): skipped (\(reason))")
    case .overall(let done, let total):
      self.done = done
      self.total = total
    case .stepDone(let sessionId, let step): line("\(sessionId): \(step) done")
    case .stepFailed(let sessionId, let step, let reason, let willRetry):
      line("\(sessionId): \(step) failed (\(reason))\(willRetry ? "; trying again" : "; owed")")
    }
  }

  private func redraw(_ text: String) {
    lastLine = text
    printErrorInline("\r\u{1B}[2K" + text)
  }

  private func line(_ text: String) {
    if interactive, !lastLine.isEmpty {
      printErrorInline("\r\u{1B}[2K")
      lastLine = ""
    }
    printError(text)
  }

  static func bar(_ fraction: Double, width: Int) -> String {
    let filled = max(0, min(width, Int(fraction * Double(width))))
    return "[" + String(repeating: "#", count: filled)
      + String(repeating: "-", count: width - filled) + "]"
  }
}

/// `1.2 MB`, `340 kB`, `12 B` (decimal units).
func formatBytes(_ bytes: Int64) -> String {
  switch bytes {
  case ..<1_000: "\(bytes) B"
  case ..<1_000_000: "\(bytes / 1_000) kB"
  default: "\(bytes / 100_000 / 10).\(bytes / 100_000 % 10) MB"
  }
}
