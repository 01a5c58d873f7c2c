import TestSupport
import Testing

@testable import RecorderProtocol

@Suite("JSONParser: strict grammar, limits, typed errors, key order kept")
struct JSONParserTests {
  func parse(_ text: String, _ parser: JSONParser = JSONParser()) throws(JSONParseError)
    -> JSONValue
  {
    try parser.parse(Array(text.utf8))
  }

  func failure(_ bytes: [UInt8], _ parser: JSONParser = JSONParser()) -> JSONParseError? {
    do { _ = try parser.parse(bytes) } catch { return error }
    return nil
  }

  func failure(_ text: String, _ parser: JSONParser = JSONParser()) -> JSONParseError? {
    failure(Array(text.utf8), parser)
  }

  @Test func parsesEveryKindOfValueAndKeepsKeyOrder() throws {
    let value = try parse(
      #" {"z":1,"a":[true,false,null,-5,0,2.5,1e3,"s\"\\\/\b\f\n\r\t\u00e9\ud83c\udf99"],"m":{}} "#)
    #expect(
      value
        == .object([
          ("z", .int(1)),
          (
            "a",
            .array([
              .bool(true), .bool(false), .null, .int(-5), .int(0), .double(2.5), .double(1000),
              .string("s\"\\/\u{8}\u{c}\n\r\té🎙"),
            ])
          ),
          ("m", .object([])),
        ]))
    #expect(value["a"] != nil && value["missing"] == nil)
    #expect(try parse("18446744073709551615") == .uint(UInt64.max))
    #expect(try parse("-9223372036854775808") == .int(Int64.min))
  }

  @Test func limitsAreEnforced() {
    let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
    #expect(failure(deep) == .tooDeep(limit: 32))
    let okDeep = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
    #expect(failure(okDeep) == nil)
    #expect(
      failure(String(repeating: "{\"a\":", count: 40) + "1" + String(repeating: "}", count: 40))
        == .tooDeep(limit: 32))
    #expect(failure("[1,2,3]", JSONParser(maxSize: 6)) == .tooLarge(size: 7, limit: 6))
    // A deep document far past the limit fails at the limit, not with a stack overflow.
    #expect(
      failure(String(repeating: "[", count: 100_000), JSONParser(maxSize: 1 << 20))
        == .tooDeep(limit: 32))
  }

  @Test func malformedTextGivesTypedErrors() {
    #expect(failure("") == .unexpectedEnd)
    #expect(failure("{") == .unexpectedEnd)
    #expect(failure(#"{"a""#) == .unexpectedEnd)
    #expect(failure("[1,]") == .unexpectedByte(UInt8(ascii: "]"), offset: 3))
    #expect(failure("{,}") == .unexpectedByte(UInt8(ascii: ","), offset: 1))
    #expect(failure(#"{"a":1 "b":2}"#) == .unexpectedByte(UInt8(ascii: "\""), offset: 7))
    #expect(failure("1 2") == .trailingBytes(offset: 2))
    #expect(failure("tru") == .unexpectedEnd)
    #expect(failure("nul1") == .unexpectedByte(UInt8(ascii: "1"), offset: 3))
    #expect(failure("01") == .invalidNumber(offset: 0))
    #expect(failure("-") == .unexpectedEnd)
    #expect(failure("-a") == .invalidNumber(offset: 0))
    #expect(failure("1.") == .invalidNumber(offset: 0))
    #expect(failure("1e") == .invalidNumber(offset: 0))
    #expect(failure("1e999") == .invalidNumber(offset: 0))
    #expect(failure(".5") == .unexpectedByte(UInt8(ascii: "."), offset: 0))
    #expect(failure(#""\x""#) == .invalidString(offset: 2))
    #expect(failure(#""\u12G4""#) == .invalidString(offset: 5))
    #expect(failure(#""\ud800""#) == .invalidString(offset: 0))
    #expect(failure(#""\ud800\u0041""#) == .invalidString(offset: 0))
    #expect(failure(#""\udc00""#) == .invalidString(offset: 0))
    #expect(failure([0x22, 0x09, 0x22]) == .invalidString(offset: 1))
    #expect(failure([0x22, 0xC0, 0xAF, 0x22]) == .invalidString(offset: 0))  // overlong "/"
    #expect(failure([0x22, 0xED, 0xA0, 0x80, 0x22]) == .invalidString(offset: 0))  // raw surrogate
    #expect(failure([0x22, 0xFF, 0x22]) == .invalidString(offset: 0))
    #expect(failure(#"{"a":1,"a":2}"#) == .duplicateKey("a"))
    #expect(failure("'a'") == .unexpectedByte(UInt8(ascii: "'"), offset: 0))
  }

  /// Seeded random values: what ``JSONValue/serialized`` writes, the parser reads back equal.
  @Test func serializedValuesParseBack() throws {
    let seed = TestSeed.current &+ 12
    var gen = Gen(seed: seed)
    func value(_ gen: inout Gen, depth: Int) -> JSONValue {
      switch gen.int(0...(depth > 4 ? 4 : 6)) {
      case 0: return .null
      case 1: return .bool(gen.bool())
      case 2: return .int(Int64(bitPattern: gen.u64()))
      case 3: return .string(gen.text(maxBytes: 12))
      case 4: return .double(Double(gen.int(-1000...1000)) + 0.25)
      case 5: return .array((0..<gen.int(0...4)).map { _ in value(&gen, depth: depth + 1) })
      default:
        var pairs: [(String, JSONValue)] = []
        for i in 0..<gen.int(0...4) {
          pairs.append(("k\(i)\(gen.text(maxBytes: 4))", value(&gen, depth: depth + 1)))
        }
        return .object(pairs)
      }
    }
    for _ in 0..<2000 {
      let original = value(&gen, depth: 0)
      let parsed = try JSONParser().parse(Array(original.serialized.utf8))
      #expect(parsed == original, "RECORDER_TEST_SEED=\(seed &- 12): \(original.serialized)")
    }
  }

  /// Random bytes and mutated JSON: a value or a typed error, never a trap.
  @Test func randomBytesNeverTrap() {
    let seed = TestSeed.current &+ 13
    var gen = Gen(seed: seed)
    let alphabet =
      Array(#"{}[]:,"\ 0123456789-+.eEtrufalsn"#.utf8) + [0x00, 0x7F, 0xC3, 0xA9, 0xED, 0xF0]
    var parsed = 0
    for _ in 0..<20_000 {
      let bytes = (0..<gen.int(0...24)).map { _ in gen.element(alphabet) }
      if (try? JSONParser(maxSize: 1024, maxDepth: 8).parse(bytes)) != nil { parsed += 1 }
    }
    #expect(parsed > 0, "RECORDER_TEST_SEED=\(seed &- 13)")
  }
}
