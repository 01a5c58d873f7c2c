/// A bench set-up that did not go as a test needs (its text says what).
package struct BenchError: Error, CustomStringConvertible {
  package let description: String
  package init(_ description: String) { self.description = description }
}
