"""`RedisStore`: discovery state in Redis, shared by every gateway replica (``toolscout[redis]``)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from typing import Any, cast

import redis

from .._errors import ConfigError, StoreError
from .._redact import redacted_url
from ._base import DEFAULT_MAX_NAMES, DEFAULT_MAX_SESSIONS, ClosingStore, check_limit, check_names, check_session_id

__all__ = ["RedisStore"]

logger = logging.getLogger("toolscout.session")

# KEYS: names list, names set, LRU sorted set, clock. ARGV: session id, max names,
# max sessions, key prefix, then the names. Returns the names added.
_DISCOVER = """
local names_key, set_key, lru_key, clock_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local session, max_names, max_sessions, prefix = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local known = redis.call('EXISTS', names_key) == 1
if not known and #ARGV <= 4 then return {} end
redis.call('ZADD', lru_key, redis.call('INCR', clock_key), session)
local held = redis.call('LLEN', names_key)
local added = {}
for i = 5, #ARGV do
  if held >= max_names then break end
  if redis.call('SADD', set_key, ARGV[i]) == 1 then
    redis.call('RPUSH', names_key, ARGV[i])
    held = held + 1
    added[#added + 1] = ARGV[i]
  end
end
if not known then
  local excess = redis.call('ZCARD', lru_key) - max_sessions
  if excess > 0 then
    for _, victim in ipairs(redis.call('ZRANGE', lru_key, 0, excess - 1)) do
      redis.call('DEL', prefix .. ':names:' .. victim, prefix .. ':set:' .. victim)
      redis.call('ZREM', lru_key, victim)
    end
  end
end
return added
"""

# KEYS: names list, LRU sorted set, clock. ARGV: session id. Returns the names, marking the session used.
_DISCOVERED = """
local names = redis.call('LRANGE', KEYS[1], 0, -1)
if #names > 0 then redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1]) end
return names
"""


class RedisStore(ClosingStore):
    """A `DiscoveryStore` in Redis, so several gateway processes serve one session.

    A session is a list (discovery order) plus a set (deduplication) under
    ``<prefix>:names:<id>`` and ``<prefix>:set:<id>``; a sorted set ``<prefix>:lru`` scored
    by a counter (``<prefix>:clock``) orders sessions by last use. Every read-modify-write is
    one Lua script, so concurrent replicas never interleave inside an append or an eviction.
    The scripts derive victims' keys from the prefix, so use one Redis server (not a cluster).
    A stored name that is not UTF-8 (written by something else) is removed when read, with one warning
    naming the session; the session's other names are served as before.
    See `DiscoveryStore` for the contract. Use as a context manager or call `close`.

    Args:
        url: A ``redis://`` (or ``rediss://``, ``unix://``) URL.
        prefix: Namespace of every key this store writes.
        max_sessions: Sessions held before the least recently used one is evicted.
        max_names: Names a session holds before further names are refused.
        timeout: Seconds to wait for Redis to connect or answer.

    Raises:
        StoreError: Redis cannot be reached. The message names the URL without its password.
        ConfigError: A limit or the prefix is invalid.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "toolscout",
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        max_names: int = DEFAULT_MAX_NAMES,
        timeout: float = 5.0,
    ) -> None:
        self.max_sessions: int = check_limit(max_sessions, key="max_sessions")
        self.max_names: int = check_limit(max_names, key="max_names")
        if not prefix or any(char.isspace() for char in prefix):
            raise ConfigError("must be a non-empty key prefix without spaces", key="prefix")
        self.prefix = prefix
        self.url = redacted_url(url)
        self._closed = False
        try:
            self._client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
            self._client.ping()
        except (redis.RedisError, ValueError) as exc:
            raise StoreError(f"cannot reach the Redis session store at {self.url}: {exc}") from None
        self._discover = self._client.register_script(_DISCOVER)
        self._discovered = self._client.register_script(_DISCOVERED)

    def discovered(self, session_id: str) -> tuple[str, ...]:
        """Return the session's discovered names in discovery order."""
        check_session_id(session_id)
        self._check_open()
        keys = [self._key("names", session_id), self._key("lru"), self._key("clock")]
        names: list[str] = []
        damaged: list[bytes] = []
        for raw in self._run(self._discovered, keys, [session_id]):
            try:
                names.append(raw.decode())
            except UnicodeDecodeError:
                damaged.append(raw)
        if damaged:
            self._drop(session_id, damaged)
        return tuple(names)

    def discover(self, session_id: str, names: Sequence[str]) -> tuple[str, ...]:
        """Append the names the session does not hold yet; return only those added."""
        check_session_id(session_id)
        wanted = check_names(names)
        self._check_open()
        keys = [self._key("names", session_id), self._key("set", session_id), self._key("lru"), self._key("clock")]
        args = [session_id, str(self.max_names), str(self.max_sessions), self.prefix, *wanted]
        return tuple(name.decode() for name in self._run(self._discover, keys, args))

    def forget(self, session_id: str) -> None:
        """Drop the session's discoveries."""
        check_session_id(session_id)
        self._check_open()
        try:
            with self._client.pipeline(transaction=True) as pipe:
                pipe.delete(self._key("names", session_id), self._key("set", session_id))
                pipe.zrem(self._key("lru"), session_id)
                pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"Redis session store {self.url}: {exc}") from exc

    def sessions(self) -> int:
        """Return how many sessions are held."""
        self._check_open()
        try:
            return int(cast(Any, self._client.zcard(self._key("lru"))))
        except redis.RedisError as exc:
            raise StoreError(f"Redis session store {self.url}: {exc}") from exc

    def close(self) -> None:
        """Close the connection pool; later calls raise `StoreError`."""
        if not self._closed:
            self._closed = True
            self._client.close()

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r}, prefix={self.prefix!r}, max_sessions={self.max_sessions})"

    def _key(self, kind: str, session_id: str | None = None) -> str:
        return f"{self.prefix}:{kind}" if session_id is None else f"{self.prefix}:{kind}:{session_id}"

    def _run(self, script: Any, keys: list[str], args: list[str]) -> list[bytes]:
        try:
            return cast(list[bytes], script(keys=keys, args=args))
        except redis.RedisError as exc:
            raise StoreError(f"Redis session store {self.url}: {exc}") from exc

    def _drop(self, session_id: str, damaged: list[bytes]) -> None:
        """Remove names that are not UTF-8 from the session's list and set, with one warning."""
        logger.warning(
            "Redis session store %s: removed %d name(s) that are not UTF-8 from session %r (written by something "
            "other than toolscout); its other names are kept",
            self.url,
            len(damaged),
            session_id,
        )
        with contextlib.suppress(redis.RedisError), self._client.pipeline(transaction=True) as pipe:
            for raw in damaged:  # best effort: if this fails, the next read drops them again
                pipe.lrem(self._key("names", session_id), 0, cast(Any, raw))  # redis-py takes bytes too
                pipe.srem(self._key("set", session_id), raw)
            pipe.execute()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"Redis session store {self.url} is closed")
