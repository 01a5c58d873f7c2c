#if os(Linux)
  import CDBus
  import Foundation
  import Glibc
  import RecorderConcurrency

  /// A D-Bus error: its name (`org.bluez.Error.Failed`) and the service's words.
  public struct DBusFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error's D-Bus name, `org.bluez.Error.*` or `org.freedesktop.DBus.Error.*`.
    public var name: String
    /// The service's explanation (may be empty).
    public var message: String
    /// A failure with this name and message.
    public init(name: String, message: String) {
      self.name = name
      self.message = message
    }
    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// No reply within the call's timeout (the name libdbus uses for its own timeouts).
    static func noReply(_ method: String) -> DBusFailure {
      DBusFailure(name: "org.freedesktop.DBus.Error.NoReply", message: "no reply to \(method)")
    }
    /// The bus connection is gone.
    static let disconnected = DBusFailure(
      name: "org.freedesktop.DBus.Error.Disconnected", message: "the bus connection was closed")
  }

  /// A signal as it arrived: who sent it, from which object, and its arguments.
  struct BusSignal: Sendable {
    var sender: String
    var path: String
    var interface: String
    var member: String
    var arguments: [DBusValue]
  }

  /// One private connection to a message bus, over libdbus-1.
  ///
  /// **Why libdbus-1 and not sd-bus.** Both are well kept and in Debian. libdbus-1 is on every
  /// Linux that runs bluetoothd (sd-bus needs libsystemd, absent on Alpine/OpenRC gateways);
  /// its message API is non-variadic (`dbus_message_iter_append_basic`, `open_container`),
  /// which Swift calls directly, whereas sd-bus's idiomatic `sd_bus_message_append/read` are
  /// C varargs Swift cannot call; and it passes Unix descriptors (`h`), which AcquireNotify
  /// and AcquireWrite need.
  ///
  /// **Threading.** libdbus is driven by one thread this object owns (the *bus thread*):
  /// every libdbus call on the connection happens there. Callers hand work to it through
  /// `jobs` (under a lock) and wake it through an eventfd; it polls the bus socket and the
  /// eventfd, reads, dispatches replies to the waiting callers (matched by serial) and
  /// signals to the subscribers, and times calls out itself (libdbus's own timeouts need a
  /// main loop integration we do not have).
  ///
  /// `@unchecked Sendable` is sound: `connection` and `pending` are touched only on the bus
  /// thread (`run()` and the jobs and filter callbacks it runs); everything other threads
  /// touch lives in `shared`, a `Locked`; `wakeFD` is an immutable descriptor and eventfd
  /// writes are atomic.
  final class BusConnection: @unchecked Sendable {
    private struct Pending {
      var method: String
      var deadline: ContinuousClock.Instant
      /// Hands the call its result (see ``call(_:_:_:_:_:timeout:)``).
      var reply: @Sendable (Result<[DBusValue], DBusFailure>) -> Void
    }

    private struct Shared {
      var jobs: [@Sendable (OpaquePointer) -> Void] = []
      var handlers: [Int: @Sendable (BusSignal) -> Void] = [:]
      var closeHandlers: [@Sendable () -> Void] = []
      var nextHandler = 0
      var closed = false
      var closing = false
    }

    private let connection: OpaquePointer
    private let wakeFD: Int32
    private let shared = Locked(Shared())
    /// Bus thread only.
    private var pending: [UInt32: Pending] = [:]
    /// Our unique name on the bus (`:1.42`).
    let uniqueName: String

    /// Connects to `address` (a D-Bus address such as `unix:path=/run/dbus/system_bus_socket`)
    /// or, when nil, to the system bus (libdbus reads `DBUS_SYSTEM_BUS_ADDRESS` itself, so
    /// tests point it at their private bus), registers, and starts the bus thread.
    /// Blocks the calling thread for the connect and the registration round trip.
    init(address: String?) throws(DBusFailure) {
      dbus_threads_init_default()
      var error = CDBus.DBusError()
      dbus_error_init(&error)
      defer { dbus_error_free(&error) }
      func failure(_ fallback: String) -> DBusFailure {
        if dbus_error_is_set(&error) != 0 {
          return DBusFailure(
            name: error.name.map { String(cString: $0) } ?? fallback,
            message: error.message.map { String(cString: $0) } ?? "")
        }
        return DBusFailure(name: fallback, message: "")
      }
      let opened: OpaquePointer?
      if let address {
        opened = dbus_connection_open_private(address, &error)
        if let opened, dbus_bus_register(opened, &error) == 0 {
          dbus_connection_close(opened)
          dbus_connection_unref(opened)
          throw failure("org.freedesktop.DBus.Error.Failed")
        }
      } else {
        opened = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
      }
      guard let opened else { throw failure("org.freedesktop.DBus.Error.Failed") }
      dbus_connection_set_exit_on_disconnect(opened, 0)
      connection = opened
      uniqueName = dbus_bus_get_unique_name(opened).map { String(cString: $0) } ?? ""
      wakeFD = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
      let context = Unmanaged.passUnretained(self).toOpaque()
      dbus_connection_add_filter(
        opened,
        { _, message, context in
          guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
          let bus = Unmanaged<BusConnection>.fromOpaque(context).takeUnretainedValue()
          return bus.filter(message)
        }, context, nil)
      let thread = Thread { [self] in run() }
      thread.name = "RecorderBlueZ D-Bus"
      thread.start()
    }

    /// Closes the connection: pending calls fail with ``DBusFailure/disconnected``.
    func close() {
      shared.withLock { $0.closing = true }
      wake()
    }

    /// Calls `method`; the reply's arguments or the error. Never hangs: a call without a
    /// reply within `timeout` fails with `org.freedesktop.DBus.Error.NoReply`.
    func call(
      _ destination: String, _ path: String, _ interface: String, _ method: String,
      _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async -> Result<[DBusValue], DBusFailure> {
      let name = "\(interface).\(method)"
      // The result is made on the bus thread and crosses to the caller through a lock: an
      // explicit happens-before edge for everything decoding it wrote (ThreadSanitizer does
      // not see one through the continuation alone).
      let slot = Locked<Result<[DBusValue], DBusFailure>?>(nil)
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let reply: @Sendable (Result<[DBusValue], DBusFailure>) -> Void = { result in
          slot.withLock { $0 = result }
          continuation.resume()
        }
        let accepted = submit { [self] connection in
          guard
            let message = dbus_message_new_method_call(destination, path, interface, method)
          else {
            reply(.failure(DBusFailure(name: "NoMemory", message: name)))
            return
          }
          defer { dbus_message_unref(message) }
          guard DBusValue.append(arguments, to: message) else {
            reply(
              .failure(
                DBusFailure(
                  name: "org.freedesktop.DBus.Error.InvalidArgs",
                  message: "cannot marshal the arguments of \(name)")))
            return
          }
          var serial: UInt32 = 0
          guard dbus_connection_send(connection, message, &serial) != 0 else {
            reply(.failure(.disconnected))
            return
          }
          pending[serial] = Pending(method: name, deadline: .now + timeout, reply: reply)
        }
        if !accepted { reply(.failure(.disconnected)) }
      }
      return slot.withLock { $0 } ?? .failure(.disconnected)
    }

    /// Calls `handler` on the bus thread for every signal (match rules decide which arrive);
    /// keep it short and non-blocking. Returns a token for ``unsubscribe(_:)``.
    @discardableResult
    func subscribe(_ handler: @escaping @Sendable (BusSignal) -> Void) -> Int {
      shared.withLock { shared in
        let id = shared.nextHandler
        shared.nextHandler += 1
        shared.handlers[id] = handler
        return id
      }
    }

    func unsubscribe(_ id: Int) {
      shared.withLock { _ = $0.handlers.removeValue(forKey: id) }
    }

    /// Calls `handler` once when the connection ends (the bus went away or ``close()``).
    func onClose(_ handler: @escaping @Sendable () -> Void) {
      let closed = shared.withLock { shared -> Bool in
        if !shared.closed { shared.closeHandlers.append(handler) }
        return shared.closed
      }
      if closed { handler() }
    }

    var isClosed: Bool { shared.withLock { $0.closed } }

    /// Adds a match rule (which signals the bus sends us).
    func addMatch(_ rule: String) async -> Result<Void, DBusFailure> {
      await call(
        "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch",
        [.string(rule)]
      ).map { _ in () }
    }

    // MARK: The bus thread

    private func submit(_ job: @escaping @Sendable (OpaquePointer) -> Void) -> Bool {
      let accepted = shared.withLock { shared -> Bool in
        guard !shared.closed, !shared.closing else { return false }
        shared.jobs.append(job)
        return true
      }
      if accepted { wake() }
      return accepted
    }

    private func wake() {
      var one: UInt64 = 1
      _ = Glibc.write(wakeFD, &one, 8)
    }

    private func filter(_ message: OpaquePointer) -> DBusHandlerResult {
      let type = dbus_message_get_type(message)
      switch type {
      case DBUS_MESSAGE_TYPE_METHOD_RETURN, DBUS_MESSAGE_TYPE_ERROR:
        let serial = dbus_message_get_reply_serial(message)
        guard let waiting = pending.removeValue(forKey: serial) else {
          return DBUS_HANDLER_RESULT_HANDLED
        }
        let arguments = DBusValue.arguments(of: message)
        if type == DBUS_MESSAGE_TYPE_ERROR {
          let name = dbus_message_get_error_name(message).map { String(cString: $0) } ?? "Error"
          waiting.reply(
            .failure(
              DBusFailure(name: name, message: arguments.first?.stringValue ?? "")))
        } else {
          waiting.reply(.success(arguments))
        }
        return DBUS_HANDLER_RESULT_HANDLED
      case DBUS_MESSAGE_TYPE_SIGNAL:
        func text(_ pointer: UnsafePointer<CChar>?) -> String {
          pointer.map { String(cString: $0) } ?? ""
        }
        let signal = BusSignal(
          sender: text(dbus_message_get_sender(message)),
          path: text(dbus_message_get_path(message)),
          interface: text(dbus_message_get_interface(message)),
          member: text(dbus_message_get_member(message)),
          arguments: DBusValue.arguments(of: message))
        let handlers = shared.withLock { Array($0.handlers.values) }
        for handler in handlers { handler(signal) }
        return DBUS_HANDLER_RESULT_HANDLED
      default:
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
      }
    }

    private func run() {
      var socketFD: Int32 = -1
      dbus_connection_get_unix_fd(connection, &socketFD)
      while true {
        let (jobs, closing) = shared.withLock { shared in
          defer { shared.jobs.removeAll() }
          return (shared.jobs, shared.closing)
        }
        for job in jobs { job(connection) }
        dbus_connection_read_write(connection, 0)
        while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
        expirePending()
        if closing || dbus_connection_get_is_connected(connection) == 0 { break }
        var fds = [
          pollfd(
            fd: socketFD,
            events: Int16(POLLIN)
              | (dbus_connection_has_messages_to_send(connection) != 0 ? Int16(POLLOUT) : 0),
            revents: 0),
          pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        _ = poll(&fds, 2, pollTimeout())
        if fds[1].revents != 0 {
          var value: UInt64 = 0
          _ = Glibc.read(wakeFD, &value, 8)
        }
      }
      finish()
    }

    private func pollTimeout() -> Int32 {
      guard let next = pending.values.map(\.deadline).min() else { return -1 }
      let left = ContinuousClock.now.duration(to: next)
      let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
      return Int32(clamping: max(0, ms + 1))
    }

    private func expirePending() {
      let now = ContinuousClock.now
      for (serial, waiting) in pending where waiting.deadline <= now {
        pending.removeValue(forKey: serial)
        waiting.reply(.failure(.noReply(waiting.method)))
      }
    }

    private func finish() {
      let (jobs, handlers) = shared.withLock { shared in
        shared.closed = true
        defer {
          shared.jobs.removeAll()
          shared.closeHandlers.removeAll()
        }
        return (shared.jobs, shared.closeHandlers)
      }
      // Jobs queued after the last turn still resume their callers: with the connection
      // closed, their sends fail.
      dbus_connection_close(connection)
      for job in jobs { job(connection) }
      for (_, waiting) in pending {
        waiting.reply(.failure(.disconnected))
      }
      pending.removeAll()
      dbus_connection_unref(connection)
      Glibc.close(wakeFD)
      for handler in handlers { handler() }
    }
  }
#endif
