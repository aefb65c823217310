"""BFCL's tuning requests as training pairs: one half of them trains, the other half selects and measures.

The halves split BFCL's functions, not its requests (`tool_half`, a stable hash of a function's name):
a request belongs to the half all its functions are in (`request_half`; one calling functions of both
halves is in neither), so the held half measures requests for tools training never saw. Split by
request instead, the same functions (``sql.execute`` serves 100 requests) sit in both halves: a
model trained on one half gained 0.05 R@1 on the other and nothing on BFCL live, which a tool-disjoint
half does not let happen. A trained-on request's pairs name its gold tools' catalog variants
(``name``, ``name_2``, ... are one function reworded; the first is always a positive, the variants
too) and, through `Pair.also`, the other tools the request calls, which are never its negatives.
BFCL's live and multi-turn categories are never read here.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from toolscout.search.embeddings._internal import tool_text

from ._data import Corpus, Pair, Tool
from ._negatives import normalised

__all__ = [
    "BFCL_SOURCE",
    "Half",
    "TuningRequest",
    "bfcl_corpus",
    "load_tuning",
    "request_half",
    "requests_of",
    "tool_half",
]

BFCL_SOURCE = "bfcl_tuning"
"""The source name BFCL's tools and pairs carry in the training corpus."""
Half = Literal["train", "held"]
_BENCH = Path(__file__).resolve().parent.parent / "bench"


@dataclass(frozen=True)
class TuningRequest:
    """One BFCL tuning request and the original names of the functions it calls."""

    query: str
    gold: tuple[str, ...]


def tool_half(name: str) -> Half:
    """Which half the function `name` belongs to: a stable hash of its normalised name (``calcBMI`` is ``calc_bmi``)."""
    digest = hashlib.blake2b(normalised(name).encode(), digest_size=4).digest()
    return "train" if digest[0] % 2 == 0 else "held"


def request_half(gold: Sequence[str]) -> Half | None:
    """The half all of a request's functions are in, or None when they are in both."""
    halves = {tool_half(name) for name in gold}
    return halves.pop() if len(halves) == 1 else None


def load_tuning() -> Any:
    """BFCL's tuning categories as ``bench/bfcl.py`` loads them (``BfclData``)."""
    sys.path.insert(0, str(_BENCH))
    try:
        bfcl = importlib.import_module("bfcl")  # bench/bfcl.py: a script beside the package, not installed
        return bfcl.load_bfcl(bfcl.TUNING_CATEGORIES)
    finally:
        sys.path.remove(str(_BENCH))


def requests_of(data: Any, half: Half) -> list[TuningRequest]:
    """The tuning requests of `half`, in BFCL's order."""
    return [TuningRequest(q.query, tuple(q.gold)) for q in data.queries if request_half(q.gold) == half]


def bfcl_corpus(corpus: Corpus, data: Any, *, repeat: int = 1) -> tuple[Corpus, list[Pair]]:
    """`corpus` with BFCL's pooled catalog added as one more source, and the training half's pairs.

    Each request gets one pair per gold function (its variants are the positives, the request's other
    functions its `also`), `repeat` times over.

    Raises:
        ValueError: `repeat` is below 1.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    tools = dict(corpus.tools)
    variants: dict[str, list[str]] = defaultdict(list)
    for spec in data.catalog:
        original = data.original_name.get(spec.name, spec.name)
        tool_id = f"{BFCL_SOURCE}:{spec.name}"
        tools[tool_id] = Tool(tool_id, BFCL_SOURCE, original, spec.description, tool_text(spec))
        variants[original].append(tool_id)
    pairs = list(_pairs(requests_of(data, "train"), variants))
    return replace(corpus, tools=tools), pairs * repeat


def _pairs(requests: Iterable[TuningRequest], variants: dict[str, list[str]]) -> Iterable[Pair]:
    for request in requests:
        known = [name for name in request.gold if variants.get(name)]
        for name in known:
            others: Sequence[str] = [tool_id for other in known if other != name for tool_id in variants[other]]
            yield Pair(BFCL_SOURCE, request.query, tuple(variants[name]), also=tuple(others))
