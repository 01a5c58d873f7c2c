/// CAPABILITY `008A` (PROTOCOL.md §3.1) [sdk-code]: the bitmap a device pushes, `01 8A 00
/// <bitmap>`, which the host answers with ``hostAnswer`` (all bits). Only bit 3 has a known
/// reader: set, the device seals its Wi-Fi PDUs with AES-256-GCM; clear, with
/// ChaCha20-Poly1305 (§6). Which devices push it, and when, no source shows; RecorderKit's
/// emulator pushes it on Mode B devices right after a successful HANDSHAKE [project].
public struct CapabilityBitmap: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Bit 3: Wi-Fi PDUs use AES-256-GCM [sdk-code].
  public static let wifiAESGCMBit: UInt8 = 0x08
  /// The host's answer to each push: every bit set [sdk-code].
  public static let hostAnswer: UInt8 = 0xFF

  /// A bitmap with only bit 3 as given.
  public init(wifiAESGCM: Bool) { rawValue = wifiAESGCM ? Self.wifiAESGCMBit : 0 }

  /// Whether the device seals its Wi-Fi PDUs with AES-256-GCM (else ChaCha20-Poly1305).
  public var wifiAESGCM: Bool { rawValue & Self.wifiAESGCMBit != 0 }

  public var description: String { "0x" + hex(rawValue) }
}
