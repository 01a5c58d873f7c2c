import Foundation

// The one seeded generator (RecorderConcurrency's), under the name the tests use.
@_exported import struct RecorderConcurrency.SplitMix64

public enum TestSeed {
  /// The fixed default, so CI runs are reproducible.
  public static let defaultSeed: UInt64 = 0x5EED_2026_0002

  /// `RECORDER_TEST_SEED` (decimal or `0x` hex) when set, else ``defaultSeed``.
  public static var current: UInt64 {
    guard let text = ProcessInfo.processInfo.environment["RECORDER_TEST_SEED"] else {
      return defaultSeed
    }
    if text.hasPrefix("0x") || text.hasPrefix("0X") {
      return UInt64(text.dropFirst(2), radix: 16) ?? defaultSeed
    }
    return UInt64(text) ?? defaultSeed
  }
}

/// Value helpers over a ``SplitMix64``, biased towards the edges (0, max) where codecs break.
public struct Gen {
  public var rng: SplitMix64

  public init(seed: UInt64) { rng = SplitMix64(seed: seed) }

  public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
  public mutating func bool() -> Bool { rng.next() & 1 == 1 }
  /// True with probability 1/n.
  public mutating func oneIn(_ n: UInt64) -> Bool { rng.next() % n == 0 }

  public mutating func integer<T: FixedWidthInteger & UnsignedInteger>(_: T.Type = T.self) -> T {
    switch rng.next() % 8 {
    case 0: 0
    case 1: T.max
    case 2: T(truncatingIfNeeded: rng.next() % 256)
    default: T(truncatingIfNeeded: rng.next())
    }
  }

  public mutating func u8() -> UInt8 { integer() }
  public mutating func u16() -> UInt16 { integer() }
  public mutating func u32() -> UInt32 { integer() }
  public mutating func u64() -> UInt64 { integer() }
  public mutating func i8() -> Int8 { Int8(bitPattern: u8()) }

  public mutating func maybe<T>(_ make: (inout Gen) -> T) -> T? {
    bool() ? make(&self) : nil
  }

  public mutating func bytes(_ count: ClosedRange<Int>) -> [UInt8] {
    (0..<int(count)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
  }

  public mutating func element<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

  /// Printable ASCII (0x20–0x7E), exactly `count` characters.
  public mutating func printable(_ count: Int) -> [UInt8] {
    (0..<count).map { _ in UInt8(0x20 + rng.next() % 95) }
  }

  /// Valid UTF-8 without NUL, at most `maxBytes` bytes, mixing 1- to 4-byte characters.
  public mutating func text(maxBytes: Int) -> String {
    let pool: [String] = ["a", "Z", "0", "_", " ", "~", "é", "ß", "日", "本", "🎙", "\u{7F}", "\u{1}"]
    var out = ""
    let target = int(0...maxBytes)
    while true {
      let next = element(pool)
      if out.utf8.count + next.utf8.count > target { return out }
      out += next
    }
  }
}
