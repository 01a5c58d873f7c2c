# The Wi-Fi device, played by Debian's python3-websockets (a client we did not write):
# used by Tests/RecorderLinkTests/WebSocketInteropTests.swift and
# Tests/RecorderKitTests/WiFiTransportInteropTests.swift.
import asyncio, hashlib, json, struct, sys
import websockets

PORT, SERIAL, MODE = int(sys.argv[1]), sys.argv[2], sys.argv[3]
RECORDINGS = {1700000001: (bytes(range(256)) * 40, 1), 1700000002: (b"xyz" * 1000, 2)}

def pdu(kind, obj, payload=b"", version=1):
    body = json.dumps(obj, separators=(",", ":")).encode()
    total = 8 + len(body) + len(payload)
    return total.to_bytes(3, "little") + bytes([version]) + struct.pack("<HH", kind, len(body)) + body + payload

def parse(message):
    assert isinstance(message, bytes), f"expected a binary message, got {type(message)}"
    total = int.from_bytes(message[0:3], "little")
    assert total == len(message), (total, len(message))
    kind, length = struct.unpack("<HH", message[4:8])
    return kind, json.loads(message[8:8 + length]), message[8 + length:]

STASH = []

async def expect(ws, kind):
    """The next PDU of `kind`; others are kept for later (the phone may send its next
    request before the answer to our PING: the order between them is not fixed)."""
    for index, item in enumerate(STASH):
        if item[0] == kind:
            return STASH.pop(index)
    while True:
        item = parse(await ws.recv())
        if item[0] == kind:
            return item
        STASH.append(item)

async def session(ws):
    token = hashlib.md5(SERIAL.encode()).hexdigest().upper()
    await ws.send(pdu(2, {"token": token, "pVer": 1}))
    kind, obj, _ = await expect(ws, 1)
    assert kind == 1 and list(obj) == ["token", "stamp"], obj
    assert obj["token"] == "BLETOKEN42".ljust(32, "0"), "handshake token not padded"
    await ws.send(pdu(1, {"status": 0}))
    await ws.send(pdu(3, {"volume": 80, "voltage": 4000, "charging": 0}))
    kind, obj, _ = await expect(ws, 3)
    assert kind == 3 and obj == {}, (kind, obj)
    await asyncio.wait_for(await ws.ping(b"device"), 120)
    kind, obj, _ = await expect(ws, 11)
    assert kind == 11 and list(obj) == ["uid", "start", "single"], obj
    entries = b"".join(struct.pack("<IIH", sid, len(c), scene) for sid, (c, scene) in RECORDINGS.items())
    await ws.send(pdu(11, {"offset": 0, "count": len(RECORDINGS), "status": 0, "uid": obj["uid"]}, entries))
    kind, obj, _ = await expect(ws, 12)
    assert kind == 12 and list(obj) == ["session", "scene", "start", "end"], obj
    content, scene = RECORDINGS[obj["session"]]
    assert obj["scene"] == scene, "scene mismatch"
    await ws.send(pdu(12, {"session": obj["session"], "status": 0}))
    position, end = obj["start"], obj["end"]
    while position < end:
        n = min(1000, end - position)
        last = 1 if position + n == end else 0
        message = pdu(13, {"session": obj["session"], "offset": position, "length": n, "last": last},
                      content[position:position + n])
        await ws.send([message[:10], message[10:30], message[30:]] if last else message)
        position += n
    kind, obj, _ = await expect(ws, 16)
    assert kind == 16 and obj == {}, (kind, obj)
    await ws.send(pdu(0, {"cmd": 16, "status": 0}))
    kind, obj, _ = await expect(ws, 15)
    assert kind == 15, kind
    await ws.send(pdu(15, {"status": 0}))
    await ws.close(code=1000, reason="done")
    print("OK")

async def main():
    # Real-time bounds are hang guards only, generous for a loaded machine: the library's
    # 10 s opening and 20 s keep-alive defaults could fail a run that is merely slow.
    async with websockets.connect(f"ws://127.0.0.1:{PORT}/", max_size=2**22, open_timeout=120,
                                  close_timeout=60, ping_interval=None) as ws:
        if MODE == "session":
            await session(ws)
            return
        try:
            if MODE == "oversize":
                await ws.send(b"\0" * (2 * 1024 * 1024))
            await ws.recv()
            print("NOT CLOSED")
        except websockets.exceptions.ConnectionClosed as closed:
            print(f"CLOSED {closed.rcvd.code if closed.rcvd else 'none'}")

asyncio.run(main())
