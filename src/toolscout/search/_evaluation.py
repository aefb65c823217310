"""Retrieval evaluation: labelled query files, ranking metrics and the `EvalReport`.

Metrics use binary relevance and allow several gold tools per query:

- Recall@k (capped): gold tools found in the top k divided by min(k, number of gold tools),
  averaged over queries, so a query that needs three tools can still score 1 at k=1 when its
  first hit is one of them (the "capped recall" of BEIR, Thakur et al., 2021,
  https://arxiv.org/abs/2104.08663). For single-tool queries it equals Hit@k.
- Hit@k: the share of queries with at least one gold tool in the top k (success@k).
- MRR: the reciprocal rank of the first gold tool in the ranking (0 when none appears).
- nDCG@k: DCG with gain 1 for each gold tool at rank r discounted by log2(r + 1), divided by
  the DCG of an ideal ranking that puts every gold tool first (Järvelin & Kekäläinen, 2002,
  https://doi.org/10.1145/582415.582418).

`evaluate` maps hit names through an alias map (catalog name -> scored name) after the top k is
cut: two catalog tools scored as one name both take a slot, as they would in a model's results.
The metric functions accept repeated names: only the first appearance of a gold tool counts.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._errors import ToolscoutError
from ..catalog import Catalog
from ._base import SearchIndex, SearchMode

__all__ = [
    "EvalReport",
    "LabelledQuery",
    "QueryFileError",
    "evaluate",
    "hit_at_k",
    "load_labelled_queries",
    "load_queries",
    "ndcg_at_k",
    "percentile",
    "recall_at_k",
    "reciprocal_rank",
    "summarize",
]

QueryId = str | int


class QueryFileError(ToolscoutError):
    """A query file cannot be read or one of its lines is malformed.

    Attributes:
        line: The 1-based number of the offending line, when one is to blame.
    """

    def __init__(self, message: str, *, path: str, line: int | None = None) -> None:
        self.line = line
        where = f"{path}: line {line}" if line is not None else path
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True, slots=True, kw_only=True)
class LabelledQuery:
    """One request and the tools that answer it."""

    id: QueryId
    """The query's id as written in the file (its line number when the file gives none)."""
    query: str
    """The request text."""
    gold: tuple[str, ...] = ()
    """Names of the tools that answer it; empty when no tool does (or the query is unlabelled)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EvalReport:
    """Aggregate retrieval quality and speed over a query set."""

    n: int
    """Number of queries with gold tools; the quality metrics average over these."""
    recall: Mapping[int, float]
    """Mean capped Recall@k for each cutoff k."""
    hit: Mapping[int, float]
    """Hit@k for each cutoff k: the share of queries with a gold tool in the top k."""
    mrr: float
    """Mean reciprocal rank of the first gold tool within the top `k`."""
    ndcg: float
    """Mean nDCG@`k`."""
    latency_p50_ms: float
    """Median query latency in milliseconds."""
    latency_p95_ms: float
    """95th-percentile query latency in milliseconds."""
    build_s: float
    """Index build time in seconds."""
    k: int
    """The cutoff of `mrr` and `ndcg` (the largest recall cutoff)."""
    mode: str = ""
    """The search mode that actually ran."""
    no_gold: int = 0
    """Number of queries no tool answers (an empty gold list)."""
    no_gold_empty: float | None = None
    """Share of those answered with zero hits, as they should be (None without such queries)."""

    def to_json(self) -> dict[str, object]:
        """Return the report as the `toolscout eval --json` object (recall keyed by k as a string)."""
        return {
            "n": self.n,
            "recall": {str(k): round(value, 4) for k, value in sorted(self.recall.items())},
            "hit": {str(k): round(value, 4) for k, value in sorted(self.hit.items())},
            "mrr": round(self.mrr, 4),
            "ndcg": round(self.ndcg, 4),
            "latency_ms": {"p50": round(self.latency_p50_ms, 3), "p95": round(self.latency_p95_ms, 3)},
            "build_s": round(self.build_s, 4),
            "k": self.k,
            "mode": self.mode,
            "no_gold": {
                "n": self.no_gold,
                "zero_hits": None if self.no_gold_empty is None else round(self.no_gold_empty, 4),
            },
        }


def load_queries(path: str | Path) -> tuple[LabelledQuery, ...]:
    """Read a JSONL file of ``{"id": ..., "query": ...}`` lines (a ``gold`` list is kept when present).

    Blank lines are skipped; a missing id becomes the line number.

    Raises:
        QueryFileError: The file cannot be read or a line is malformed (the message names the line).
    """
    return tuple(_iter_queries(Path(path), labelled=False))


def load_labelled_queries(path: str | Path) -> tuple[LabelledQuery, ...]:
    """Read a JSONL file of ``{"id": ..., "query": ..., "gold": [names]}`` lines.

    An empty ``gold`` list marks a request that no tool answers (it should get zero hits).

    Raises:
        QueryFileError: The file cannot be read, holds no query, or a line is malformed or has
            no ``gold`` list of names (the message names the line).
    """
    file = Path(path)
    queries = tuple(_iter_queries(file, labelled=True))
    if not queries:
        raise QueryFileError("no queries in file", path=str(file))
    return queries


def _iter_queries(file: Path, *, labelled: bool) -> Iterator[LabelledQuery]:
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise QueryFileError(f"cannot read query file: {exc.strerror or exc}", path=str(file)) from None
    except UnicodeDecodeError:
        raise QueryFileError("query file is not UTF-8 text", path=str(file)) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield _parse_line(line, labelled=labelled, path=str(file), number=number)


def _parse_line(line: str, *, labelled: bool, path: str, number: int) -> LabelledQuery:
    def fail(message: str) -> QueryFileError:
        return QueryFileError(message, path=path, line=number)

    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise fail(f"invalid JSON: {exc.msg}") from None
    if not isinstance(record, dict):
        raise fail('expected a JSON object like {"id": ..., "query": ...}')
    query_id = record.get("id", number)
    if not isinstance(query_id, str | int) or isinstance(query_id, bool):
        raise fail('"id" must be a string or an integer')
    query = record.get("query")
    if not isinstance(query, str):
        raise fail('"query" must be a string')
    gold = record.get("gold", [] if not labelled else None)
    if not isinstance(gold, list) or not all(isinstance(name, str) for name in gold):
        raise fail('"gold" must be a list of tool names')
    return LabelledQuery(id=query_id, query=query, gold=tuple(gold))


def _relevance(ranked: Sequence[str], gold: Sequence[str], k: int) -> list[bool]:
    wanted = set(gold)
    marks: list[bool] = []
    for name in ranked[:k]:
        marks.append(name in wanted)
        wanted.discard(name)
    return marks


def recall_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Return the distinct `gold` names in the first `k` of `ranked`, divided by min(k, number of gold names)."""
    possible = min(len(set(gold)), k)
    if possible == 0:
        return 0.0
    return sum(_relevance(ranked, gold, k)) / possible


