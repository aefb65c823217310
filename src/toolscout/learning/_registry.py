"""Open a `UsageStore` from a spec string by URL scheme, as `toolscout.session` opens discovery stores.

``memory``, a file path (SQLite), ``sqlite:///path``, ``redis://``, ``rediss://`` and ``unix://`` (Redis, with
``toolscout[redis]``) are built in; `register_usage_store` adds a scheme.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .._errors import ConfigError, StoreError
from ._base import UsageBounds, UsageStore
from ._memory import MemoryUsageStore
from ._sqlite import SqliteUsageStore

__all__ = ["UsageStoreFactory", "open_usage_store", "register_usage_store", "store_kind"]

UsageStoreFactory = Callable[[str, UsageBounds], UsageStore]
"""Builds a store from the whole spec (``scheme://...``) and its bounds; raises `ConfigError` or `StoreError`."""

_FACTORIES: dict[str, UsageStoreFactory] = {}


def register_usage_store(scheme: str, factory: UsageStoreFactory) -> None:
    """Open specs starting with ``scheme://`` (or equal to `scheme`, for a bare keyword) with `factory`."""
    _FACTORIES[scheme] = factory


def open_usage_store(spec: str, bounds: UsageBounds, *, key: str = "learning.store") -> UsageStore:
    """Open the store `spec` names: ``memory``, a file path, or ``scheme://...``.

    Raises:
        ConfigError: An unknown scheme (the known ones are listed), or a scheme whose extra is missing.
        StoreError: The store cannot be opened.
    """
    scheme = spec.split("://", 1)[0] if "://" in spec else spec
    factory = _FACTORIES.get(scheme)
    if factory is not None:
        return factory(spec, bounds)
    if "://" in spec:
        known = ", ".join(f"{name}://" if name != "memory" else name for name in _FACTORIES)
        raise ConfigError(f"unknown store scheme {scheme!r}; use a file path or one of: {known}", key=key)
    return _sqlite_file(Path(spec), bounds)


def store_kind(spec: str) -> str:
    """The kind of store `spec` names, without its path or address: its scheme, ``sqlite`` for a file path."""
    scheme = spec.split("://", 1)[0] if "://" in spec else spec
    return scheme if scheme in _FACTORIES else "sqlite"


def _sqlite_file(path: Path, bounds: UsageBounds) -> UsageStore:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the folder of usage store {path}: {exc.strerror or exc}") from None
    return SqliteUsageStore(path, bounds)


def _redis(spec: str, bounds: UsageBounds) -> UsageStore:
    try:
        from ._redis import RedisUsageStore
    except ImportError:
        raise ConfigError(
            "a Redis store needs the redis extra: pip install 'toolscout[redis]'", key="learning.store"
        ) from None
    return RedisUsageStore(spec, bounds)


register_usage_store("memory", lambda spec, bounds: MemoryUsageStore(bounds))
register_usage_store("sqlite", lambda spec, bounds: _sqlite_file(Path(spec.removeprefix("sqlite://")), bounds))
for _scheme in ("redis", "rediss", "unix"):
    register_usage_store(_scheme, _redis)
