import Foundation
import RecorderKit
import TestSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Issue 29 item 8's figure: the CPU a process spends while it waits for a slow cloud answer
/// (a loopback server that answers after 5 s), through URLSession (FoundationNetworking on
/// Linux) and through RecorderKit's cloud client (libcurl on Linux, URLSession on Apple
/// platforms). Process CPU time ÷ wall time, so 1.0 is one core kept busy.
enum CloudBenchmarks {
  static let delay = Duration.seconds(5)
  static let answer = Array(#"{"code":0,"data":{"is_bind":true}}"#.utf8)

  static func run() throws {
    print("== cloud: CPU while waiting \(delay) for a loopback answer (process CPU ÷ wall time)")
    let server = try HostileHTTPServer { _, _ in .late(delay: delay, status: 200, body: answer) }
    defer { server.stop() }

    let (_, urlSessionCPU, urlSessionWall) = try CPUTime.measure {
      try blocking { try await urlSessionWait(server) }
    }
    report("URLSession dataTask", cpu: urlSessionCPU, wall: urlSessionWall)

    let client = try CloudClient(
      domain: server.url,
      userToken: UserToken(
        jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJiZW5jaCJ9.c2lnbmF0dXJlLW5vdC1jaGVja2Vk"))
    let (bound, clientCPU, clientWall) = try CPUTime.measure {
      try blocking { try await client.isBound(serial: "8881234567890123") }
    }
    report(
      "CloudClient.isBound (answered \(bound.map(String.init) ?? "nil"))", cpu: clientCPU,
      wall: clientWall)
  }

  static func report(_ name: String, cpu: Double, wall: Double) {
    print(
      "\(name): \(String(format: "%.2f", cpu)) s CPU in \(String(format: "%.2f", wall)) s, "
        + "\(String(format: "%.1f", 100 * cpu / wall)) % of a core")
  }

  static func urlSessionWait(_ server: HostileHTTPServer) async throws {
    guard let url = URL(string: server.url + "/developer/api/open/partner/sdk/binding") else {
      throw URLError(.badURL)
    }
    let session = URLSession(configuration: .ephemeral)
    defer { session.finishTasksAndInvalidate() }
    _ = try await session.data(from: url)
  }
}
