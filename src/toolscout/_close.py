"""Close names: toolscout's one "did you mean", for tool names, search requests and settings keys.

Every suggestion of a name near a written one comes from `close_names`: an unknown tool name in a call
(`dispatch`), a search that matched nothing (`search`), a misspelt key or server name in the settings
(`did_you_mean`). For a tool or a request, names that end with the written word come first (a tool written
without its namespace), then the others by rapidfuzz's ``WRatio`` (word-order and partial matches count), best
first. A misspelt key is a typo of a whole name: `did_you_mean` compares whole names (``ratio``, in any case), so
``stor`` is ``store``, not a longer key that holds it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rapidfuzz import fuzz, process, utils

__all__ = ["CLOSE", "close_names", "did_you_mean"]

CLOSE = 60.0
"""The ``WRatio`` score (0-100) from which a name counts as close to what was written."""


def close_names(
    written: str,
    names: Iterable[str] | Mapping[str, str],
    *,
    limit: int = 3,
    min_score: float = CLOSE,
    endings_first: bool = True,
    whole: bool = False,
) -> tuple[str, ...]:
    """Up to `limit` names near `written`, best first.

    Args:
        written: What was written (a name, a key, or a request's words).
        names: The names to choose from (never `written` itself, which is no suggestion for itself), or each
            name with the text compared for it (a tool's name words, which a request may match exactly).
        limit: How many at most.
        min_score: The lowest ``WRatio`` score that counts as close.
        endings_first: Names that end with `written` (in any case) come first, in name order.
        whole: Compare whole names (``ratio`` in any case, as a typo of a key) instead of ``WRatio``.
    """
    texts, own = (names, None) if isinstance(names, Mapping) else ({name: name for name in names}, written)
    if not written or not texts or limit <= 0:
        return ()
    lowered = written.lower()
    endings = sorted(name for name in texts if name.lower().endswith(lowered) and name != own) if endings_first else []
    scorer, processor = (fuzz.ratio, utils.default_process) if whole else (fuzz.WRatio, None)
    scored = process.extract(
        written, texts, scorer=scorer, processor=processor, limit=limit + len(endings), score_cutoff=min_score
    )
    return tuple(dict.fromkeys([*endings, *(name for _, _, name in scored if name != own)]))[:limit]


def did_you_mean(written: str, known: Iterable[str], *, min_score: float = CLOSE) -> str | None:
    """The known name closest to a misspelt `written`, if one is close enough to suggest."""
    found = close_names(written, tuple(known), limit=1, min_score=min_score, endings_first=False, whole=True)
    return found[0] if found else None
