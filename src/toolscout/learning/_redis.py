"""`RedisUsageStore`: learned pairs in Redis, shared by every gateway replica (``toolscout[redis]``)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, cast

import redis

from .._errors import ConfigError, StoreError
from .._redact import redacted_url
from ._base import (
    ClosingUsageStore,
    UsageBounds,
    UsagePair,
    check_scope,
    checked_pairs,
    expired_before,
    pair_from_json,
    pair_to_json,
)

__all__ = ["RedisUsageStore"]

logger = logging.getLogger(__name__)

# Keys of one scope S under prefix P: P:s:S (members "id:tool" by id), P:a:S (the same members by time),
# P:v:S (hash id -> pair JSON), P:t:<len S>:S:<tool> (a tool's ids by id), P:n:S (a counter every write to
# the scope raises: its version); P:scopes, P:seq.
_KEYS = """
local p, scope = ARGV[1], ARGV[2]
local sk, ak, vk = p .. ':s:' .. scope, p .. ':a:' .. scope, p .. ':v:' .. scope
local function tk(tool) return p .. ':t:' .. string.len(scope) .. ':' .. scope .. ':' .. tool end
local function drop(member)
  local sep = string.find(member, ':', 1, true)
  local id, tool = string.sub(member, 1, sep - 1), string.sub(member, sep + 1)
  redis.call('ZREM', sk, member)
  redis.call('ZREM', ak, member)
  redis.call('HDEL', vk, id)
  redis.call('ZREM', tk(tool), id)
end
"""

# ARGV: prefix, scope, max per scope, max per tool, expiry cutoff, then (tool, at, JSON) per pair.
_RECORD = (
    _KEYS
    + """
local max_scope, max_tool = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('SADD', p .. ':scopes', scope)
redis.call('INCR', p .. ':n:' .. scope)
local touched = {}
for i = 6, #ARGV, 3 do
  local tool = ARGV[i]
  local id = redis.call('INCR', p .. ':seq')
  local member = id .. ':' .. tool
  redis.call('ZADD', sk, id, member)
  redis.call('ZADD', ak, ARGV[i + 1], member)
  redis.call('HSET', vk, id, ARGV[i + 2])
  redis.call('ZADD', tk(tool), id, id)
  touched[tool] = true
end
for _, member in ipairs(redis.call('ZRANGEBYSCORE', ak, '-inf', '(' .. ARGV[5])) do drop(member) end
for tool in pairs(touched) do
  local excess = redis.call('ZCARD', tk(tool)) - max_tool
  if excess > 0 then
    for _, id in ipairs(redis.call('ZRANGE', tk(tool), 0, excess - 1)) do drop(id .. ':' .. tool) end
  end
end
local excess = redis.call('ZCARD', sk) - max_scope
if excess > 0 then
  for _, member in ipairs(redis.call('ZRANGE', sk, 0, excess - 1)) do drop(member) end
end
return 0
"""
)

# ARGV: prefix, scope, then the tool or nothing. Returns how many pairs went.
_FORGET = (
    _KEYS
    + """
