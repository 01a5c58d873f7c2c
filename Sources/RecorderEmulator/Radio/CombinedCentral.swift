import RecorderBluetooth
import RecorderConcurrency

/// Several emulated centrals heard as one radio: `recorder emulate --health …` serves the
/// recorder's ``EmulatorCentral`` and a ``HealthCentral`` on one TCP port this way.
///
/// Scans merge every member's advertisements; a connect goes to the first member that knows
/// the address (a member answering `unknownPeripheral` passes it on). The state is the first
/// member's. Order matters: ``EmulatorCentral`` refuses a non-recorder service before it
/// looks at the address, so put a ``HealthCentral`` before it.
public final class CombinedCentral: Central {
  public let members: [any Central]

  /// - Precondition: at least one member.
  public init(_ members: [any Central]) {
    precondition(!members.isEmpty, "a CombinedCentral needs a member")
    self.members = members
  }

  public var state: CentralState { get async { await members[0].state } }

  public func stateUpdates() -> AsyncStream<CentralState> { members[0].stateUpdates() }

  public func scan(services: [BluetoothUUID]?) -> AsyncStream<Advertisement> {
    let members = self.members
    return AsyncStream { continuation in
      let task = Task {
        await withTaskGroup(of: Void.self) { group in
          for member in members {
            group.addTask {
              for await advertisement in member.scan(services: services) {
                continuation.yield(advertisement)
              }
            }
          }
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  public func connect(_ peripheral: PeripheralID, services: [BluetoothUUID], timeout: Duration)
    async throws(LinkError) -> any PeripheralLink
  {
    var last = LinkError.unknownPeripheral(peripheral)
    for member in members {
      do {
        return try await member.connect(peripheral, services: services, timeout: timeout)
      } catch .unknownPeripheral(let id) {
        last = .unknownPeripheral(id)
      }
    }
    throw last
  }

  public func restoredPeripherals() async -> [PeripheralID] {
    var all: [PeripheralID] = []
    for member in members { all += await member.restoredPeripherals() }
    return all
  }
}
