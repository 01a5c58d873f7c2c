import Foundation
import HealthProfiles
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderStore
import TestSupport
import Testing

/// Issue 17, at the API level: a process "killed" (its tasks cancelled, its objects dropped)
/// after the endpoint received an upload and before the outbox committed it. On restart the
/// registered set is restored and the upload is retried with the same key; the endpoint
/// keeps the record once. (The process-level test with SIGKILL is in CLITests.)
@Suite("Passive: restart")
struct RestartTests {
  @Test func theUploadIsRetriedWithTheSameKeyAfterACrashAndCountedOnce() async throws {
    let bench = try PassiveBench([.thermometer])
    let endpoint = EndpointModel()
    let url = try #require(URL(string: "http://127.0.0.1:9/records"))
    let registration = await bench.registration()

    // First life: read a measurement, start uploading it; the endpoint takes the request in
    // and the process dies before the answer.
    do {
      let journal = try bench.journal()
      let uploader = RecordUploader(
        journal: journal, options: .init(endpoint: url), poster: endpoint, clock: bench.anyClock)
      let reader = try PassiveReader(
        journal: journal, central: bench.central, clock: bench.anyClock,
        onRecord: { _ in uploader.poke() })
      try await reader.register(registration)
      endpoint.state.withLock { $0.hangNext = true }
      let running = Task { await reader.run() }
      let uploading = Task { await uploader.run() }
      await bench.peripherals[0].powerOn()
      #expect(
        try await bench.within(.seconds(30)) { endpoint.state.withLock { $0.requests.count } == 1 })
      running.cancel()
      uploading.cancel()  // the kill: between the endpoint's receipt and the commit
      _ = await uploading.value
    }
    let pending = try bench.pendingOutbox()
    #expect(pending.count == 1, "the record is still in the outbox")
    let key = try #require(pending.first?.idempotencyKey)

    // Second life: same journal.
    let journal = try bench.journal()
    let reader = try PassiveReader(journal: journal, central: bench.central, clock: bench.anyClock)
    #expect(await reader.registeredPeripherals == [registration])
    var events = reader.events.makeAsyncIterator()
    #expect(await events.next() == .restored([registration]))
    let uploader = RecordUploader(
      journal: journal, options: .init(endpoint: url), poster: endpoint, clock: bench.anyClock)
    let pass = await uploader.uploadPending()
    #expect(pass.delivered == [key])
    #expect(try bench.pendingOutbox().isEmpty)
    let seen = endpoint.state.withLock { $0 }
    #expect(seen.requests == [key, key], "both attempts carry the same key")
    #expect(seen.records.count == 1, "the endpoint keeps the record once")
    // Nothing is sent again.
    #expect(await uploader.uploadPending().delivered.isEmpty)
    #expect(endpoint.state.withLock { $0.requests.count } == 2)
    let body = try #require(seen.records[key])
    let json = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    #expect(json["id"] as? String == key)
    #expect(json["kind"] as? String == "thermometer")
    #expect(json["characteristic"] as? String == "2A1C")
  }

  /// A failing endpoint is retried after a back-off, with the same key each time.
  @Test func failedAttemptsAreRetriedWithBackoff() async throws {
    let bench = try PassiveBench([])
    let journal = try bench.journal()
    try journal.write { _ = try $0.enqueueOutbox(idempotencyKey: "k1", body: Array("{}".utf8)) }
    let statuses = Locked<[Int]>([503, 500, 201])
    let keys = Locked<[String]>([])
    struct Scripted: HTTPPoster {
      let statuses: Locked<[Int]>
      let keys: Locked<[String]>
      func post(_ body: [UInt8], to url: URL, headers: [String: String], timeout: Duration)
        async throws(UploadError) -> Int
      {
        keys.withLock { $0.append(headers[RecordUploader.idempotencyHeader] ?? "") }
        return statuses.withLock { $0.removeFirst() }
      }
    }
    let url = try #require(URL(string: "http://127.0.0.1:9/records"))
    let uploader = RecordUploader(
      journal: journal, options: .init(endpoint: url),
      poster: Scripted(statuses: statuses, keys: keys), clock: bench.anyClock)
    let start = bench.clock.elapsed
    let task = Task { await uploader.run() }
    var events = uploader.events.makeAsyncIterator()
    #expect(await events.next() == .failed(idempotencyKey: "k1", .status(503)))
    #expect(await events.next() == .failed(idempotencyKey: "k1", .status(500)))
    #expect(await events.next() == .delivered(idempotencyKey: "k1"))
    task.cancel()
    #expect(keys.withLock { $0 } == ["k1", "k1", "k1"])
    #expect(bench.clock.elapsed - start >= .seconds(3), "1 s then 2 s of back-off")
    #expect(try journal.read { try $0.outboxEntry(idempotencyKey: "k1") }?.attempts == 3)
  }
}
