"""Compound requests: the sentences of a request that asks for several things, each searched on its own.

A request such as "Find the GCD of 36 and 48. Then book a table for two in Rome." embeds as one
vector that leans towards one of its intents, so its top hits often hold near-duplicates of one
tool and miss the other. `request_parts` splits a request at sentence ends (``.``, ``?``, ``!``,
``;`` followed by a space, the full-width ``。？！；`` and line breaks) and keeps the parts long
enough to name a task; `merge_parts` puts each part's confident best tool right after the whole
request's best hit. With a threshold of 0.5 this raised hybrid R@5 on BFCL's tuning requests from 0.913 to
0.927 and on the tooldata dev split from 0.868 to 0.870, and left R@1 unchanged: the whole request's
best hit stays first (``bench/compound.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ._base import SearchHit, SearchResult
from ._tokenize import words

__all__ = ["merge_parts", "request_parts"]

# Every sentence end starts with a space or a full-width mark: the lookahead rejects any other character at once.
_SENTENCE_END = re.compile(r"(?=[\s。？！；])(?:(?<=[.?!;])\s+|[。？！；]+\s*|\s*\n+\s*)")
# Whether `_SENTENCE_END` matches anywhere (one of .?!; before a space, a full-width mark, a line break), by a regex
# that starts with one character class, so the regex engine skips to its characters (most requests are one sentence).
_MAY_END = re.compile(r"[.?!;。？！；\n](?:(?<=[。？！；\n])|(?=\s))")
_MIN_WORDS = 3


def request_parts(query: str, *, max_parts: int) -> list[str]:
    """The sentences of `query` with at least three words, at most `max_parts`; none unless there are two or more."""
    if not _MAY_END.search(query):
        return []
    parts = [part.strip() for part in _SENTENCE_END.split(query)]
    if len(parts) < 2:
        return []
    kept = [part for part in parts if len(words(part)) >= _MIN_WORDS][:max_parts]
    return kept if len(kept) >= 2 else []


def merge_parts(whole: SearchResult, heads: Sequence[SearchHit], limit: int) -> SearchResult:
    """`whole` with each part's best hit (`heads`) right after its own best hit, repeats dropped, cut to `limit`.

    An added hit keeps the score and confidence its own sentence gave it. When `whole` found nothing (or abstained),
    the parts' hits answer on their own.
    """
    first = whole.hits[:1]
    seen = {hit.name for hit in first}
    added: list[SearchHit] = []
    for hit in heads:
        if hit.name not in seen:
            seen.add(hit.name)
            added.append(hit)
    if not added:
        return whole
    rest = [hit for hit in whole.hits[1:] if hit.name not in seen]
    hits = (*first, *added, *rest)[:limit]
    new = sum(hit.name not in {h.name for h in whole.hits} for hit in added)
    # A deeper search may list a sentence's tool that this cut left out: what it lists is no longer known.
    return replace(whole, hits=hits, total=whole.total + new, suggestions=(), abstained=False, listed=None)
