"""`RedisOffloadStore`: offloaded outputs in Redis, readable from every gateway replica (``toolscout[redis]``)."""

from __future__ import annotations

import json
import time
from typing import Any, cast

import redis

from .._errors import ConfigError, StoreError
from .._redact import redacted_url
from ..session._internal import check_session_id
from ._handles import is_handle, new_handle
from ._store import FOREIGN_SESSION, LOCAL_PRINCIPAL, OutputKind, OutputMeta, OutputMissing, check_caps, full_message

__all__ = ["RedisOffloadStore"]

_REMEMBERED_EVICTIONS = 1_024
_SWEEP_BATCH = 64
_EXPIRED = "this output expired: it was removed to make room for newer outputs; call the tool again"
_UNKNOWN = "no output with this handle in this session; use a handle from a result of this session"
_INVALID = "not an output handle: handles look like out_ followed by 20 hex digits"

# Shared by every script. ARGV[1] is the key prefix, ARGV[2] the session id. Per session: a hash of
# records (handle -> JSON), a sorted set of handles by store order, a list of evicted handles and one
# string per output. Per principal: a sorted set of "<handle> <session>" by store order (its eviction
# order). Across sessions: bytes per session, each session's principal, bytes per principal, total
# bytes, and each session's last use (seconds).
_COMMON = f"""
local p, s = ARGV[1], ARGV[2]
local used_key, total_key = p .. ':out:used', p .. ':out:total'
local owner_key, held_key = p .. ':out:owner', p .. ':out:held'
local touched_key = p .. ':out:touched'
local function key(kind, session) return p .. ':out:' .. kind .. ':' .. session end
local function data_key(session, handle) return key('data', session) .. ':' .. handle end
local function held(principal) return tonumber(redis.call('HGET', held_key, principal) or '0') end
local function count(principal, size)
  if principal and redis.call('HINCRBY', held_key, principal, size) <= 0 then
    redis.call('HDEL', held_key, principal)
  end
end
local function drop(session)
  local owner = redis.call('HGET', owner_key, session)
  local size = tonumber(redis.call('HGET', used_key, session) or '0')
  for _, handle in ipairs(redis.call('ZRANGE', key('order', session), 0, -1)) do
    redis.call('DEL', data_key(session, handle))
    if owner then redis.call('ZREM', key('principal', owner), handle .. ' ' .. session) end
  end
  redis.call('DECRBY', total_key, size)
  count(owner, -size)
  redis.call('DEL', key('meta', session), key('order', session), key('evicted', session))
  redis.call('HDEL', used_key, session)
  redis.call('HDEL', owner_key, session)
  redis.call('ZREM', touched_key, session)
end
local function sweep(now, ttl)
  local stale = redis.call('ZRANGEBYSCORE', touched_key, '-inf', tostring(now - ttl), 'LIMIT', 0, {_SWEEP_BATCH})
  for _, session in ipairs(stale) do drop(session) end
end
local function live(now, ttl)
  local seen = redis.call('ZSCORE', touched_key, s)
  if not seen then return false end
  if tonumber(seen) <= now - ttl then drop(s) return false end
  redis.call('ZADD', touched_key, tostring(now), s)
  return true
end
local function evict(session, handle)
  local size = cjson.decode(redis.call('HGET', key('meta', session), handle)).size
  local owner = redis.call('HGET', owner_key, session)
  redis.call('DEL', data_key(session, handle))
  redis.call('HDEL', key('meta', session), handle)
  redis.call('ZREM', key('order', session), handle)
  if owner then redis.call('ZREM', key('principal', owner), handle .. ' ' .. session) end
  redis.call('HINCRBY', used_key, session, -size)
  redis.call('DECRBY', total_key, size)
  count(owner, -size)
  redis.call('LPUSH', key('evicted', session), handle)
  redis.call('LTRIM', key('evicted', session), 0, {_REMEMBERED_EVICTIONS - 1})
  return size
end
"""

