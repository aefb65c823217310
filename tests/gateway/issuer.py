"""A real local OAuth issuer for tests: signing keys made here, its JWKS served over HTTP on a free port."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from tests.conftest import free_port

RESOURCE = "https://tools.example.test/mcp"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SigningKey:
    """A private key with its key id and algorithm."""

    def __init__(self, kid: str, alg: str = "RS256") -> None:
        self.kid = kid
        self.alg = alg
        if alg.startswith("ES"):
            self.private: Any = ec.generate_private_key(ec.SECP256R1())
            public = json.loads(ECAlgorithm.to_jwk(self.private.public_key()))
        else:
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            public = json.loads(RSAAlgorithm.to_jwk(self.private.public_key()))
        self.jwk: dict[str, Any] = {**public, "kid": kid, "alg": alg, "use": "sig"}

    def public_pem(self) -> bytes:
        return bytes(
            self.private.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )


class Issuer:
    """An identity provider: signs access tokens and serves its current keys as a JWKS document."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.issuer = url + "/"
        self.jwks_uri = url + "/jwks.json"
        self.keys = [SigningKey("key-1")]
        self.fetches = 0
        self.available = True
        self.drip_s: float | None = None
        """Serve the key set one byte every this many seconds (a key server that never quite finishes)."""
        self.huge_bytes = 0
        """Serve a key set this many bytes long, without a Content-Length (when not 0)."""
        self.sent_bytes = 0
        """Bytes of key-set bodies the gateway read (accepted by the socket) so far."""
        self._lock = threading.Lock()

    def published(self) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.fetches += 1
            if not self.available:
                return 503, {"error": "down"}
            return 200, {"keys": [key.jwk for key in self.keys]}

    def rotate(self, key: SigningKey) -> None:
        """Publish `key` in place of the old ones (a key rotation)."""
        with self._lock:
            self.keys = [key]

    def claims(self, **overrides: Any) -> dict[str, Any]:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": RESOURCE,
            "sub": "alice",
            "iat": now,
            "exp": now + 600,
            "scope": "toolscout.read",
        }
        claims.update(overrides)
        return {name: value for name, value in claims.items() if value is not None}

    def token(self, key: SigningKey | None = None, *, kid: str | None = "", **overrides: Any) -> str:
        """An access token signed with `key` (the current one), its header naming `kid` (default: the key's)."""
        key = key or self.keys[0]
        headers = {} if kid is None else {"kid": key.kid if kid == "" else kid}
        return jwt.encode(self.claims(**overrides), key.private, algorithm=key.alg, headers=headers)

    def unsigned(self, **overrides: Any) -> str:
        """A token with ``alg: none`` and no signature."""
        header = b64(json.dumps({"alg": "none", "typ": "JWT", "kid": self.keys[0].kid}).encode())
        return f"{header}.{b64(json.dumps(self.claims(**overrides)).encode())}."

    def hmac_with_public_key(self, **overrides: Any) -> str:
        """A token "signed" HS256 with the issuer's public key as the HMAC secret (the key confusion attack)."""
        key = self.keys[0]
        header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": key.kid}).encode())
        body = b64(json.dumps(self.claims(**overrides)).encode())
        signature = hmac.new(key.public_pem(), f"{header}.{body}".encode(), hashlib.sha256).digest()
        return f"{header}.{body}.{b64(signature)}"


@contextmanager
def running_issuer() -> Iterator[Issuer]:
    """An `Issuer` whose JWKS is served on a free loopback port until the block ends."""
    port = free_port()
    issuer = Issuer(f"http://127.0.0.1:{port}")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, document = issuer.published() if self.path == "/jwks.json" else (404, {})
            body = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if issuer.huge_bytes:
                self.end_headers()  # no length: the body ends when the connection closes
                self._send_huge(body)
                return
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if issuer.drip_s is None:
                self.wfile.write(body)
                return
            try:
                for byte in body:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(issuer.drip_s)
            except OSError:
                return  # the gateway gave up

        def _send_huge(self, body: bytes) -> None:
            padding = b" " * (1 << 16)
            try:
                while issuer.sent_bytes < issuer.huge_bytes:
                    self.wfile.write(padding)
                    issuer.sent_bytes += len(padding)
                self.wfile.write(body)
            except OSError:
                return  # the gateway stopped reading

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield issuer
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def oauth_settings(issuer: Issuer, **overrides: Any) -> dict[str, Any]:
    """A ``toolscout.auth.oauth`` section trusting `issuer`: readers reach ``time``, ops everything."""
    settings: dict[str, Any] = {
        "issuer": issuer.issuer,
        "jwks_uri": issuer.jwks_uri,
        "resource": RESOURCE,
        "grants": {
            "ops": {"scopes": ["toolscout.admin"], "admin": True},
            "readers": {"scopes": ["toolscout.read"], "servers": ["time"]},
        },
    }
    settings.update(overrides)
    return settings