local members
if #ARGV >= 3 then
  members = {}
  for _, id in ipairs(redis.call('ZRANGE', tk(ARGV[3]), 0, -1)) do members[#members + 1] = id .. ':' .. ARGV[3] end
else
  members = redis.call('ZRANGE', sk, 0, -1)
end
for _, member in ipairs(members) do drop(member) end
redis.call('INCR', p .. ':n:' .. scope)
if redis.call('ZCARD', sk) == 0 then redis.call('SREM', p .. ':scopes', scope) end
return #members
"""
)


class RedisUsageStore(ClosingUsageStore):
    """A `UsageStore` in Redis, so every replica learns from every other; see `UsageStore`.

    Each write is one Lua script (record with its evictions, forget), so replicas never interleave inside
    one. Keys derive from the prefix inside the scripts, so use one Redis server (not a cluster).

    Args:
        url: A ``redis://`` (or ``rediss://``, ``unix://``) URL.
        bounds: What the store holds at most.
        prefix: Namespace of every key this store writes.
        timeout: Seconds to wait for Redis to connect or answer.

    Raises:
        StoreError: Redis cannot be reached; the message names the URL without its password.
        ConfigError: The prefix is invalid.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        bounds: UsageBounds | None = None,
        *,
        prefix: str = "toolscout:usage",
        timeout: float = 5.0,
    ) -> None:
        if not prefix or any(char.isspace() for char in prefix):
            raise ConfigError("must be a non-empty key prefix without spaces", key="prefix")
        self.bounds: UsageBounds = bounds or UsageBounds()
        self.prefix = prefix
        self.url = redacted_url(url)
        self._closed = False
        try:
            self._client = redis.Redis.from_url(
                url, decode_responses=True, socket_timeout=timeout, socket_connect_timeout=timeout
            )
            self._client.ping()
        except (redis.RedisError, ValueError) as exc:
            raise StoreError(f"cannot reach the Redis usage store at {self.url}: {exc}") from None
        self._record = self._client.register_script(_RECORD)
        self._forget = self._client.register_script(_FORGET)

    def record(self, pairs: Sequence[UsagePair]) -> None:
        """Add the pairs, then enforce the bounds on the scopes and tools written."""
        checked = checked_pairs(pairs, self.bounds)
        self._check_open()
        bounds = self.bounds
        cutoff = repr(expired_before(bounds))
        for scope in dict.fromkeys(pair.scope for pair in checked):
            args = [self.prefix, scope, str(bounds.max_pairs_per_scope), str(bounds.max_pairs_per_tool), cutoff]
            for pair in checked:
                if pair.scope == scope:
                    args += [pair.tool, repr(pair.at), pair_to_json(pair)]
            self._call(lambda args=args: self._record(keys=[], args=args))

    def pairs(self, scope: str, *, tool: str | None = None) -> tuple[UsagePair, ...]:
        """The scope's live pairs, oldest first; only `tool`'s when given."""
        check_scope(scope)
        self._check_open()
        if tool is None:
            members = cast(list[str], self._call(lambda: self._client.zrange(f"{self.prefix}:s:{scope}", 0, -1)))
            ids = [member.split(":", 1)[0] for member in members]
        else:
            ids = cast(list[str], self._call(lambda: self._client.zrange(self._tool_key(scope, tool), 0, -1)))
        if not ids:
            return ()
        values = cast(list[str | None], self._call(lambda: self._client.hmget(f"{self.prefix}:v:{scope}", ids)))
        cutoff = expired_before(self.bounds)
        found: list[UsagePair] = []
        malformed = 0
        for value in values:
            if value is None:  # evicted between the two reads
                continue
            try:
                pair = pair_from_json(value)
            except ValueError:
                malformed += 1
                continue
            if pair.at >= cutoff:
                found.append(pair)
        if malformed:
            logger.warning("Redis usage store %s: skipped %d malformed pairs of scope %r", self.url, malformed, scope)
        return tuple(found)

    def version(self, scope: str) -> str:
        """The scope's write counter (one GET): every record and forget on any replica raises it."""
        check_scope(scope)
        self._check_open()
        return str(self._call(lambda: self._client.get(f"{self.prefix}:n:{scope}")) or "0")

    def scopes(self) -> tuple[str, ...]:
        """The scopes holding pairs, sorted."""
        self._check_open()
        return tuple(sorted(cast(set[str], self._call(lambda: self._client.smembers(f"{self.prefix}:scopes")))))

    def forget(self, scope: str | None = None, *, tool: str | None = None) -> int:
        """Drop a scope's pairs (None: every scope's), only `tool`'s when given; returns how many went."""
        if scope is not None:
            check_scope(scope)
        if tool is not None:
            check_scope(tool, what="tool")
        scopes = self.scopes() if scope is None else (scope,)
        gone = 0
        for name in scopes:
            args = [self.prefix, name] + ([] if tool is None else [tool])
            gone += int(cast(Any, self._call(lambda args=args: self._forget(keys=[], args=args))))
        return gone

    def close(self) -> None:
        """Close the connection pool; later calls raise `StoreError`."""
        if not self._closed:
            self._closed = True
            self._client.close()

    def __repr__(self) -> str:
        return f"RedisUsageStore({self.url!r}, prefix={self.prefix!r})"

    def _tool_key(self, scope: str, tool: str) -> str:
        return f"{self.prefix}:t:{len(scope.encode())}:{scope}:{check_scope(tool, what='tool')}"

    def _call(self, run: Any) -> object:
        try:
            return cast(object, run())
        except redis.RedisError as exc:
            raise StoreError(f"Redis usage store {self.url}: {exc}") from None

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError(f"Redis usage store {self.url} is closed")
