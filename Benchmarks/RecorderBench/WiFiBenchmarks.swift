import Dispatch
import Foundation
import RecorderConcurrency
import RecorderKit
import RecorderProtocol
import RecorderSockets
import RecorderStore
import RecorderWebSocket
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Issue 7's figures: Wi-Fi Fast Transfer (PROTOCOL.md §6) receive throughput on loopback
/// next to a plain TCP receive of the same bytes in the same run, CPU seconds per 100 MB of
/// the Wi-Fi receive, and peak RSS of a 1-hour and a 5-hour Wi-Fi sync.
///
/// Method:
/// - The sending side always runs in a **child process** (`RecorderBench wifi-sender …`),
///   so this process's `getrusage(RUSAGE_SELF)` is the receive path alone; the sender's CPU
///   (`RUSAGE_CHILDREN`) is printed beside it. On this 2-core machine sender and receiver
///   each get a core, as a phone and a device would.
/// - TCP: the child writes the bytes in 32 KiB writes on a ``SocketConnection``; we read in
///   256 KiB reads (the WebSocket layer's read size) and discard them: the baseline of the
///   target ratio. A second row also CRC-16s every byte (the Wi-Fi transport once did; it
///   no longer does, since §6 content has no checksum to compare with).
/// - Wi-Fi: the child plays the device with a ``WebSocketConnection`` client (HELLO with the
///   MD5 token, handshake status 0, LIST of one file, SYNC answered with content PDUs of
///   32 000 bytes = 400 device packets, `last` on the final one, DELETE and STOP answered).
///   We receive with our real phone side: ``WebSocketServer``, ``WiFiTransport/open(connection:configuration:clock:)``
///   and either `stream(...)` with a closure that counts the frames ("transport only") or a
///   ``SyncEngine`` writing raw files (format nil) to a temporary directory ("sync to disk":
///   fsync + journal every 256 KiB, SHA-256 and rename at the end, DELETE).
/// - Throughput rows alternate TCP and Wi-Fi and report the median of three, so a change in
///   the machine's load hits both alike.
/// - Peak RSS: one child per recording length (`RecorderBench wifi --rss-child SECONDS`)
///   runs a whole sync to disk and prints its VmHWM before the transfer and at the end.
///
/// The device-side sender here is measurement tooling, deliberately not the emulator's:
/// the point is to measure our receive path.
enum WiFiBenchmarks {
  static let serial = "888317426163000"
  static let bleToken = DeviceToken("0123456789abcdef0123456789abcdef")!
  static let sessionId: SessionID = 1_775_395_282
  /// Content bytes per §6 content PDU: 400 device packets of 80 bytes.
  static let pduDataBytes = 32_000
  /// Bytes per write of the plain TCP sender.
  static let tcpWriteBytes = 32 * 1024
  /// Device audio: 4000 bytes a second (50 packets of 80 bytes, mono).
  static let bytesPerSecond = 4000

