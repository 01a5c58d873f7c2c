import Foundation
import RecorderConcurrency

/// What ``PlaudDeviceAgent``'s synchronous members read while commands run: written by the
/// agent's core as events arrive, read from any thread.
struct AgentLiveState: Sendable {
  /// Whether a device session is up.
  var connected = false
  /// The device connected now or last, as it reported itself (``PlaudDeviceAgent/recentConnectDevice``).
  var recent: BleDevice.Snapshot?
  /// Whether the device is recording (not paused).
  var recording = false
  /// The recording in progress or paused, 0 when none.
  var sessionId = 0
  /// The recording's scene, 0 when not recording.
  var scene = 0
  /// Whether a BLE file transfer (`exportAudio`, `downloadFile`) is running.
  var downloading = false
}

/// Measures one transfer at a time: bytes received since it began, over the injected
/// clock's time.
final class TransferMeter: Sendable {
  private struct Sample: Sendable {
    var began: Duration?
    var last: Duration?
    var bytes = 0
  }

  private let clock: AnyClock
  private let sample = Locked(Sample())

  init(clock: AnyClock) { self.clock = clock }

  /// A transfer begins: the count starts again.
  func begin() {
    let now = clock.elapsed
    sample.withLock { $0 = Sample(began: now, last: now, bytes: 0) }
  }

  /// `count` bytes arrived.
  func add(_ count: Int) {
    let now = clock.elapsed
    sample.withLock { sample in
      if sample.began == nil { sample.began = now }
      sample.bytes += count
      sample.last = now
    }
  }

  /// Average KB/s (1 KB = 1024 bytes) from the transfer's start to its last bytes; 0 before
  /// any bytes or time.
  var kilobytesPerSecond: Double {
    let current = sample.current
    guard let began = current.began, let last = current.last, current.bytes > 0 else { return 0 }
    let seconds = Self.seconds(last - began)
    guard seconds > 0 else { return 0 }
    return Double(current.bytes) / 1024 / seconds
  }

  /// The speed as the vendor shows it: "0 KB/s", "512.0 KB/s", "1.25 MB/s".
  var formatted: String { Self.format(kilobytesPerSecond) }

  static func format(_ kilobytesPerSecond: Double) -> String {
    if kilobytesPerSecond <= 0 { return "0 KB/s" }
    if kilobytesPerSecond >= 1024 {
      return String(format: "%.2f MB/s", kilobytesPerSecond / 1024)
    }
    return String(format: "%.1f KB/s", kilobytesPerSecond)
  }

  static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
