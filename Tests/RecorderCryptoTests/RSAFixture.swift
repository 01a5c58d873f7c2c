/// A fixed RSA-2048 key and ciphertexts of "PLAUD.AI fixed-key vector" made with it by an
/// independent implementation (Python `cryptography` 48, which generated the key): the RSA
/// known-answer vectors. RFC 8017 publishes no vectors of its own. A test fixture, not a
/// secret.
enum RSAFixture {
  static let message = Array("PLAUD.AI fixed-key vector".utf8)
  static let pkcs1PEM = """
    -----BEGIN RSA PRIVATE KEY-----
    MIIEogIBAAKCAQEAqwkrgU/mDOfroHrurc/I/pFB1UH14I3cfGiKhbCuC2Py0le2
    Y9tsfZK5TjaN4XRuzHL5vID2PIbrBJrq1RlPf2JLt7ovtvLPspf46uGTJSwXKJNq
    oGfjRGBDpU4mffmb5HOIgxC2xFDhhfC+Zx45qCIQFb+bYHKZl33dONJlCMKisR2g
    rhMr0dP1swhAyEToHZnDQRShCx49ToYzj/nbApMzcctlEjIwr1Iuq191Rkjc7LhO
    zrtN0eBvNe0XcgV1LUqG3SxZIPV4ZoDZ6DZ2YzyZsv4168rSpvkPlukBNl8g+Dqp
    0BBjzovFh/mty2K7yPzEa2+6DEUUvNoBO+NYcwIDAQABAoIBACe/I8sTRETviIRs
    zRa7WNw/6Wqjv34FuZ13telHm8qt2XokRBCEp3uvIz0X1HT2V+FPPtYdqht6xxb0
    4WnQTfcuYqY5sGj1mGrKgmAjN8zFqEQXrgnE2r3DGTVLKgrQfPfkGW9L7Q1GNoKn
    5beVAJUgBVjohDUvrJ3V9BkGW9Bi+aRv2XYv+mCwKJsNXSqGIr7GiYx6EzCplGOv
    qJkGH6tXPAhrJCpQpGe7TA8+UV7D581nmLb1FkqEIGpfYhR0AuRi9BnqMvbzVZy+
    TN5XEXgrIBCgIv9CzZUguRY5kKLF8dgB1DxGZHrPSlm6jY+sbhloIutYRik+/Mcq
    hz9UWLECgYEA0/5Rs2mq7UUboDqAkAKxK7FmiILHPbxBwUqRSmgFfo5PskJp6kKJ
    k44DMxJCGyYyReX4mHoNOTa372npqUxNBRVchcBQHeB0Yca2OiiC9eNmVMmF64ko
    Cd7h627jC0pEnkUMCSgGUIWkSNWWiIIF1R4Tep+PBgFqccdSWuv6DW0CgYEAzopL
    rShHShHFQUed10y7jUZs+sBklv/7F7ZMcmgEntvCBOfbGW3q/ziChcIn3Td/mkPo
    7Pvuo7C73T8GAuAhRPR/w2AxGg1D/smuSmp7IMS+XOtZXlSwFTI3gvn0s0Cb7c6n
    Ryn2OmVQsQXPxuJBzxIUnb+4vW4KggttQLAQsV8CgYBC6PlGhGqDmxVeHDjpuz/K
    R6LSIVzbemjSpkN3VZ+uUyKKY/XkD342yVLvMqsUwJiLgUtWbOdxkHi7oxUx7zg8
    C4L5YDqpQ2fYWIy5jIHRNCXfSv/u2Ip/mw55bbVRoe5IegiTd0OO9K9moatyiH9o
    xaZmRKgywA2lvcCbm/F/fQKBgBhcc4SfBZmU8wE6I0HryQtmzR/eZX7x/nnThLzR
    zAm4ve+6MTuUnW0xCyQfvHf5PdHCRMz/AizIgcAc2Oap7QKnHBK9W81I10ZMH4Sj
    fpZk3lczYz0fHA3D+Iw4U0Z5TmsEPvLD3kkQ/i2DE/jPYxe7eDcLEA0314FzO5Wv
    rqhdAoGALjgBuLEb7r+ZOByhJQUtLCpyc3uhw7Oqz8N92Lch2/V5pw+XwrpER5J4
    PTwOFRaNm4TcwSCBZ5BGz3/USfb/a6B5QtvtiidYtJSo/0u/v50ccOGptOot7al9
    6b+/MDoQlanJtiK0ByeKrsp/FotgYn9NE2MjVakQkWdYiMBaG3A=
    -----END RSA PRIVATE KEY-----
    """
  static let pkcs8PEM = """
    -----BEGIN PRIVATE KEY-----
    MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCrCSuBT+YM5+ug
    eu6tz8j+kUHVQfXgjdx8aIqFsK4LY/LSV7Zj22x9krlONo3hdG7Mcvm8gPY8husE
    murVGU9/Yku3ui+28s+yl/jq4ZMlLBcok2qgZ+NEYEOlTiZ9+Zvkc4iDELbEUOGF
    8L5nHjmoIhAVv5tgcpmXfd040mUIwqKxHaCuEyvR0/WzCEDIROgdmcNBFKELHj1O
    hjOP+dsCkzNxy2USMjCvUi6rX3VGSNzsuE7Ou03R4G817RdyBXUtSobdLFkg9Xhm
    gNnoNnZjPJmy/jXrytKm+Q+W6QE2XyD4OqnQEGPOi8WH+a3LYrvI/MRrb7oMRRS8
    2gE741hzAgMBAAECggEAJ78jyxNERO+IhGzNFrtY3D/paqO/fgW5nXe16Uebyq3Z
    eiREEISne68jPRfUdPZX4U8+1h2qG3rHFvThadBN9y5ipjmwaPWYasqCYCM3zMWo
    RBeuCcTavcMZNUsqCtB89+QZb0vtDUY2gqflt5UAlSAFWOiENS+sndX0GQZb0GL5
    pG/Zdi/6YLAomw1dKoYivsaJjHoTMKmUY6+omQYfq1c8CGskKlCkZ7tMDz5RXsPn
    zWeYtvUWSoQgal9iFHQC5GL0Geoy9vNVnL5M3lcReCsgEKAi/0LNlSC5FjmQosXx
    2AHUPEZkes9KWbqNj6xuGWgi61hGKT78xyqHP1RYsQKBgQDT/lGzaartRRugOoCQ
    ArErsWaIgsc9vEHBSpFKaAV+jk+yQmnqQomTjgMzEkIbJjJF5fiYeg05Nrfvaemp
    TE0FFVyFwFAd4HRhxrY6KIL142ZUyYXriSgJ3uHrbuMLSkSeRQwJKAZQhaRI1ZaI
    ggXVHhN6n48GAWpxx1Ja6/oNbQKBgQDOikutKEdKEcVBR53XTLuNRmz6wGSW//sX
    tkxyaASe28IE59sZber/OIKFwifdN3+aQ+js++6jsLvdPwYC4CFE9H/DYDEaDUP+
    ya5KansgxL5c61leVLAVMjeC+fSzQJvtzqdHKfY6ZVCxBc/G4kHPEhSdv7i9bgqC
    C21AsBCxXwKBgELo+UaEaoObFV4cOOm7P8pHotIhXNt6aNKmQ3dVn65TIopj9eQP
    fjbJUu8yqxTAmIuBS1Zs53GQeLujFTHvODwLgvlgOqlDZ9hYjLmMgdE0Jd9K/+7Y
    in+bDnlttVGh7kh6CJN3Q470r2ahq3KIf2jFpmZEqDLADaW9wJub8X99AoGAGFxz
    hJ8FmZTzATojQevJC2bNH95lfvH+edOEvNHMCbi977oxO5SdbTELJB+8d/k90cJE
    zP8CLMiBwBzY5qntAqccEr1bzUjXRkwfhKN+lmTeVzNjPR8cDcP4jDhTRnlOawQ+
    8sPeSRD+LYMT+M9jF7t4NwsQDTfXgXM7la+uqF0CgYAuOAG4sRvuv5k4HKElBS0s
    KnJze6HDs6rPw33YtyHb9XmnD5fCukRHkng9PA4VFo2bhNzBIIFnkEbPf9RJ9v9r
    oHlC2+2KJ1i0lKj/S7+/nRxw4am06i3tqX3pv78wOhCVqcm2IrQHJ4quyn8Wi2Bi
    f00TYyNVqRCRZ1iIwFobcA==
    -----END PRIVATE KEY-----
    """
  /// The same key encrypted under the pass phrase `fixture` with AES-256 by `openssl pkey
  /// -aes256` (PKCS#8 `ENCRYPTED PRIVATE KEY`) and `openssl rsa -aes256 -traditional`
  /// (PKCS#1 with `Proc-Type: 4,ENCRYPTED`): keys that must be refused, never prompted for.
  static let encryptedPKCS8PEM = """
    -----BEGIN ENCRYPTED PRIVATE KEY-----
    MIIFLTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQICEcm+xW88QsCAggA
    MAwGCCqGSIb3DQIJBQAwHQYJYIZIAWUDBAEqBBCW68VjJI26RfMEchXkhgRVBIIE
    0Icg7ciXt/2zQ7nlii6przGKR3hLaySrrx3IzxMAtP6T0GuxAwlf+H/QvYyqPE20
    st7b9AXhmt+OoOFOHHd2r9fmmUT/wc7bWs0914hlIx7RRilThb7pwfgemxRf6OBP
    yD2tgooHcJmd4umI7/6xgHRxC/pE1FG4vAmaZDPB8kDdcBk4/74QiQi1wNd79ELi
    BZF+RgoQ22+VMU6n/rhTakb4MiAj0PFo6CUf6yqDHaIWynfMnZQ1nwfbnDjm/YZd
    Bbeze9Smc52yHV/1MQ3aa1TLVyyu3RoyBHA3DXZVpd31kQnKJodqROqvEOMOH41+
    oxEl5lzC6BBbVNcl9tOK5UoBTiLbedkqJfdduxagvtyN00s1XqOaND+ug5lDRXie
    LYP2erH0tiZM8D9PUI8QMFEa7CBQk/o1U0T2mD6Ndryxlj7sCpiS60g3tztJonWA
    qG2+pcerronENxFc8QV84T5zOEomFKZpWTgwr2JwPdE2KvrCgqRDvdJIiu0B+xBr
    FrS33N49uBaScznAs4RwVrWwg+MDIW58o+9YD3qJ6EPxLm7ad3b+zerTdCIhHT0j
    S+BtA2B42pUgHSdf4hRVjcuJ0W3KlXzMHjH7qfXijt6WC6q94gpQMmfGww4puWnc
    +CGoAbDFwFQERvh/FEduakf9yaSauZClGia6n3hMs+A6Mt6Fa75UYrTHA+VNGxLg
    TP97R+ptDyHA6beFcEZGTF5QDc9pzN4+FdcWrIhIqgmh5/c6IMVsQ+bWaV0FPnp7
    9GufGtq9Dkb/kPQ01cPexRGpsrUZmYOxyHN++5A1Ei8ruopubcBFnJECROKYrfX8
    JMN98KPuFrKdgsf04S8CRu7oXY+DTeMsg+oBs8S/mUieHVmQn+JzxfrIpq1Bl7Ar
    aDL3vu/GFWrOQI+gvrml+iKNDpHL38rg7TZBMuoby/UUZASsAG00KSsf6R5Q1l/G
    qaOuGQ5LYH1mRFIRhG8rRFKgOCoDD6GjdQh2weNZWDbISf5FpM5OCYO/E/Zw7OsZ
    4juDSTntL5WoHyjESyHBGvbhNKtmbZPQiCpV41QYhVq8diEdl5/M0q363zAG2KTs
    SlM9/nSY7E8uj4Q7Q+FTSupA75FIuIvJsvSdjQPEKMW3hcu9m1Vp8EnjNttcHO5G
    Kafdh/1iRw/RhXosLIIVsZD02gVJUQrMlAwVMj0nX8KZV/igMKfcrxP8JTZ0HcX7
    YijAcw0ZLVr23Wtkt2Rk7N8YikCJGPN7u693/Db9Huz7Qji4Cxm+SN6nN6hJPwfQ
    RpqpJfF4MGrG7upkihxbm+IxFB7EV1446JneJjEEuycxK1x/cNT2v4qVQcVR0Gg+
    CmM7d0FbntO5bnQdDcfvtqyHSTOmd6v3mHlL8p5is36FRqn2UzmbGUB5RdZ7Mvqb
    FPQ7w64XC4sSrwV/kotXY1gkjeIT8o374pOTNn/zfUee2Aar7AlEg0grRsVj07aG
    T+mktkUKnkuYqQy6jim4JkMhoF7dTF4p6GSy4VFFNnSvHzZjcejmDwg4X9L0pCYK
    gcpmZjewDHiTWpZ8T52q23BuPBYqRa9MEaUFFCduzYgzjiy1L1CQX6sBhKSGwSRo
    5ZePUeI6MYgKsQaKM3sivjmNVeRhdFjhgcSpyQRkCcqW
    -----END ENCRYPTED PRIVATE KEY-----
    """
  static let encryptedPKCS1PEM = """
    -----BEGIN RSA PRIVATE KEY-----
    Proc-Type: 4,ENCRYPTED
    DEK-Info: AES-256-CBC,2678A8E9D4E5C11051EA26E7D5E9E8DB

    45KuXFaJhFY9MyEXYWN+0yI7dKOqkR99POnmP/Gmdu0BIpC4H12YkegVN7e445Fr
    rgGZdnf+DdmyZEHUeA6ZeglnynOgxrhjcNBeTbt2W+jVXmqjmya4ZlBrJwczy7wd
    GXzTFW58h3XfUzdyQ58qVaf8BNFqObGPKTG8SPd7Uxgq3xzJ76kvdYsw3bZiPkrF
    Qpxo6EAIDBj+sk5gSB+hlHXAesAqUGLeYtIu8GOFRRslmHHHvfGcqSkSCeGLc5J/
    XsDnPqfuZ8NTR0fbOmTw3+Z7nRrD86zAJmKFszw6pKYNT+iSYJG5ws4I9osQDx24
    Z4woEZrF307qbezEGdgb7u5lqrl8h1vCFPbV0WUw/W6+oUQM0FpN3jQzzJgKU8tI
    LAWxy6KXdi5Vhse4ZhrCDa5oEhSp1pBAbVGQO5dET+Lf4EXP4PnGPZNVJRjtf3UX
    GVjsGn6g63EuDm1fVdRgkBm187rTA1fIcZOjMSMDVh2ROb3IGsT4q4fEHWetSglv
    lXGvRNJdjPgmzI4KxCLXn5kL37aiyVA1if7Bf1Y6NxCkEIouKrc8/67hYNruTXjc
    3o9pkKe6eHaXKx6F7Kx1aMrnWvZLqgrMJdoEAShLhoeDwtIy39TesOPVS1wREeuC
    4KIsD1Fn5swQ6W8Fn9+mrcozh7/lOOKsFI/EqjifyzbyhSv4qNg2IEUos89uZIrv
    NZGxV1BrtrVp7gjf29lJYi82n/PXCVJoEKAFoHefyxWa9XqdMQaxC529QG50VUtI
    ccC59OJShnh/Ls2IR60O0cPNhm94yfglkiJEGGeltE/ulJPCKkKS37J8UoCAwKzl
    3S3l2ByjhbMd683zRQkPkt2RzpXq5ZCXnccVlwJp1DcpIME8HcFvEt1AGGKbwZcC
    pdbWZ1h6BhjlyzWNwhgbH1JbBI7TOeTXBeVQsZgWvzqcIVb/h1hGBHqAA8QedEkG
    v72/QP3KNRuhDaPrfs+/CvLrkxT/6IdQ0y9497WOivgbusywjUX6+1jMnTticdMc
    TAwl3JuOEzSSPqF/b7WMNHqcHxFQzDAIuD1jnoCkYDEeHEk9tz2DkMXuy+s/px/R
    PuNEN5+GT5w1gbK0ldLYwZFCNlEWJ627JcPAlAlwmAbLDX2iKoE/0A6dpbMh6zNK
    sDhXrCbOliFV9sphwB+xOiyz8aFXlQMk7fEG4NHuTVkCv+Dad+zu4Om7qVlIscqY
    yMxoIXtfALIjz5zNr6Z40c+HrXCcw4bKyKHNE/7H2wf6jlh2NuR4DOKxwUCH2y/T
    uRU8R+1ScWhDe/ebxTWfQBhIqVT4Hzn22/wWdqwtLtdG7qy/jHGuM1u3b+dJC2n5
    NoKLsKwTo908vFWoaaVcQ5sKG2NGBrA7S+PFdmo4yrBXKIaFpmdoD2LX7ldkdxo9
    v7+ArYC4Zyq4ICDsn9cLwL7uz8EpY1g4CdYyM9NYL2wv5R7UGuMeh1QTpb/libC5
    abrFvL1jCaYp4iuIifY/my9BlwwNF1JslFJwWJ+4mJg6tLftp3Xyj43Ca7hVgtw7
    qcufRnidHMuUJnVyIHbhJq0RZ0OZx2vx4xl1+LLOAccEM9+ItT4h2ile7uTeifnx
    -----END RSA PRIVATE KEY-----
    """
  static let publicPEM = """
    -----BEGIN PUBLIC KEY-----
    MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAqwkrgU/mDOfroHrurc/I
    /pFB1UH14I3cfGiKhbCuC2Py0le2Y9tsfZK5TjaN4XRuzHL5vID2PIbrBJrq1RlP
    f2JLt7ovtvLPspf46uGTJSwXKJNqoGfjRGBDpU4mffmb5HOIgxC2xFDhhfC+Zx45
    qCIQFb+bYHKZl33dONJlCMKisR2grhMr0dP1swhAyEToHZnDQRShCx49ToYzj/nb
    ApMzcctlEjIwr1Iuq191Rkjc7LhOzrtN0eBvNe0XcgV1LUqG3SxZIPV4ZoDZ6DZ2
    YzyZsv4168rSpvkPlukBNl8g+Dqp0BBjzovFh/mty2K7yPzEa2+6DEUUvNoBO+NY
    cwIDAQAB
    -----END PUBLIC KEY-----
    """
  static let pkcs1v15Ciphertext = hex(
    "6b3054d73d12e098a95b9bfa4ca587d72cc5c3a0224817b853b285d473b2b43e3e638e593454138a"
      + "f3295ee95b423c00800a7c1e51f242c425b013731d98288b9713997c2de3b833a57dfcf4d090db8b"
      + "1b66073d528eeaaed30512d2e5ae5af08adb11e8d599b4f77c4e64ce8d0b13a227dd1f2c7d7c03d1"
      + "0a5b72406772fe0147a2ddf30da88cd19656a14a25ff027c4234f332829f0ce0065d5b9da8dfad90"
      + "0993b04205813ae96884258f6d5988e953642abd11d893354d8088ccd5b04ffd3dc8a9044e93965f"
      + "2d0db77c0adfda75cf017ae98a05ce2692c76e94a548d1b6a9c697df16c0cb9dd6548707b5213fa7"
      + "59f418b520907b67b188a38a97d668bb")
  static let oaepSHA1Ciphertext = hex(
    "a5b84c2917828e43b806949871f66715094964e5a870f8a9c693c8444e7e8f331e090ab9d2006882"
      + "cf8bab7ea264d1d94a31835162ffb2b4f3ba6606ee70e84bc6b46bd5d6770aa09566a2fe59277b6b"
      + "c81b42488d0c5d912171dbb8fce4da7efaa551c5443d190907c7f2549006f12ceabf460e7cfa3844"
      + "05428c86eb1b180331cacbaab520614f445a78d176cfe541954ef192c914f0dbf85cf962af831456"
      + "6c2d8f1f4cf34bb61b0b2e4350b43809e0f3b7c5f66893472944e59f21b233849cf01cab598d1de2"
      + "573f771df26addb429b8d2579d7ba9770d711b288018db0b315e4fa0c213bad5f301cb51bf41ca80"
      + "a7e02a912da5982bc111fcdc480df803")
  static let oaepSHA256Ciphertext = hex(
    "2d3b7975cb25870495d947fbe762a66903830485d00addf7ee3a235970ee147cb3f82842ffce4cea"
      + "4ac4a2f86891a70906506043dbe73fc6d85579e11069fdd30dee6fbc55ec0eef204bcd90eec72bf3"
      + "5e6fcf56c7d5798f0b78be769e8cf3921154c1c9879cdf9aacd948bec5252a1091d54f9d96565d55"
      + "e5b7c6ce787a48a5ee3d690ee129ed0b7be6aaed499fac7904f7cfc5c3b555e23f0d41b2097ff5ce"
      + "8fd9f1e245da7ea7b5cf157c9b7a8ee8df0ae33853cdb73266939ac6b3bb28eb8ebaba6023161fee"
      + "b0b4283e8070558b909273eeb53d392948776e6767322832f85cf555f9802a1546164b81085064db"
      + "8d1035ba2317c3b0351f5492a87d3b1c")
}

/// Bytes from hex digits (test vectors); traps on a bad digit, a programmer error.
func hex(_ text: String) -> [UInt8] {
  let digits = Array(text.utf8)
  precondition(digits.count.isMultiple(of: 2), "odd hex length")
  return stride(from: 0, to: digits.count, by: 2).map { index in
    UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16)!
  }
}