  static func run() throws {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.count == 3, arguments[0] == "wifi", arguments[1] == "--rss-child",
      let seconds = Int(arguments[2])
    {
      try rssChild(seconds: seconds)
      exit(0)
    }
    var megabytes = 100
    if let index = arguments.firstIndex(of: "--megabytes"), index + 1 < arguments.count,
      let value = Int(arguments[index + 1]), value > 0
    {
      megabytes = value
    }
    let rounds = arguments.contains("--once") ? 1 : 3
    let bytes = megabytes * 1_000_000 / pduDataBytes * pduDataBytes
    AudioBenchmarks.emit(
      "== wifi: loopback, \(bytes / 1_000_000) MB per run, sender in a child process, "
        + "median of \(rounds); CPU = this process (receiver) user+sys, sender's CPU beside it")

    var runs: [String: [Run]] = [:]
    for _ in 0..<rounds {
      runs["tcp-discard", default: []].append(try receiveTCP(bytes: bytes, crc: false))
      runs["tcp", default: []].append(try receiveTCP(bytes: bytes, crc: true))
      runs["wifi", default: []].append(try receiveWiFi(bytes: bytes, toDisk: false))
    }
    runs["wifi-disk"] = [try receiveWiFi(bytes: bytes, toDisk: true)]
    let rows = [
      ("tcp-discard", "plain TCP, read + discard"),
      ("tcp", "plain TCP, read + CRC-16"),
      ("wifi", "Wi-Fi §6, transport only"),
      ("wifi-disk", "Wi-Fi §6, SyncEngine to disk"),
    ]
    var medians: [String: Run] = [:]
    for (key, label) in rows {
      guard let all = runs[key], !all.isEmpty else { continue }
      let median = all.sorted { $0.seconds < $1.seconds }[all.count / 2]
      medians[key] = median
      let perHundred = 100_000_000 / Double(bytes)
      AudioBenchmarks.emit(
        label.padding(toLength: 31, withPad: " ", startingAt: 0)
          + "\(format(median.megabytesPerSecond)) MB/s  (\(format(median.seconds, 3)) s"
          + (all.count > 1
            ? ", runs \(all.map { format($0.megabytesPerSecond, 0) }.joined(separator: "/")) MB/s"
            : "")
          + ")  receiver CPU \(format(median.cpuSeconds * perHundred, 2)) s/100 MB"
          + "  sender CPU \(format(median.senderCPUSeconds * perHundred, 2)) s/100 MB")
    }
    if let wifi = medians["wifi"], let tcp = medians["tcp"], let raw = medians["tcp-discard"] {
      // The target compares with plain TCP that only reads; the Wi-Fi receive computes no
      // CRC (§6 has none), the TCP+CRC row is kept for comparison with earlier figures.
      AudioBenchmarks.emit(
        "ratio Wi-Fi transport / plain TCP (read + discard): "
          + "\(format(wifi.megabytesPerSecond / raw.megabytesPerSecond, 2))  target ≥ 0.5"
          + "  (/ TCP+CRC: \(format(wifi.megabytesPerSecond / tcp.megabytesPerSecond, 2)))")
    }
    if let disk = medians["wifi-disk"], let tcp = medians["tcp"] {
      AudioBenchmarks.emit(
        "ratio Wi-Fi SyncEngine to disk (fsync + journal every 256 KiB, SHA-256) / TCP+CRC: "
          + format(disk.megabytesPerSecond / tcp.megabytesPerSecond, 2))
    }

    var peaks: [Int: (base: Int, peak: Int)] = [:]
    for hours in [1, 5] {
      let seconds = hours * 3600
      let started = ContinuousClock.now
      let figures = try rssOfChild(seconds: seconds)
      peaks[hours] = figures
      AudioBenchmarks.emit(
        "peak RSS, Wi-Fi sync to disk of one \(hours)-hour recording "
          + "(\(seconds * bytesPerSecond / 1_000_000) MB, child process): "
          + "\(AudioBenchmarks.kb(figures.peak)), \(AudioBenchmarks.kb(figures.peak - figures.base)) "
          + "over its baseline before the transfer  (real \(format((ContinuousClock.now - started).seconds, 1)) s)"
      )
    }
    if let short = peaks[1], let long = peaks[5] {
      AudioBenchmarks.emit(
        "peak RSS 5 h − 1 h: \(AudioBenchmarks.kb(long.peak - short.peak))")
    }
  }

  /// Runs the hidden sender subcommand (`wifi-sender tcp|ws PORT BYTES`); false when
  /// `arguments` is not it.
  static func handleHelper(_ arguments: [String]) -> Bool {
    guard arguments.count == 4, arguments[0] == "wifi-sender", let port = UInt16(arguments[2]),
      let bytes = Int(arguments[3])
    else { return false }
    do {
      switch arguments[1] {
      case "tcp": try blocking { try await sendTCP(port: port, bytes: bytes) }
      case "ws": try blocking { try await playDevice(port: port, bytes: bytes) }
      default: return false
      }
    } catch {
      AudioBenchmarks.emit("error: \(error)")
      exit(1)
    }
    return true
  }

  // MARK: Receivers (this process)

  struct Run {
    var bytes: Int
    var seconds: Double
    var cpuSeconds: Double
    var senderCPUSeconds: Double
    var megabytesPerSecond: Double { Double(bytes) / 1_000_000 / seconds }
  }

