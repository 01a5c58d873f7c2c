#!/usr/bin/env python3
"""The webhook endpoint of the finish-step process tests: loopback only.

POST /hook with an Idempotency-Key header. For each key the endpoint answers its requests
in turn by PATTERN (a comma-separated list of `fail` = 503, `stall` = take the request and
never answer, `ok` = 201; the last entry repeats). Every request is appended to LOG as one
JSON line {"key", "answer", "n" (the key's request number from 1), "body"} *before* it is
answered, so a test sees what arrived and how it was answered.

Usage: webhook_endpoint.py LOG PATTERN; prints `http://127.0.0.1:PORT/hook`.
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = sys.argv[1]
PATTERN = sys.argv[2].split(",")
lock = threading.Lock()
counts = {}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        key = self.headers.get("Idempotency-Key")
        if not key or self.path != "/hook":
            self.send_response(400)
            self.end_headers()
            return
        with lock:
            counts[key] = counts.get(key, 0) + 1
            n = counts[key]
            answer = PATTERN[min(n, len(PATTERN)) - 1]
            with open(LOG, "a") as log:
                log.write(json.dumps({"key": key, "answer": answer, "n": n,
                                      "body": body.decode("utf-8", "replace")}) + "\n")
        if answer == "stall":
            time.sleep(3600)
            return
        self.send_response(201 if answer == "ok" else 503)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(f"http://127.0.0.1:{server.server_address[1]}/hook", flush=True)
server.serve_forever()
