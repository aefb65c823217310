"""Where the gateway keeps its files by default: the data dir."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_store_path"]


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
