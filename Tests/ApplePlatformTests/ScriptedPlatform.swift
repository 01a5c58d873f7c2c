import RecorderConcurrency
import RecorderKit

/// BGTaskScheduler as a script: a test launches the registered task.
final class ScriptedScheduler: TaskSchedulerMirror {
  struct State {
    var handler: (@Sendable (any ProcessingTaskMirror) -> Void)?
    var submitted = 0
    var continued: [String] = []
    var refuseContinued = false
  }
  let state = Locked(State())

  func register(
    identifier: String, launchHandler: @escaping @Sendable (any ProcessingTaskMirror) -> Void
  ) -> Bool {
    state.withLock { $0.handler = launchHandler }
    return true
  }

  func submitProcessingRequest(identifier: String) -> Bool {
    state.withLock { $0.submitted += 1 }
    return true
  }

  func submitProcessingRequest(identifier: String, requiresExternalPower: Bool) -> Bool {
    state.withLock { $0.submitted += 1 }
    return true
  }

  func submitContinuedProcessingRequest(identifier: String, title: String, subtitle: String)
    -> Bool
  {
    state.withLock { state in
      guard !state.refuseContinued else { return false }
      state.continued.append(title)
      return true
    }
  }

  /// Launches the task and returns it.
  func launch() -> ScriptedProcessingTask {
    let task = ScriptedProcessingTask()
    state.withLock { $0.handler }?(task)
    return task
  }
}

final class ScriptedProcessingTask: ProcessingTaskMirror {
  let expiration = Locked<(@Sendable () -> Void)?>(nil)
  let completed = Locked<Bool?>(nil)
  let progress = Locked<[Int64]>([])
  func reportProgress(completed: Int64, total: Int64) {
    progress.withLock { $0.append(completed * 100 / max(total, 1)) }
  }
  func setExpirationHandler(_ handler: @escaping @Sendable () -> Void) {
    expiration.withLock { $0 = handler }
  }
  func setTaskCompleted(success: Bool) { completed.withLock { $0 = success } }
  func expire() { expiration.withLock { $0 }?() }
}

/// NEHotspotConfigurationManager as a script: answers each join with the next failure.
final class ScriptedHotspotConfiguration: HotspotConfigurationMirror {
  let answers: Locked<[HotspotConfigurationFailure?]>
  let joins = Locked<[(ssid: String, passphrase: String, joinOnce: Bool)]>([])
  let removed = Locked<[String]>([])

  init(answers: [HotspotConfigurationFailure?]) { self.answers = Locked(answers) }

  func apply(ssid: String, passphrase: String, joinOnce: Bool) async
    -> HotspotConfigurationFailure?
  {
    joins.withLock { $0.append((ssid, passphrase, joinOnce)) }
    return answers.withLock { $0.isEmpty ? nil : $0.removeFirst() }
  }

  func removeConfiguration(ssid: String) { removed.withLock { $0.append(ssid) } }
}

/// The Keychain as a dictionary answering with real `OSStatus` codes.
final class ScriptedKeychain: KeychainMirror {
  let items = Locked<[String: [UInt8]]>([:])
  let failWith = Locked<Int32?>(nil)

  func add(service: String, account: String, data: [UInt8]) -> Int32 {
    if let status = failWith.withLock({ $0 }) { return status }
    return items.withLock { items in
      guard items[service + "/" + account] == nil else { return -25299 }
      items[service + "/" + account] = data
      return 0
    }
  }
  func update(service: String, account: String, data: [UInt8]) -> Int32 {
    items.withLock { items in
      guard items[service + "/" + account] != nil else { return -25300 }
      items[service + "/" + account] = data
      return 0
    }
  }
  func copy(service: String, account: String) -> (status: Int32, data: [UInt8]?) {
    if let status = failWith.withLock({ $0 }) { return (status, nil) }
    return items.withLock { items in
      items[service + "/" + account].map { (0, $0) } ?? (-25300, nil)
    }
  }
  func delete(service: String, account: String) -> Int32 {
    items.withLock { $0.removeValue(forKey: service + "/" + account) == nil ? -25300 : 0 }
  }
}
