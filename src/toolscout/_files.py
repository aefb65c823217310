"""`write_atomically`: files that readers see whole or not at all."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

__all__ = ["write_atomically"]


def write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Create `path`'s folder, then `write` a temporary file beside `path` and rename it to `path`.

    Readers see the old file or the whole new one, never a part. The temporary file is created
    exclusively, readable by its owner only, without following links, and removed on failure.

    Raises:
        OSError: The folder or file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            write(file)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
