import Foundation
import RecorderAudio
import RecorderBluetooth
import RecorderConcurrency
import RecorderEmulator
import RecorderKit
import RecorderProtocol
import RecorderStore
import TestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Median of a few measurements.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

func milliseconds(_ seconds: Double) -> String { String(format: "%.3f", seconds * 1000) }

/// Prints and flushes at once, so a long section shows its figures as they come.
func say(_ text: String) {
  print(text)
  fflush(nil)
}
