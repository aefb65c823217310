"""Open a `DiscoveryStore` from a spec string, by URL scheme: a registry a third party can add to.

``memory``, a file path (SQLite), ``sqlite:///path``, ``redis://``, ``rediss://`` and ``unix://``
(Redis, with ``toolscout[redis]``) are built in; `register_store` adds a scheme.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .._errors import ConfigError, StoreError
from ._base import DiscoveryStore
from ._memory import MemoryStore
from ._sqlite import SqliteStore

__all__ = ["StoreFactory", "open_store", "register_store", "store_schemes"]

StoreFactory = Callable[[str], DiscoveryStore]
"""Builds a store from the whole spec (``scheme://...``); raises `ConfigError` or `StoreError`."""

_FACTORIES: dict[str, StoreFactory] = {}


def register_store(scheme: str, factory: StoreFactory) -> None:
    """Open specs starting with ``scheme://`` (or equal to `scheme`, for a bare keyword) with `factory`."""
    _FACTORIES[scheme] = factory


def store_schemes() -> tuple[str, ...]:
    """The registered schemes."""
    return tuple(_FACTORIES)


def open_store(spec: str | None, *, default: Path, key: str = "store") -> DiscoveryStore:
    """Open the store `spec` names: None (an SQLite file at `default`), a file path, or ``scheme://...``.

    Raises:
        ConfigError: An unknown scheme (the known ones are listed), or a scheme whose extra is missing.
        StoreError: The store cannot be opened.
    """
    if spec is None:
        return _sqlite_file(default)
    scheme = spec.split("://", 1)[0] if "://" in spec else spec
    factory = _FACTORIES.get(scheme)
    if factory is not None:
        return factory(spec)
    if "://" in spec:
        known = ", ".join(f"{name}://" if name != "memory" else name for name in _FACTORIES)
        raise ConfigError(f"unknown store scheme {scheme!r}; use a file path or one of: {known}", key=key)
    return _sqlite_file(Path(spec))


def _sqlite_file(path: Path) -> DiscoveryStore:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the folder of session store {path}: {exc.strerror or exc}") from None
    return SqliteStore(path)


def _redis(spec: str) -> DiscoveryStore:
    try:
        from ._redis import RedisStore
    except ImportError:
        raise ConfigError("a Redis store needs the redis extra: pip install 'toolscout[redis]'", key="store") from None
    return RedisStore(spec)


register_store("memory", lambda spec: MemoryStore())
register_store("sqlite", lambda spec: _sqlite_file(Path(spec.removeprefix("sqlite://"))))
for _scheme in ("redis", "rediss", "unix"):
    register_store(_scheme, _redis)
