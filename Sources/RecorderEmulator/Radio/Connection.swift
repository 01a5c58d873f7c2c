import RecorderBluetooth
import RecorderConcurrency
import RecorderProtocol

/// The volatile state of the one central connected to an ``EmulatedDevice``: the radio's
/// queues, the negotiated MTU, subscriptions and authentication. Lost on disconnect and
/// reboot. Owned by the device actor (a value in its `connection` property).
struct Connection {
  /// A write waiting in the link's queue toward the device.
  struct PendingWrite {
    var value: [UInt8]
    /// Resumed when the device has received it (write with response), nil without.
    var acknowledgement: CheckedContinuation<Void, Never>?
  }

  /// A notification the device has queued.
  struct Outgoing {
    var characteristic: BluetoothUUID
    var value: [UInt8]
    /// Not sent before this virtual time (a slow device's processing delay).
    var readyAt: Duration
    /// Mode B: sent as it is, never sealed (the pre-handshake chunks).
    var plain = false
    /// The link drops right after this notification (``WiFiParameters/dropsBLEOnOpen``).
    var dropsLinkAfter = false
  }

  let id: Int
  let peripheral: PeripheralID
  let events: BackpressureStream<LinkEvent>.Continuation
  /// Wakes the link pump when work arrives while it is idle.
  let wake: AsyncStream<Void>.Continuation
  /// The connection event grid starts here.
  let anchor: Duration

  var mtu = LinkParameters.minimumMTU
  var notifying = false
  var batteryNotifying = false
  var authenticated = false
  /// A two-stage HANDSHAKE (``DeviceConfiguration/twoStageHandshake``): the first stage was
  /// answered with GET_SERIAL; the second is awaited.
  var awaitingSecondStage = false
  /// The next reply queued drops the link once sent (``WiFiParameters/dropsBLEOnOpen``).
  var dropAfterNextReply = false
  /// Mode B: the pre-handshake message being received.
  /// (Its index base is set from ``ModeBParameters/phoneChunkIndexBase`` when the link comes
  /// up.)
  var preHandshake = PreHandshakeAssembler()
  /// Mode B: the open channel (nil before the pre-handshake ends, and on a plain device).
  var channel: DeviceChannel?
  /// A wrong token was presented: every vendor opcode is ignored from now on [device].
  var rejected = false
  var writeQueue: [PendingWrite] = []
  var roomWaiters: [CheckedContinuation<Void, Never>] = []
  /// A writer found the queue full: tell the central when room frees.
  var owesReadySignal = false
  /// Writers resumed with room that have not run again yet (the pump waits for them).
  var writersGivenRoom = 0
  var outgoing: [Outgoing] = []
  var sync: SyncStream?
  /// The sync stream waits for the phone's next write (``FaultPlan/pauseDataAfterBytes``);
  /// the hold (nil on a real clock) keeps a manual clock still meanwhile.
  var dataPaused = false
  var dataPauseHold: ManualClock.WorkToken?
  /// Frames to let out of the pause (``EmulatedDevice/stepData()``), not yet sent.
  var dataPauseSteps = 0
  var lastEvent: Duration?
  /// Held (manual clock) while the link has traffic, so auto-advance never skips it.
  var busyToken: ManualClock.WorkToken?
  /// Holds a manual clock while it is the central's turn to write: from the connection
  /// until its first write, and from a Mode B key exchange message until the answer (at most
  /// ``EmulatedDevice/setUpGrace`` of real time each). The central's work in between takes
  /// real time, not simulated time, so the authentication timer must not be jumped to.
  var setUpGrace: ManualClock.WorkToken?
  var authenticationTimer: Task<Void, Never>?
  /// Holds a manual clock while notifications wait unread at the central (released with
  /// the connection).
  var unreadHold: UnreadHold?
  /// The link pump, waiting for the consumer to read or a write to arrive.
  var pumpWaiter: CheckedContinuation<Void, Never>?

  init(
    id: Int, peripheral: PeripheralID, events: BackpressureStream<LinkEvent>.Continuation,
    wake: AsyncStream<Void>.Continuation, anchor: Duration
  ) {
    self.id = id
    self.peripheral = peripheral
    self.events = events
    self.wake = wake
    self.anchor = anchor
  }

  /// Largest value one notification or write may carry.
  var maximumValueLength: Int { mtu - 3 }
}

/// One SYNC_START being served: data frames in offset order over `[nextOffset, end)`, then
/// the terminal frame and the `001D` tail. The file is read in chunks, never whole.
struct SyncStream {
  let sessionId: SessionID
  var nextOffset: Int
  /// nil: to the end of the recording, following it while it is live.
  let end: Int?
  /// Data frames wait for the head (a slow device answers late).
  let readyAt: Duration
  /// CRC-16/CCITT-FALSE of the file bytes of this request, in offset order [project].
  var crc = CRC16()
  /// CRC of this request's frames as sent, headers included (`TailCRCCoverage/requestFrames`).
  var framesCRC = CRC16()
  var buffer: [UInt8] = []
  var bufferOffset = 0

  /// Bytes read from flash at a time (800 mono frames).
  static let chunkBytes = 64_000
}
