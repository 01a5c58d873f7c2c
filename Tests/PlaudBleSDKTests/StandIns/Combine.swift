// swift-format-ignore-file
// A stand-in for Apple's Combine (absent on Linux): declarations only, with the signatures of
// Apple's documentation, for what the vendor's template app's managers use, so
// scripts/check-vendor-template.sh can type-check them. Never run.
import Foundation

public protocol Cancellable { func cancel() }

public final class AnyCancellable: Cancellable, Hashable {
  public init(_ cancel: @escaping () -> Void) {}
  public func cancel() {}
  public func store(in set: inout Set<AnyCancellable>) {}
  public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

public protocol Publisher<Output, Failure> {
  associatedtype Output
  associatedtype Failure: Error
}

public struct AnyPublisher<Output, Failure: Error>: Publisher {
  public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {}
}

extension Publisher {
  public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> { AnyPublisher(self) }
  public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
    Publishers.Map(upstream: self, transform: transform)
  }
  public func receive<S>(on scheduler: S) -> Publishers.ReceiveOn<Self, S> {
    Publishers.ReceiveOn(upstream: self, scheduler: scheduler)
  }
  public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> where Output: Equatable {
    Publishers.RemoveDuplicates(upstream: self)
  }
}

extension Publisher where Failure == Never {
  public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
    AnyCancellable {}
  }
  public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root)
    -> AnyCancellable
  {
    AnyCancellable {}
  }
}

extension Publisher {
  public func sink(
    receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
    receiveValue: @escaping (Output) -> Void
  ) -> AnyCancellable {
    AnyCancellable {}
  }
}

public enum Subscribers {
  public enum Completion<Failure: Error> {
    case finished
    case failure(Failure)
  }
}

public enum Publishers {
  public struct Map<Upstream: Publisher, Output>: Publisher {
    public typealias Failure = Upstream.Failure
    public let upstream: Upstream
    public let transform: (Upstream.Output) -> Output
  }
  public struct ReceiveOn<Upstream: Publisher, Context>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure
    public let upstream: Upstream
    public let scheduler: Context
  }
  public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure
    public let upstream: Upstream
  }
}

public protocol Subject<Output, Failure>: AnyObject, Publisher {
  func send(_ value: Output)
  func send(completion: Subscribers.Completion<Failure>)
}

extension Subject where Output == Void {
  public func send() {}
}

public final class CurrentValueSubject<Output, Failure: Error>: Subject {
  public var value: Output
  public init(_ value: Output) { self.value = value }
  public func send(_ input: Output) { value = input }
  public func send(completion: Subscribers.Completion<Failure>) {}
}

public final class PassthroughSubject<Output, Failure: Error>: Subject {
  public init() {}
  public func send(_ input: Output) {}
  public func send(completion: Subscribers.Completion<Failure>) {}
}

public struct Just<Output>: Publisher {
  public typealias Failure = Never
  public let output: Output
  public init(_ output: Output) { self.output = output }
}

public protocol ObservableObject: AnyObject {}

@propertyWrapper public struct Published<Value> {
  public var wrappedValue: Value
  public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
  public var projectedValue: AnyPublisher<Value, Never> { fatalError("stand-in") }
}

extension Timer {
  public static func publish(
    every interval: TimeInterval, tolerance: TimeInterval? = nil, on runLoop: RunLoop,
    in mode: RunLoop.Mode, options: RunLoop.SchedulerOptions? = nil
  ) -> TimerPublisher {
    TimerPublisher()
  }
  public final class TimerPublisher: Publisher {
    public typealias Output = Date
    public typealias Failure = Never
    public func autoconnect() -> Publishers.Map<TimerPublisher, Date> {
      Publishers.Map(upstream: self, transform: { $0 })
    }
  }
}

extension RunLoop {
  public struct SchedulerOptions {}
}