  /// Plain TCP: accept the child's connection, read to end of stream.
  static func receiveTCP(bytes: Int, crc: Bool) throws -> Run {
    let listener = try SocketListener()
    defer { listener.close() }
    let sender = try spawnSender("tcp", port: listener.port, bytes: bytes)
    let senderCPU = AudioBenchmarks.childrenCPUSeconds()
    let cpu = cpuSeconds()
    let (received, seconds) = try blocking { () async throws -> (Int, Double) in
      let connection = try await listener.accept()
      defer { connection.close() }
      let started = ContinuousClock.now
      var check = CRC16()
      var received = 0
      while true {
        let chunk = try await connection.read(upTo: 256 << 10)
        if chunk.isEmpty { break }
        if crc { check.update(chunk) }
        received += chunk.count
      }
      blackHole(check.value)
      return (received, (ContinuousClock.now - started).seconds)
    }
    let used = cpuSeconds() - cpu
    try wait(sender)
    guard received == bytes else { throw BenchError("TCP received \(received) of \(bytes) bytes") }
    return Run(
      bytes: bytes, seconds: seconds, cpuSeconds: used,
      senderCPUSeconds: AudioBenchmarks.childrenCPUSeconds() - senderCPU)
  }

  /// Wi-Fi: our phone side against the child playing the device. Transport only: the time
  /// of `stream(...)`; to disk: the time of the whole `SyncEngine.sync` (LIST to DELETE).
  static func receiveWiFi(bytes: Int, toDisk: Bool) throws -> Run {
    let work = "/tmp/recorder-bench-wifi-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer { try? FileManager.default.removeItem(atPath: work) }
    let server = try WebSocketServer()
    let sender = try spawnSender("ws", port: server.port, bytes: bytes)
    let senderCPU = AudioBenchmarks.childrenCPUSeconds()
    let cpu = cpuSeconds()
    let (received, seconds) = try blocking { () async throws -> (Int, Double) in
      let transport = try await accept(on: server)
      if toDisk {
        let started = ContinuousClock.now
        let report = try await syncToDisk(transport, work: work)
        return (Int(report), (ContinuousClock.now - started).seconds)
      }
      guard let recording = try await transport.listRecordings().first else {
        throw BenchError("the device listed nothing")
      }
      let counted = Locked(0)
      let started = ContinuousClock.now
      _ = try await transport.stream(sessionId: recording.sessionId, start: 0, end: recording.size)
      { frame in
        counted.withLock { $0 += frame.data.count }
        return .continue
      }
      let seconds = (ContinuousClock.now - started).seconds
      await transport.finish()
      return (counted.withLock { $0 }, seconds)
    }
    let used = cpuSeconds() - cpu
    try blocking { await server.stop() }
    try wait(sender)
    guard received == bytes else {
      throw BenchError("Wi-Fi received \(received) of \(bytes) bytes")
    }
    return Run(
      bytes: bytes, seconds: seconds, cpuSeconds: used,
      senderCPUSeconds: AudioBenchmarks.childrenCPUSeconds() - senderCPU)
  }

  /// The first device connection, through HELLO and the handshake.
  static func accept(on server: WebSocketServer) async throws -> WiFiTransport {
    var connections = server.connections.makeAsyncIterator()
    guard let connection = await connections.next() else {
      throw BenchError("the server stopped before the device connected")
    }
    return try await WiFiTransport.open(
      connection: connection,
      configuration: WiFiTransport.Configuration(serial: serial, bleToken: bleToken))
  }

  /// One SyncEngine run over `transport` into `work` (raw files only); returns bytes stored.
  static func syncToDisk(_ transport: WiFiTransport, work: String) async throws -> Int64 {
    let fileSystem = PosixFileSystem()
    try fileSystem.createDirectory(work)
    let journal = try Journal(path: work + "/journal.sqlite")
    var options = SyncEngine.Options()
    options.format = nil
    let engine = SyncEngine(journal: journal, fileSystem: fileSystem, root: work, options: options)
    // Progress events are buffered until read: drain them.
    let draining = Task { for await _ in engine.events {} }
    defer { draining.cancel() }
    let report = try await engine.sync(using: transport)
    await transport.finish()
    guard report.files.count == 1 else {
      throw BenchError("the sync stored \(report.files.count) files")
    }
    return report.files.reduce(0) { $0 + $1.size }
  }

  /// The RSS child: a whole Wi-Fi sync to disk of `seconds` of audio; prints VmHWM (KiB)
  /// before the transfer (server, engine and journal set up) and at the end.
  static func rssChild(seconds: Int) throws {
    let bytes = seconds * bytesPerSecond
    let work = "/tmp/recorder-bench-wifi-rss-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: work) }
    let server = try WebSocketServer()
    let base = AudioBenchmarks.peakRSSKilobytes()
    let sender = try spawnSender("ws", port: server.port, bytes: bytes)
    let stored = try blocking { () async throws -> Int64 in
      try await syncToDisk(try await accept(on: server), work: work)
    }
    try blocking { await server.stop() }
    try wait(sender)
    guard stored == Int64(bytes) else { throw BenchError("stored \(stored) of \(bytes) bytes") }
    print("baseKB \(base) peakKB \(AudioBenchmarks.peakRSSKilobytes())")
  }

