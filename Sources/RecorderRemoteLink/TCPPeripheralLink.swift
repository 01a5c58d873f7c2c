import RecorderBluetooth
import RecorderConcurrency

/// A link of a ``TCPCentral``: every call is relayed to the served link on the other side of
/// the TCP connection, and its events are relayed back in order.
///
/// Writes without response are pipelined in a window of ``TCPCentral/Options/writeWindow``:
/// `write` returns as soon as the value is queued for the server while the window has room,
/// and waits for the server's acknowledgements (sent once the served link's own write
/// returned, after its back pressure) when it is full. A write without response that the
/// served link rejects is reported by the next write on this link.
///
/// Thread-safe: mutable state is in `state` (a `Locked`); waiters are resumed outside it.
final class TCPPeripheralLink: PeripheralLink {
  let peripheral: PeripheralID
  let events: BackpressureStream<LinkEvent>
  private let continuation: BackpressureStream<LinkEvent>.Continuation
  private let id: UInt32
  private let session: TCPLinkClientSession

  private struct State {
    var outstanding = 0
    var windowWaiters: [CheckedContinuation<Result<Void, LinkError>, Never>] = []
    /// A rejected write without response, reported by the next write.
    var writeFailure: LinkError?
    var ended: DisconnectReason?
    var maximumWriteLength: [WriteType: Int] = [:]
  }
  private let state = Locked(State())

  init(peripheral: PeripheralID, id: UInt32, session: TCPLinkClientSession) {
    self.peripheral = peripheral
    self.id = id
    self.session = session
    (events, continuation) = BackpressureStream<LinkEvent>.makeStream()
  }

  private var timeout: Duration { session.options.requestTimeout }

  private func failIfEnded() throws(LinkError) {
    if let reason = state.withLock({ $0.ended }) { throw .disconnected(reason) }
  }

  func requestMTU(_ mtu: Int) async throws(LinkError) -> Int {
    try failIfEnded()
    let value = UInt32(clamping: max(mtu, 0))
    let reply = await session.request(link: id, timeout: timeout) {
      .requestMTU(request: $0, link: self.id, mtu: value)
    }
    guard case .integerReply(_, let result) = try reply.get() else {
      throw .transport("unexpected reply to requestMTU")
    }
    return Int(result)
  }

  func maximumWriteLength(for type: WriteType) async -> Int {
    let reply = await session.request(link: id, timeout: timeout) {
      .getMaximumWriteLength(request: $0, link: self.id, type: type)
    }
    if case .success(.integerReply(_, let value)) = reply {
      state.withLock { $0.maximumWriteLength[type] = Int(value) }
      return Int(value)
    }
    // The link is gone: the last known value (or the default ATT MTU's 20).
    return state.withLock { $0.maximumWriteLength[type] } ?? 20
  }

  func read(_ characteristic: BluetoothUUID) async throws(LinkError) -> [UInt8] {
    try failIfEnded()
    let reply = await session.request(link: id, timeout: timeout) {
      .read(request: $0, link: self.id, characteristic: characteristic)
    }
    guard case .valueReply(_, let value) = try reply.get() else {
      throw .transport("unexpected reply to read")
    }
    return value
  }

  func write(_ value: [UInt8], to characteristic: BluetoothUUID, type: WriteType)
    async throws(LinkError)
  {
    guard value.count <= TCPLinkMessage.maximumValueLength else {
      throw .valueTooLong(length: value.count, maximum: TCPLinkMessage.maximumValueLength)
    }
    switch type {
    case .withResponse:
      try failIfEnded()
      let reply = await session.request(link: id, timeout: timeout) {
        .write(
          request: $0, link: self.id, characteristic: characteristic, type: .withResponse,
          value: value)
      }
      _ = try reply.get()
    case .withoutResponse:
      try await acquireWindowSlot()
      guard session.sendWindowedWrite(link: id, characteristic: characteristic, value: value)
      else {
        acknowledgeWrite(failure: nil)
        throw .disconnected(state.withLock { $0.ended } ?? .linkLoss)
      }
    }
  }

  func setNotifications(_ enabled: Bool, for characteristic: BluetoothUUID) async throws(LinkError)
  {
    try failIfEnded()
    let reply = await session.request(link: id, timeout: timeout) {
      .setNotifications(
        request: $0, link: self.id, characteristic: characteristic, enabled: enabled)
    }
    _ = try reply.get()
  }

  var bondState: BondState {
    get async {
      let reply = await session.request(link: id, timeout: timeout) {
        .getBondState(request: $0, link: self.id)
      }
      guard case .success(.bondStateReply(_, let bond)) = reply else { return .none }
      return bond
    }
  }

  func disconnect() async {
    guard state.withLock({ $0.ended }) == nil else { return }
    _ = await session.request(link: id, timeout: timeout) {
      .disconnect(request: $0, link: self.id)
    }
  }

  // MARK: - The write window

  private func acquireWindowSlot() async throws(LinkError) {
    let window = max(session.options.writeWindow, 1)
    let result = await withCheckedContinuation {
      (continuation: CheckedContinuation<Result<Void, LinkError>, Never>) in
      let immediate = state.withLock { state -> Result<Void, LinkError>? in
        if let reason = state.ended { return .failure(.disconnected(reason)) }
        if let failure = state.writeFailure {
          state.writeFailure = nil
          return .failure(failure)
        }
        if state.outstanding < window, state.windowWaiters.isEmpty {
          state.outstanding += 1
          return .success(())
        }
        state.windowWaiters.append(continuation)
        return nil
      }
      if let immediate { continuation.resume(returning: immediate) }
    }
    try result.get()
  }

  /// The server acknowledged one windowed write: its slot passes to the first waiter.
  func acknowledgeWrite(failure: LinkError?) {
    let next = state.withLock { state -> CheckedContinuation<Result<Void, LinkError>, Never>? in
      if let failure, state.writeFailure == nil { state.writeFailure = failure }
      guard !state.windowWaiters.isEmpty else {
        state.outstanding = max(state.outstanding - 1, 0)
        return nil
      }
      return state.windowWaiters.removeFirst()
    }
    next?.resume(returning: .success(()))
  }

  // MARK: - Events from the session's reader

  /// Delivers a non-final event; waits while the consumer is `bufferLimit` events behind, so
  /// a consumer that falls behind holds back the server rather than growing memory.
  func deliver(_ event: LinkEvent, bufferLimit: Int) async {
    continuation.yield(event)
    if continuation.buffered >= bufferLimit {
      await continuation.waitForRoom(below: bufferLimit / 2)
    }
  }

  /// The link is gone: the final event, then the stream ends; window waiters fail.
  func ended(_ reason: DisconnectReason) {
    let waiters = state.withLock {
      state -> [CheckedContinuation<Result<Void, LinkError>, Never>]? in
      guard state.ended == nil else { return nil }
      state.ended = reason
      defer { state.windowWaiters = [] }
      return state.windowWaiters
    }
    guard let waiters else { return }
    continuation.yield(.disconnected(reason))
    continuation.finish()
    for waiter in waiters { waiter.resume(returning: .failure(.disconnected(reason))) }
  }
}
