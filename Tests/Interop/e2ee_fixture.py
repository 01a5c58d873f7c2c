#!/usr/bin/env python3
"""Writes E2EEFixture.swift into the given folder (Tests/TestSupport, shared by the tests): an end-to-end encrypted recording
(PROTOCOL.md section 9) made by an implementation independent of RecorderKit (Python
`cryptography`): a fresh RSA-2048 user key, a random file key and nonce, the key wrapped
PKCS#1 v1.5, the audio ChaCha20 (RFC 7539, block counter 0). Usage:
  e2ee_fixture.py RAW_OPUS_FILE FRAMES DIR
"""
import hashlib, os, struct, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

raw, frames, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
audio = open(raw, "rb").read()[: frames * 80]
user = rsa.generate_private_key(public_exponent=65537, key_size=2048)
pem = user.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                         serialization.NoEncryption()).decode()
key, nonce = os.urandom(32), os.urandom(12)
cipher = user.public_key().encrypt(key, padding.PKCS1v15())
header = (b"PLAUD.AI" + struct.pack("<HHI", 1, 512, 0) + b"user-1".ljust(32, b"\0")
          + struct.pack("<HHHI", 0, 1, 1, frames // 50) + bytes(70)
          + struct.pack("<I", 0) + nonce + struct.pack("<I", 0) + bytes(108) + cipher)
assert len(header) == 512
body = Cipher(algorithms.ChaCha20(key, struct.pack("<I", 0) + nonce), None).encryptor().update(audio)
data = (header + body).hex()
lines = [data[i:i + 88] for i in range(0, len(data), 88)]
swift = ("/// An E2EE recording made by Tests/Interop/e2ee_fixture.py (Python `cryptography`, not\n"
         "/// RecorderKit): the format's known-answer vector. Test data, not a secret.\n"
         "public enum E2EEFixture {\n"
         f"  /// SHA-256 of the plain audio ({frames} device Opus frames).\n"
         f"  public static let plainSHA256 = \"{hashlib.sha256(audio).hexdigest()}\"\n"
         "  /// The user's private key (PKCS#8 PEM).\n"
         "  public static let userKeyPEM = \"\"\"\n"
         + "".join("    " + l + "\n" for l in pem.strip().split("\n")) + "    \"\"\"\n"
         "  /// The file as a device stores it (header + encrypted audio), hex.\n"
         "  public static let fileHex = [\n"
         + "".join(f"    \"{l}\",\n" for l in lines) + "  ].joined()\n}\n")
for d in dirs:
    open(os.path.join(d, "E2EEFixture.swift"), "w").write(swift)
