import RecorderKit
import Testing

/// Issue 39, item 9b: how a value from outside is echoed in an error.
@Suite("Echoed values")
struct EchoedValueTests {
  @Test("up to 200 characters as written; longer cut, with an ellipsis and the whole length")
  func clipped() {
    let exact = String(repeating: "a", count: EchoedValue.limit)
    #expect("\(EchoedValue(exact))" == exact)
    #expect("\(EchoedValue("ftp://x.example"))" == "ftp://x.example")
    let long = String(repeating: "b", count: 100_000)
    #expect("\(EchoedValue(long))" == String(repeating: "b", count: 200) + "… (100000 characters)")
    // Characters, not bytes: a multi-byte character is never split.
    let wide = String(repeating: "é", count: 201)
    #expect("\(EchoedValue(wide))" == String(repeating: "é", count: 200) + "… (201 characters)")
  }

  @Test("control and format characters are escaped, so an echo cannot drive the terminal")
  func escaped() {
    #expect("\(EchoedValue("a\u{1B}[2Jb"))" == "a\\u{1B}[2Jb")
    #expect("\(EchoedValue("line\nnext\r"))" == "line\\u{A}next\\u{D}")
    #expect("\(EchoedValue("abc\u{202E}fdp.exe"))" == "abc\\u{202E}fdp.exe")
    #expect("\(EchoedValue("nul\u{0}"))" == "nul\\u{0}")
    #expect("\(EchoedValue("tab\there"))" == "tab\\u{9}here")
  }
}
