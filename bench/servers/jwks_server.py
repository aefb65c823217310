"""An OAuth issuer's key server on loopback whose behaviour can turn hostile, for `hostile_cases.py`.

    python jwks_server.py FOLDER     # serves FOLDER/jwks.json at /jwks.json; prints its URL

What each ``GET`` gets is read from ``FOLDER/mode`` at that request: ``normal`` (the document), ``huge:MB``
(a JSON body of MB MiB, as fast as it goes) or ``drip:SECONDS`` (the document, one byte every SECONDS
seconds, for at most 10 minutes). Each request adds a line to ``FOLDER/fetches.log``.
"""

from __future__ import annotations

import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

FOLDER = Path(sys.argv[1])
CHUNK = b"x" * (1 << 20)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        with (FOLDER / "fetches.log").open("a") as log:
            log.write(f"{time.time():.3f}\n")
        mode = (FOLDER / "mode").read_text().strip() if (FOLDER / "mode").exists() else "normal"
        body = (FOLDER / "jwks.json").read_bytes()
        if mode.startswith("huge:"):
            head, tail, size = b'{"keys": [], "pad": "', b'"}', int(float(mode.split(":")[1]) * (1 << 20))
            self._head(len(head) + size + len(tail))
            try:
                self.wfile.write(head)
                for start in range(0, size, len(CHUNK)):
                    self.wfile.write(CHUNK[: min(len(CHUNK), size - start)])
                self.wfile.write(tail)
            except OSError:
                pass
        elif mode.startswith("drip:"):
            pause, started = float(mode.split(":")[1]), time.monotonic()
            self._head(len(body))
            try:
                for byte in body:
                    if time.monotonic() - started > 600:
                        break
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(pause)
            except OSError:
                pass
        else:
            self._head(len(body))
            self.wfile.write(body)

    def _head(self, length: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        self.end_headers()


if __name__ == "__main__":
    ThreadingHTTPServer.daemon_threads = True
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()
