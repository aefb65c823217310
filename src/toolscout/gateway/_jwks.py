"""`JwksCache`: an issuer's signing keys (its JWKS document), fetched when needed and kept for a while.

Keys are fetched on the first token, again once the set is `max_age_s` old (rotation picked up
without a restart), and again when a token names a key id the set lacks, but at most once per
`refetch_min_s`, so a stream of tokens with made-up key ids never turns into a stream of fetches.
One fetch runs at a time; requests waiting for it share its answer. A failed fetch keeps the keys
already known (a briefly unreachable issuer locks nobody out), is logged, and is tried again at
most once per `refetch_min_s` too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import anyio
import httpx2
from jwt import PyJWK
from jwt.exceptions import PyJWTError

from .._redact import redact

__all__ = ["JwksCache", "JwksUnavailable"]

logger = logging.getLogger("toolscout.gateway")

MAX_JWKS_BYTES = 1 << 20


class JwksUnavailable(Exception):
    """No keys were ever fetched: the issuer's JWKS did not answer (again at most once per `refetch_min_s`)."""


class JwksCache:
    """The keys of one JWKS URI (see the module docs for when it fetches)."""

    def __init__(
        self,
        uri: str,
        *,
        max_age_s: float,
        refetch_min_s: float,
        timeout_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Fetch from `uri`."""
        self._uri = uri
        self._max_age_s = max_age_s
        self._refetch_min_s = refetch_min_s
        self._timeout_s = timeout_s
        self._clock = clock
        self._entries: dict[str | None, dict[str, Any]] = {}
        self._keys: dict[tuple[str | None, str], PyJWK | None] = {}
        self._fetched_at: float | None = None
        self._attempted_at: float | None = None
        self._attempts = 0
        self._lock = anyio.Lock()

    async def key(self, kid: str | None, alg: str) -> PyJWK | None:
        """The key `kid` names for `alg` (the only such key when `kid` is None), or None when there is none.

        Raises:
            JwksUnavailable: No keys were ever fetched (the issuer did not answer).
        """
        if self._stale() and self._may_fetch():
            await self._fetch(seen=self._attempts)
        if self._fetched_at is None:
            raise JwksUnavailable(self._uri)
        found = self._find(kid, alg)
        if found is None and self._may_fetch():
            await self._fetch(seen=self._attempts)
            found = self._find(kid, alg)
        return found

    def _stale(self) -> bool:
        return self._fetched_at is None or self._clock() - self._fetched_at >= self._max_age_s

    def _may_fetch(self) -> bool:
        return self._attempted_at is None or self._clock() - self._attempted_at >= self._refetch_min_s

    def _find(self, kid: str | None, alg: str) -> PyJWK | None:
        if kid is None:
            matching = [key for key in (self._usable(kid, alg) for kid in self._entries) if key is not None]
            return matching[0] if len(matching) == 1 else None
        return self._usable(kid, alg) if kid in self._entries else None

    def _usable(self, kid: str | None, alg: str) -> PyJWK | None:
        """Key `kid` as a key for `alg`: None when its own ``alg`` or its type says otherwise."""
        if (kid, alg) not in self._keys:
            entry = self._entries[kid]
            key: PyJWK | None = None
            if entry.get("alg", alg) == alg:
                try:
                    key = PyJWK(entry, algorithm=alg)
                except PyJWTError:
                    key = None  # e.g. an RSA key offered for ES256
            self._keys[(kid, alg)] = key
        return self._keys[(kid, alg)]

    async def _fetch(self, *, seen: int) -> None:
        """Fetch the set, unless another request fetched since this one saw `seen` attempts (then use its answer)."""
        async with self._lock:
            if self._attempts != seen:
                return
            self._attempts += 1
            self._attempted_at = self._clock()
            try:
                entries = _signing_keys(await self._download())
            except (httpx2.HTTPError, ValueError) as exc:
                logger.warning("could not fetch the OAuth issuer's keys from %s: %s", self._uri, redact(str(exc)))
                return
            self._entries, self._keys = entries, {}
            self._fetched_at = self._attempted_at

    async def _download(self) -> Any:
        async with httpx2.AsyncClient(timeout=self._timeout_s, follow_redirects=False) as http:
            response = await http.get(self._uri, headers={"Accept": "application/json"})
            response.raise_for_status()
            if len(response.content) > MAX_JWKS_BYTES:
                raise ValueError(f"the key set is larger than {MAX_JWKS_BYTES} bytes")
            return response.json()


def _signing_keys(document: Any) -> dict[str | None, dict[str, Any]]:
    """The signing keys (``use`` absent or ``sig``) of a JWKS document, by key id."""
    entries = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError("the key set has no 'keys' list")
    return {
        entry.get("kid"): entry
        for entry in entries
        if isinstance(entry, dict) and entry.get("use", "sig") == "sig" and isinstance(entry.get("kid", ""), str)
    }
