"""Open the gateway's session store from ``toolscout.store``."""

from __future__ import annotations

import os
from pathlib import Path

from ..session import DiscoveryStore
from ..session import open_store as open_session_store

__all__ = ["default_store_path", "open_store"]


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
    """Open the store ``toolscout.store`` names (see `toolscout.session.open_store`); default: the data dir's file.

    Raises:
        ConfigError: An unknown scheme, or a Redis URL without ``toolscout[redis]`` installed.
        StoreError: The store cannot be opened.
    """
    return open_session_store(spec, default=default_store_path(), key="toolscout.store")
