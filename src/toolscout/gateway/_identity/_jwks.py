"""`JwksCache`: an issuer's signing keys (its JWKS document), fetched when needed and kept for a while.

Keys are fetched on the first token, again once the set is `max_age_s` old (rotation picked up
without a restart), and again when a token names a key id the set lacks, but at most once per
`refetch_min_s`, so a stream of tokens with made-up key ids never turns into a stream of fetches.
A token whose key is already known never waits for a fetch: once the set is due for a refresh, the
refresh runs in the background (a daemon thread with its own event loop) while the known keys keep
serving. A fetch a request waits for runs one at a time; requests waiting for it share its answer.
Each fetch is bounded as a whole: it ends after `timeout_s` however slowly the issuer answers, and
reading stops as soon as the body is past `MAX_JWKS_BYTES`. A failed fetch keeps the keys already
known (a briefly unreachable issuer locks nobody out), is logged, and is tried again at most once
per `refetch_min_s` too.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import anyio
import httpx2
from jwt import PyJWK
from jwt.exceptions import PyJWTError

from ..._redact import redact

__all__ = ["JwksCache", "JwksUnavailable"]

logger = logging.getLogger("toolscout.gateway")

MAX_JWKS_BYTES = 1 << 20


class JwksUnavailable(Exception):
    """No keys were ever fetched: the issuer's JWKS did not answer (again at most once per `refetch_min_s`)."""


class _KeySet:
    """One fetched key set: entries by key id, the keys built from them (cached), when it was fetched."""

    __slots__ = ("entries", "fetched_at", "keys")

    def __init__(self, entries: dict[str | None, dict[str, Any]], fetched_at: float | None) -> None:
        self.entries = entries
        self.keys: dict[tuple[str | None, str], PyJWK | None] = {}
        self.fetched_at = fetched_at


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
        self._set = _KeySet({}, None)  # replaced whole, so a refresh in the background never shows half a set
        self._attempted_at: float | None = None
        self._attempts = 0
        self._lock = anyio.Lock()
        self._refreshing = False

    async def key(self, kid: str | None, alg: str) -> PyJWK | None:
        """The key `kid` names for `alg` (the only such key when `kid` is None), or None when there is none.

        Raises:
            JwksUnavailable: No keys were ever fetched (the issuer did not answer).
        """
        if self._set.fetched_at is None and self._may_fetch():
            await self._fetch(seen=self._attempts)
        if self._set.fetched_at is None:
            raise JwksUnavailable(self._uri)
        found = self._find(kid, alg)
        if found is not None:
            if self._stale() and self._may_fetch():
                self._refresh_in_background()
            return found
        if self._may_fetch():
            await self._fetch(seen=self._attempts)
            found = self._find(kid, alg)
        return found

    def _stale(self) -> bool:
        fetched_at = self._set.fetched_at
        return fetched_at is None or self._clock() - fetched_at >= self._max_age_s

    def _may_fetch(self) -> bool:
        return self._attempted_at is None or self._clock() - self._attempted_at >= self._refetch_min_s

    def _find(self, kid: str | None, alg: str) -> PyJWK | None:
        keyset = self._set
        if kid is None:
            matching = [key for key in (_usable(keyset, kid, alg) for kid in keyset.entries) if key is not None]
            return matching[0] if len(matching) == 1 else None
        return _usable(keyset, kid, alg) if kid in keyset.entries else None

    async def _fetch(self, *, seen: int) -> None:
        """Fetch the set, unless another request fetched since this one saw `seen` attempts (then use its answer)."""
        async with self._lock:
            if self._attempts != seen:
                return
            self._attempts += 1
            self._attempted_at = self._clock()
            await self._fetch_now(self._attempted_at)

    def _refresh_in_background(self) -> None:
        """Fetch the set again on a daemon thread (its own event loop); the known keys serve meanwhile."""
        if self._refreshing:
            return
        self._refreshing = True
        self._attempts += 1
        self._attempted_at = started = self._clock()

        def run() -> None:
            try:
                anyio.run(self._fetch_now, started)
            finally:
                self._refreshing = False

        threading.Thread(target=run, name="OAuth key refresh", daemon=True).start()

    async def _fetch_now(self, started: float) -> None:
        """Download the set and keep it (or log why not, keeping the known keys)."""
        try:
            entries = _signing_keys(await self._download())
        except TimeoutError:
            logger.warning(
                "could not fetch the OAuth issuer's keys from %s: no whole answer within jwks_timeout_s (%g s)",
                self._uri,
                self._timeout_s,
            )
            return
        except (httpx2.HTTPError, ValueError) as exc:
            logger.warning("could not fetch the OAuth issuer's keys from %s: %s", self._uri, redact(str(exc)))
            return
        self._set = _KeySet(entries, started)

    async def _download(self) -> Any:
        """The key set's JSON, read within `timeout_s` in all and never past `MAX_JWKS_BYTES`."""
        with anyio.fail_after(self._timeout_s):
            async with (
                httpx2.AsyncClient(timeout=self._timeout_s, follow_redirects=False) as http,
                http.stream("GET", self._uri, headers={"Accept": "application/json"}) as response,
            ):
                response.raise_for_status()
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > MAX_JWKS_BYTES:
                    raise ValueError(f"the key set is {int(declared):,} bytes, over {MAX_JWKS_BYTES:,}")
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > MAX_JWKS_BYTES:
                        raise ValueError(f"the key set is larger than {MAX_JWKS_BYTES:,} bytes")
                    chunks.append(chunk)
        return json.loads(b"".join(chunks))


def _usable(keyset: _KeySet, kid: str | None, alg: str) -> PyJWK | None:
    """Key `kid` of `keyset` as a key for `alg`: None when its own ``alg`` or its type says otherwise."""
    if (kid, alg) not in keyset.keys:
        entry = keyset.entries[kid]
        key: PyJWK | None = None
        if entry.get("alg", alg) == alg:
            try:
                key = PyJWK(entry, algorithm=alg)
            except PyJWTError:
                key = None  # e.g. an RSA key offered for ES256
        keyset.keys[(kid, alg)] = key
    return keyset.keys[(kid, alg)]


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
