"""Output handles: opaque random ids, never paths, checked strictly before any use."""

from __future__ import annotations

import re
import secrets

__all__ = ["HANDLE_PREFIX", "is_handle", "new_handle"]

HANDLE_PREFIX = "out_"
"""Every handle starts with this; 20 lowercase hex digits (80 random bits) follow."""

_HEX_DIGITS = 20
_HANDLE_RE = re.compile(rf"{HANDLE_PREFIX}[0-9a-f]{{{_HEX_DIGITS}}}")


def new_handle() -> str:
    """A fresh random handle, e.g. ``out_3f9c2a41d07be6c58a10``."""
    return HANDLE_PREFIX + secrets.token_hex(_HEX_DIGITS // 2)


def is_handle(value: object) -> bool:
    """True only for a string of exactly the handle form (no path, separator, NUL or padding)."""
    return isinstance(value, str) and _HANDLE_RE.fullmatch(value) is not None
