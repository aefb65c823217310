"""Open the gateway's session store from ``toolscout.store``."""

from __future__ import annotations

import os
from pathlib import Path

from .._errors import ConfigError, StoreError
from ..session import DiscoveryStore, MemoryStore, SqliteStore

__all__ = ["default_store_path", "open_store"]

_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def default_store_path() -> Path:
    """The default SQLite store: ``sessions.sqlite3`` in the data dir.

    The data dir is ``$TOOLSCOUT_DATA_DIR``, else ``$XDG_DATA_HOME/toolscout``, else
    ``~/.local/share/toolscout``.
    """
    explicit = os.environ.get("TOOLSCOUT_DATA_DIR")
    if explicit:
        return Path(explicit).expanduser() / "sessions.sqlite3"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "toolscout" / "sessions.sqlite3"


def open_store(spec: str | None) -> DiscoveryStore:
    """Open the store `spec` names: None (the default SQLite file), ``memory``, a path, or a Redis URL.

    Raises:
        ConfigError: A Redis URL without ``toolscout[redis]`` installed, or an unknown URL scheme.
        StoreError: The store cannot be opened.
    """
    if spec == "memory":
        return MemoryStore()
    if spec is not None and spec.startswith(_REDIS_SCHEMES):
        try:
            from ..session._redis import RedisStore
        except ImportError:
            hint = "a Redis store needs the redis extra: pip install 'toolscout[redis]'"
            raise ConfigError(hint, key="toolscout.store") from None
        return RedisStore(spec)
    if spec is not None and "://" in spec:
        raise ConfigError("use a file path, 'memory', or a redis:// URL", key="toolscout.store")
    path = Path(spec) if spec is not None else default_store_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the folder of session store {path}: {exc.strerror or exc}") from None
    return SqliteStore(path)
