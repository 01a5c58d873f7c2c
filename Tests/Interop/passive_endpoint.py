#!/usr/bin/env python3
"""The upload endpoint of the passive-reading process test (issue 17): loopback only.

POST /records with an Idempotency-Key header. The endpoint keeps one record per key and
answers 201 (200 when it already had the key). Every request is appended to LOG as one JSON
line {"key": ..., "new": true|false} *before* it answers, so a test can see that a request
arrived. With --hold-first, the first request is taken in, logged, and then not answered
for an hour: the sender can be killed in that window (after receipt, before its commit).

With --pattern P,…, the requests of each key are answered in turn by P (`fail` = 503,
`stall` = taken in and never answered, `ok` = 201 or 200; the last entry repeats), and each
log line also carries "answer" and "n" (the key's request number from 1). --path names the
path POSTed to (default /records).

Usage: passive_endpoint.py LOG [--hold-first] [--pattern P,…] [--path /PATH];
prints `http://127.0.0.1:PORT/PATH`.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
OPTIONS = sys.argv[2:]
HOLD_FIRST = "--hold-first" in OPTIONS


def option(name, default):
    return OPTIONS[OPTIONS.index(name) + 1] if name in OPTIONS else default


PATTERN = option("--pattern", "ok").split(",")
PATH = option("--path", "/records")
lock = threading.Lock()
records = {}
counts = {}
requests = 0


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        global requests
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        key = self.headers.get("Idempotency-Key")
        if not key or self.path != PATH:
            self.send_response(400)
            self.end_headers()
            return
        with lock:
            requests += 1
            first = requests == 1
            counts[key] = counts.get(key, 0) + 1
            n = counts[key]
            answer = PATTERN[min(n, len(PATTERN)) - 1]
            new = key not in records
            if new and answer == "ok":
                records[key] = body.decode("utf-8", "replace")
            with open(LOG, "a") as log:
                log.write(json.dumps({
                    "key": key, "new": new, "body": body.decode("utf-8", "replace"),
                    "answer": answer, "n": n}) + "\n")
        if (first and HOLD_FIRST) or answer == "stall":
            time.sleep(3600)
            return
        if answer == "fail":
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(201 if new else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"http://127.0.0.1:{server.server_address[1]}{PATH}", flush=True)
server.serve_forever()
