"""Close-name suggestions for unknown tool names."""

from __future__ import annotations

from collections.abc import Collection

from rapidfuzz import fuzz, process

__all__ = ["close_names"]


def close_names(name: str, names: Collection[str], *, limit: int = 3) -> tuple[str, ...]:
    """Up to `limit` names from `names` that look like `name` (suffix matches first, then fuzzy ones)."""
    if not name or not names:
        return ()
    lowered = name.lower()
    suffix = sorted(candidate for candidate in names if candidate.lower().endswith(lowered) and candidate != name)
    fuzzy = [
        match
        for match, score, _ in process.extract(name, names, scorer=fuzz.WRatio, limit=limit + len(suffix))
        if score >= 60 and match != name
    ]
    ordered = dict.fromkeys([*suffix, *fuzzy])
    return tuple(ordered)[:limit]
