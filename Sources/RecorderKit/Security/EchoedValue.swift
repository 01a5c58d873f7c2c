/// A value from outside (an option the user typed, a domain an app passed, a path) as an
/// error or a warning shows it: at most ``limit`` characters, then an ellipsis and the whole
/// length, with control and format characters escaped (`\u{1B}`), so a value of 100,000
/// characters cannot flood a log and one holding terminal escapes cannot rewrite the
/// screen it is shown on (issue 39). Everything else is shown as written.
///
/// The one way RecorderKit and the `recorder` tool echo such a value: interpolate
/// `EchoedValue(text)`, never the text itself.
package struct EchoedValue: CustomStringConvertible, Sendable {
  /// The most characters shown.
  package static let limit = 200

  /// The value as given.
  package let text: String

  package init(_ text: String) { self.text = text }

  package var description: String {
    var shown = ""
    for scalar in text.prefix(Self.limit).unicodeScalars {
      switch scalar.properties.generalCategory {
      case .control, .format, .lineSeparator, .paragraphSeparator:
        shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      default: shown.unicodeScalars.append(scalar)
      }
    }
    let count = text.count
    return count > Self.limit ? shown + "… (\(count) characters)" : shown
  }
}