  static func rssOfChild(seconds: Int) throws -> (base: Int, peak: Int) {
    let text = try AudioBenchmarks.runCapturing(
      CommandLine.arguments[0], ["wifi", "--rss-child", "\(seconds)"])
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("baseKB ") }) else {
      throw BenchError("the RSS child printed no figures: \(text)")
    }
    let words = line.split(separator: " ")
    guard words.count == 4, let base = Int(words[1]), let peak = Int(words[3]) else {
      throw BenchError("the RSS child printed \(line)")
    }
    return (base, peak)
  }

  // MARK: Senders (the child process)

  /// Device audio as the receiver checks it: every 80-byte packet starts with the Opus TOC
  /// byte 0xB8; the rest is filler. `pduDataBytes` is a whole number of packets, so every
  /// PDU can carry the same bytes.
  static let content: [UInt8] = (0..<pduDataBytes).map {
    $0 % 80 == 0 ? 0xB8 : UInt8(truncatingIfNeeded: $0 &* 31 &+ 7)
  }

  static func sendTCP(port: UInt16, bytes: Int) async throws {
    let connection = try await SocketConnection.connect(host: "127.0.0.1", port: port)
    defer { connection.close() }
    let chunk = (0..<tcpWriteBytes).map { content[$0 % content.count] }
    var sent = 0
    while sent < bytes {
      let count = min(tcpWriteBytes, bytes - sent)
      try await connection.write(count == chunk.count ? chunk : Array(chunk.prefix(count)))
      sent += count
    }
  }

  /// A minimal §6 device holding one recording of `bytes`: answers what the phone asks, in
  /// order, until the phone closes the connection.
  static func playDevice(port: UInt16, bytes: Int) async throws {
    let connection = try await WebSocketConnection.connect(host: "127.0.0.1", port: port)
    func send(_ message: WiFiDeviceMessage) async throws {
      try await connection.send(binary: try message.encoded())
    }
    guard let token = DeviceToken(WiFiTransport.helloToken(serial: serial)) else {
      throw BenchError("the HELLO token is not printable")
    }
    try await send(.hello(token: token, protocolVersion: 1))
    while true {
      let message: WebSocketMessage
      do {
        message = try await connection.receive()
      } catch {
        return  // The phone closed: the session is over.
      }
      guard case .binary(let pdu) = message else { continue }
      switch try WiFiPhoneMessage(decoding: pdu) {
      case .handshake: try await send(.handshakeResult(status: 0))
      case .list(let uid, _, _):
        let entry = WiFiListEntry(sessionId: sessionId, size: UInt32(bytes))
        try await send(
          .list(WiFiListPage(uid: uid, status: 0, count: 1, offset: 0, entries: [entry])))
      case .sync(let session, _, let start, let end):
        // `start` is 0 or a resume point: both whole packets, so the pattern lines up.
        var offset = Int(start)
        while offset < Int(end) {
          let count = min(pduDataBytes, Int(end) - offset)
          let data = count == content.count ? content : Array(content.prefix(count))
          try await send(
            .content(
              WiFiContent(
                session: session, offset: UInt32(offset), last: offset + count == Int(end),
                data: data)))
          offset += count
        }
      case .delete(let session, _): try await send(.deleteResult(session: session, status: 0))
      case .stop: try await send(.stopResult(status: 0))
      case .keepAlive: try await send(.error(cmd: Int64(WiFiPDUType.keepAlive), status: 0))
      default: continue
      }
    }
  }

  // MARK: Helpers

  static func spawnSender(_ kind: String, port: UInt16, bytes: Int) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["wifi-sender", kind, "\(port)", "\(bytes)"]
    try process.run()
    return process
  }

  static func wait(_ process: Process) throws {
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw BenchError("the sender child exited with \(process.terminationStatus)")
    }
  }

  /// This process's CPU time so far (user + system, all threads).
  static func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
      getrusage(RUSAGE_SELF, &usage)
    #else
      getrusage(RUSAGE_SELF.rawValue, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
      + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  }

  static func format(_ value: Double, _ digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
  }

  /// Keeps a computed value alive so the optimiser cannot drop the work that made it.
  @inline(never) static func blackHole(_ value: UInt16) { _ = value }
}