def hit_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Return 1.0 when any `gold` name is among the first `k` of `ranked`, else 0.0."""
    return 1.0 if any(_relevance(ranked, gold, k)) else 0.0


def reciprocal_rank(ranked: Sequence[str], gold: Sequence[str], k: int | None = None) -> float:
    """Return 1/rank of the first gold name among the first `k` of `ranked` (all when None), else 0."""
    for rank, relevant in enumerate(_relevance(ranked, gold, len(ranked) if k is None else k), start=1):
        if relevant:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """Return binary-relevance nDCG of the first `k` of `ranked` against the distinct `gold` names."""
    ideal_hits = min(len(set(gold)), k)
    if ideal_hits == 0:
        return 0.0
    dcg = sum(1.0 / math.log2(rank + 1) for rank, hit in enumerate(_relevance(ranked, gold, k), start=1) if hit)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, ideal_hits + 1))
    return dcg / ideal


def percentile(values: Sequence[float], q: float) -> float:
    """Return the `q`-th percentile (0-100) of `values` with linear interpolation (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _cutoffs(ks: Sequence[int]) -> list[int]:
    if not ks or min(ks) < 1:
        raise ValueError("recall cutoffs must be positive integers")
    return sorted(set(ks))


def summarize(
    rankings: Sequence[Sequence[str]],
    golds: Sequence[Sequence[str]],
    *,
    ks: Sequence[int] = (1, 5, 10),
    latencies_ms: Sequence[float] = (),
    build_s: float = 0.0,
    mode: str = "",
) -> EvalReport:
    """Score rankings (best first, already mapped to scored names) against their gold names.

    Queries with an empty gold list are left out of the quality metrics and counted in
    `EvalReport.no_gold` instead; latencies cover every query.

    Args:
        rankings: One ranked list of tool names per query.
        golds: The gold names of each query, in the same order.
        ks: Recall cutoffs; the largest is also the cutoff of MRR and nDCG.
        latencies_ms: Per-query latencies.
        build_s: Index build time.
        mode: The search mode that produced the rankings.

    Raises:
        ValueError: `rankings` and `golds` differ in length, or `ks` is empty or not positive.
    """
    if len(rankings) != len(golds):
        raise ValueError(f"{len(rankings)} rankings for {len(golds)} gold lists")
    cutoffs = _cutoffs(ks)
    top = cutoffs[-1]
    pairs = [(ranked, gold) for ranked, gold in zip(rankings, golds, strict=True) if gold]
    unanswerable = [ranked for ranked, gold in zip(rankings, golds, strict=True) if not gold]
    n = len(pairs)

    def mean(values: Iterator[float]) -> float:
        return math.fsum(values) / n if n else 0.0

    return EvalReport(
        n=n,
        recall={k: mean(recall_at_k(ranked, gold, k) for ranked, gold in pairs) for k in cutoffs},
        hit={k: mean(hit_at_k(ranked, gold, k) for ranked, gold in pairs) for k in cutoffs},
        mrr=mean(reciprocal_rank(ranked, gold, top) for ranked, gold in pairs),
        ndcg=mean(ndcg_at_k(ranked, gold, top) for ranked, gold in pairs),
        latency_p50_ms=percentile(latencies_ms, 50),
        latency_p95_ms=percentile(latencies_ms, 95),
        build_s=build_s,
        k=top,
        mode=mode,
        no_gold=len(unanswerable),
        no_gold_empty=sum(not ranked for ranked in unanswerable) / len(unanswerable) if unanswerable else None,
    )


def evaluate(
    catalog: Catalog,
    queries: Sequence[LabelledQuery],
    *,
    build: Callable[[Catalog], SearchIndex],
    ks: Sequence[int] = (1, 5, 10),
    mode: SearchMode = "lexical",
    aliases: Mapping[str, str] | None = None,
    on_query: Callable[[], None] | None = None,
) -> EvalReport:
    """Build an index for `catalog`, run every query through it and score the results.

    Each query asks for as many hits as the largest cutoff in `ks`.

    Args:
        catalog: The tools to search.
        queries: Labelled queries.
        build: Builds the index (timed as `build_s`).
        ks: Recall cutoffs.
        mode: The search mode to run.
        aliases: Maps catalog names to the names gold lists use (names not in it score as themselves);
            the top k is cut before mapping, so a name repeated after mapping still takes its slot and only
            its first place counts (later hits never move up).
        on_query: Called after each query (e.g. to advance a progress bar).

    Raises:
        SearchError: A query cannot be run in `mode`.
        ValueError: `ks` is empty or not positive.
    """
    limit = _cutoffs(ks)[-1]
    started = time.perf_counter()
    index = build(catalog)
    build_s = time.perf_counter() - started
    names = aliases or {}
    rankings: list[list[str]] = []
    latencies: list[float] = []
    modes: dict[str, None] = {}
    for item in queries:
        started = time.perf_counter()
        result = index.search(item.query, limit=limit, mode=mode)
        latencies.append((time.perf_counter() - started) * 1000)
        # Aliased repeats keep their slots: @k scores the k hits the searcher returned, as a model sees them.
        rankings.append([names.get(hit.name, hit.name) for hit in result.hits])
        modes[result.mode] = None
        if on_query is not None:
            on_query()
    return summarize(
        rankings,
        [item.gold for item in queries],
        ks=ks,
        latencies_ms=latencies,
        build_s=build_s,
        mode="+".join(modes) or mode,
    )