# ARGV: prefix, session, handle, record, size, session cap, total cap, now, ttl, bytes, principal,
# principal cap. Returns {"ok"}, {"foreign"} (the session is another principal's) or {"full"} (the
# other principals hold too much of the total: nothing evicted, nothing stored).
_PUT = (
    _COMMON
    + """
local h, record, size = ARGV[3], ARGV[4], tonumber(ARGV[5])
local session_cap, total_cap, now, ttl = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local principal, principal_cap = ARGV[11], tonumber(ARGV[12])
sweep(now, ttl)
live(now, ttl)
local owner = redis.call('HGET', owner_key, s)
if owner and owner ~= principal then return {'foreign'} end
local total = tonumber(redis.call('GET', total_key) or '0')
if total - held(principal) + size > total_cap then return {'full'} end
local function evict_own()
  local oldest = redis.call('ZRANGE', key('principal', principal), 0, 0)[1]
  if not oldest then return false end
  evict(string.sub(oldest, #h + 2), string.sub(oldest, 1, #h))
  return true
end
local used = tonumber(redis.call('HGET', used_key, s) or '0')
while used + size > session_cap do
  local oldest = redis.call('ZRANGE', key('order', s), 0, 0)[1]
  if not oldest then break end
  used = used - evict(s, oldest)
end
while held(principal) + size > principal_cap and evict_own() do end
while tonumber(redis.call('GET', total_key) or '0') + size > total_cap and evict_own() do end
local order = redis.call('INCR', p .. ':out:seq')
redis.call('SET', data_key(s, h), ARGV[10])
redis.call('HSET', key('meta', s), h, record)
redis.call('ZADD', key('order', s), order, h)
redis.call('ZADD', key('principal', principal), order, h .. ' ' .. s)
redis.call('HSET', owner_key, s, principal)
redis.call('HINCRBY', used_key, s, size)
count(principal, size)
redis.call('INCRBY', total_key, size)
redis.call('ZADD', touched_key, tostring(now), s)
return {'ok'}
"""
)

# ARGV: prefix, session, handle, now, ttl, "1" to return the bytes too. Returns {state, record, bytes}.
_GET = (
    _COMMON
    + """
local h, now, ttl = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
if not live(now, ttl) then return {'unknown'} end
local record = redis.call('HGET', key('meta', s), h)
if record then
  if ARGV[6] == '1' then return {'ok', record, redis.call('GET', data_key(s, h))} end
  return {'ok', record}
end
if redis.call('LPOS', key('evicted', s), h) then return {'expired'} end
return {'unknown'}
"""
)

# ARGV: prefix, session, now, ttl. Returns the session's bytes.
_USED = (
    _COMMON
    + """
if not live(tonumber(ARGV[3]), tonumber(ARGV[4])) then return 0 end
return tonumber(redis.call('HGET', used_key, s) or '0')
"""
)

# ARGV: prefix, session.
_FORGET = _COMMON + "\ndrop(s)\nreturn 0\n"


