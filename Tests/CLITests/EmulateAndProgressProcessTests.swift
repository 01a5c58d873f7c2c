import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// `recorder emulate`'s temporary flash folder and the progress lines' transfer rate.
extension ProcessTests {
  /// Without --flash the emulator makes `$TMPDIR/recorder-emulate-PID`; it must be gone
  /// however the emulator ends: an error after it was made, SIGINT, SIGTERM.
  @Test("emulate without --flash removes its temporary flash folder: error exit, SIGINT, SIGTERM")
  func emulateRemovesItsFlashFolder() throws {
    let directory = try TemporaryDirectory("emulate-tmp")
    let temporary = directory.file("tmp")
    try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
    let environment = ["TMPDIR": temporary + "/"]
    func leftovers() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).filter {
        $0.hasPrefix("recorder-emulate-")
      }
    }

    // A port someone else listens on: the emulator fails after making its flash.
    let busy = try ListeningSocket()
    defer { busy.close() }
    let failed = try RecorderProcess.run(
      ["emulate", "--port", "\(busy.port)", "--recordings", "1"], in: directory,
      label: "emulate-busy", timeout: .seconds(60), environment: environment)
    #expect(failed.status == 69, "\(failed.stderr)")
    #expect(leftovers().isEmpty, "left behind: \(leftovers())")

    for (name, number) in [("SIGINT", SIGINT), ("SIGTERM", SIGTERM)] {
      let child = try RecorderProcess(
        ["emulate", "--port", "0", "--recordings", "1"], in: directory,
        label: "emulate-\(name)", environment: environment)
      defer { child.kill() }
      let line = child.firstLine(timeout: .seconds(60))
      #expect(line?.hasPrefix("tcp://") == true, "\(child.stderr)")
      #expect(leftovers().count == 1, "\(name): the flash folder was not where expected")
      sendSignal(child.pid, number)
      #expect(child.wait(timeout: .seconds(30)) != nil, "\(name) did not end the emulator")
      #expect(leftovers().isEmpty, "\(name) left behind: \(leftovers())")
    }
  }

  /// The demo moves its backlog over Wi-Fi (real TCP) while its BLE side runs on a simulated
  /// clock; the rate is the bytes over the time of the clock they moved in.
  @Test("progress over Wi-Fi shows a real transfer rate, never 0 B/s")
  func wifiProgressRate() throws {
    let directory = try TemporaryDirectory("rate")
    let result = try RecorderProcess.run(
      ["demo", "--out", directory.file("recordings")], in: directory, label: "demo-rate",
      timeout: .seconds(300))
    #expect(result.status == 0, "\(result.stderr)")
    let progress = result.stderr.split(separator: "\n").filter { $0.contains("%") }
    #expect(!progress.isEmpty, "\(result.stderr)")
    for line in progress {
      #expect(line.contains("/s") && !line.contains(" 0 B/s"), "\(line)")
    }
  }
}

/// A TCP listener on 127.0.0.1 that keeps its port taken until closed.
final class ListeningSocket: @unchecked Sendable {
  // `@unchecked Sendable`: `descriptor` is only touched by the test's own thread.
  private var descriptor: Int32
  let port: UInt16

  init() throws {
    descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw HarnessError("socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let descriptor = self.descriptor
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(descriptor, pointer, length) == 0 && listen(descriptor, 1) == 0
          && getsockname(descriptor, pointer, &length) == 0
      }
    }
    guard bound else { throw HarnessError("bind failed") }
    port = UInt16(bigEndian: address.sin_port)
  }

  deinit { close() }

  func close() {
    guard descriptor >= 0 else { return }
    _ = shutdown(descriptor, Int32(SHUT_RDWR))
    closeSocket(descriptor)
    descriptor = -1
  }
}

/// close(2) (inside ``ListeningSocket``, `close` names the method).
private func closeSocket(_ descriptor: Int32) { _ = close(descriptor) }
