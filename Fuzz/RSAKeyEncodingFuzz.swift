// libFuzzer entry over the PEM and DER readers of RecorderCrypto's RSAKeyEncoding (the key
// files a user hands the Apple engine). Built with the RecorderCrypto sources in one module
// by scripts/fuzz.sh. A trap or sanitizer report is a bug; a thrown CryptoError is the
// expected answer to garbage. Whatever reads must write back to the same bytes.

@_cdecl("LLVMFuzzerTestOneInput")
public func rsaKeyEncodingFuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  if let pkcs1 = try? RSAKeyEncoding.pkcs1(fromPKCS8: bytes) {
    // Non-minimal DER lengths read too, so only the content must survive a rewrite.
    let again = try? RSAKeyEncoding.pkcs1(fromPKCS8: RSAKeyEncoding.pkcs8(fromPKCS1: pkcs1))
    precondition(again == pkcs1, "PKCS#8 did not survive re-encoding")
  }
  if let pkcs1 = try? RSAKeyEncoding.pkcs1Public(fromSPKI: bytes) {
    let again = try? RSAKeyEncoding.pkcs1Public(
      fromSPKI: RSAKeyEncoding.spki(fromPKCS1Public: pkcs1))
    precondition(again == pkcs1, "SubjectPublicKeyInfo did not survive re-encoding")
  }
  let text = String(decoding: bytes, as: UTF8.self)
  if let (label, der) = try? RSAKeyEncoding.der(fromPEM: text) {
    let again = try? RSAKeyEncoding.der(fromPEM: RSAKeyEncoding.pem(der, label: label))
    precondition(
      again?.label == label && again?.der == der, "a PEM block did not survive re-encoding")
  }
  // The encrypted-key detector both engines run first never traps, and always finds a first
  // block that is labelled as encrypted.
  let encrypted = RSAKeyEncoding.isEncryptedPrivateKey(pem: text)
  if let (label, _) = try? RSAKeyEncoding.der(fromPEM: text), label == "ENCRYPTED PRIVATE KEY" {
    precondition(encrypted, "an ENCRYPTED PRIVATE KEY block was not taken for encrypted")
  }
  if let decoded = Base64.decode(text) {
    precondition(Base64.decode(Base64.encode(decoded)) == decoded, "base64 round trip")
  }
  return 0
}