class RedisOffloadStore:
    """An `OffloadStore` in Redis, `shared` by every process that opens the same URL and prefix.

    Any replica reads, searches and queries an output another stored; the per-session and overall
    caps are counted in Redis, so they hold across replicas. Every read-modify-write is one Lua
    script, so concurrent replicas never interleave inside a store or an eviction. A session's
    outputs are dropped `ttl_s` after its last use by any replica (checked on every call, memory
    reclaimed by the next store of any session); `close` only closes the connections. The scripts
    derive keys from the prefix, so use one Redis server (not a cluster). See `OffloadStore` for
    the contract.

    Args:
        url: A ``redis://`` (or ``rediss://``, ``unix://``) URL.
        prefix: Namespace of every key this store writes (under ``<prefix>:out:``).
        session_bytes: Bytes one session may hold.
        total_bytes: Bytes all sessions together may hold (at least `session_bytes`; None: 4 GiB,
            or `session_bytes` if larger).
        principal_bytes: Bytes the sessions of one principal may hold together (from `session_bytes`
            to `total_bytes`; None: `total_bytes`).
        ttl_s: Seconds a session's outputs outlive its last use.
        timeout: Seconds to wait for Redis to connect or answer.

    Raises:
        StoreError: A cap is not a positive integer, or Redis cannot be reached (the URL is named
            without its password).
        ConfigError: The TTL or the prefix is invalid.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "toolscout",
        session_bytes: int = 256 << 20,
        total_bytes: int | None = None,
        principal_bytes: int | None = None,
        ttl_s: float = 3600.0,
        timeout: float = 5.0,
    ) -> None:
        self.session_bytes, self.principal_bytes, self.total_bytes = check_caps(
            session_bytes, principal_bytes, total_bytes
        )
        if isinstance(ttl_s, bool) or not isinstance(ttl_s, int | float) or not 0 < ttl_s < float("inf"):
            raise ConfigError(f"must be a positive number of seconds, got {ttl_s!r}", key="ttl_s")
        if not prefix or any(char.isspace() for char in prefix):
            raise ConfigError("must be a non-empty key prefix without spaces", key="prefix")
        self.ttl_s = float(ttl_s)
        self.shared = True
        self.prefix = prefix
        self.url = redacted_url(url)
        self._closed = False
        try:
            self._client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
            self._client.ping()
        except (redis.RedisError, ValueError) as exc:
            raise StoreError(f"cannot reach the Redis output store at {self.url}: {exc}") from None
        self._put = self._client.register_script(_PUT)
        self._get = self._client.register_script(_GET)
        self._used = self._client.register_script(_USED)
        self._forget = self._client.register_script(_FORGET)

    def put(
        self,
        session_id: str,
        data: bytes,
        *,
        kind: OutputKind,
        content_type: str,
        tool: str,
        principal: str = LOCAL_PRINCIPAL,
    ) -> OutputMeta:
        """Store `data`, evicting the session's, then the principal's, oldest outputs as needed; return the record."""
        check_session_id(session_id)
        self._check_open()
        if len(data) > self.session_bytes:
            raise StoreError(
                f"the output ({len(data)} bytes) is larger than the per-session cap ({self.session_bytes})"
            )
        now = time.time()
        meta = OutputMeta(
            handle=new_handle(), kind=kind, content_type=content_type, tool=tool, size=len(data), created=now
        )
        record = json.dumps(meta.to_json())
        limits = [str(self.session_bytes), str(self.total_bytes), repr(now), repr(self.ttl_s)]
        share = [principal, str(self.principal_bytes)]
        answer = self._run(self._put, session_id, meta.handle, record, str(meta.size), *limits, data, *share)
        state = bytes(answer[0]).decode()
        if state == "foreign":
            raise StoreError(FOREIGN_SESSION)
        if state == "full":
            raise StoreError(full_message(self.total_bytes, meta.size))
        return meta

    def meta(self, session_id: str, handle: str) -> OutputMeta:
        """The record of a stored output (raises `OutputMissing` for an invalid, expired or unknown handle)."""
        return self._fetch(session_id, handle, with_data=False)[0]

    def read(self, session_id: str, handle: str) -> bytes:
        """The stored bytes (raises `OutputMissing` for an invalid, expired or unknown handle)."""
        data = self._fetch(session_id, handle, with_data=True)[1]
        if data is None:
            raise OutputMissing(_UNKNOWN, reason="unknown")
        return data

    def used(self, session_id: str) -> int:
        """Bytes the session holds now (0 once its TTL has passed)."""
        check_session_id(session_id)
        self._check_open()
        return int(cast(Any, self._run(self._used, session_id, repr(time.time()), repr(self.ttl_s))))

    def total(self) -> int:
        """Bytes all sessions hold now (sessions past their TTL count until a store sweeps them)."""
        self._check_open()
        try:
            return int(cast(Any, self._client.get(f"{self.prefix}:out:total")) or 0)
        except redis.RedisError as exc:
            raise StoreError(f"Redis output store {self.url}: {exc}") from exc

    def forget(self, session_id: str) -> None:
        """Delete everything the session stored, whichever replica stored it."""
        check_session_id(session_id)
        self._check_open()
        self._run(self._forget, session_id)

    def close(self) -> None:
        """Close the connections; the outputs stay for the other replicas until their TTL."""
        if not self._closed:
            self._closed = True
            self._client.close()

    def __enter__(self) -> RedisOffloadStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RedisOffloadStore({self.url!r}, prefix={self.prefix!r}, session_bytes={self.session_bytes})"

    def _fetch(self, session_id: str, handle: str, *, with_data: bool) -> tuple[OutputMeta, bytes | None]:
        check_session_id(session_id)
        if not is_handle(handle):
            raise OutputMissing(_INVALID, reason="invalid")
        self._check_open()
        now = repr(time.time())
        answer = self._run(self._get, session_id, handle, now, repr(self.ttl_s), "1" if with_data else "0")
        state = bytes(answer[0]).decode()
        if state == "expired":
            raise OutputMissing(_EXPIRED, reason="expired")
        if state != "ok":
            raise OutputMissing(_UNKNOWN, reason="unknown")
        try:
            meta = OutputMeta.from_json(json.loads(answer[1]))
        except ValueError as exc:
            raise StoreError(f"Redis output store {self.url}: a damaged output record ({exc})") from None
        data = answer[2] if with_data and len(answer) > 2 and isinstance(answer[2], bytes) else None
        return meta, data

    def _run(self, script: Any, session_id: str, *args: str | bytes) -> Any:
        try:
            return script(keys=[], args=[self.prefix, session_id, *args])
        except redis.RedisError as exc:
            raise StoreError(f"Redis output store {self.url}: {exc}") from exc

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"Redis output store {self.url} is closed")
