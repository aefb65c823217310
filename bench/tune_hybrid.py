"""Tune and check toolscout's hybrid search (lexical fused with all-MiniLM-L6-v2) on BFCL.

One process, one machine, BFCL tuning categories only (bench/bfcl.py):

1. Build the lexical `ToolIndex` and a `DenseRanker` over the pooled catalog (tool embeddings are
   cached in ``.bench-data/cache``, so only the first run embeds ~3,000 tools).
2. Run every query once through ``ToolIndex.search(mode="hybrid")`` with a fusion that records the
   (lexical, dense) rankings the index hands it, then score a grid of `HybridFusion` settings
   offline on those recordings (``--grid``).
3. Score end to end through ``ToolIndex.search``: lexical, dense alone, hybrid with the default
   `HybridFusion` (Recall@k capped as in `toolscout.search._evaluation`, hit@5, MRR, p50 latency), and
   an oracle that picks, per query, whichever of the lexical and dense rankings ranks a gold tool
   higher (a fusion beats its R@1 only by putting first a tool that neither ranking put first).
4. No-match check on the packaged sample catalog: off-topic requests must get no more hits in
   hybrid than in lexical mode; its paraphrased requests are scored too (only
   `IndexConfig.unknown_word_weight` was chosen on them).
5. ``--unknown-words``: hybrid R@1/R@5 for several `IndexConfig.unknown_word_weight` values on the
   sample requests, the BFCL tuning categories and BFCL's held-out live categories (real user requests).

Usage: ``python bench/tune_hybrid.py [--grid] [--unknown-words]``; writes ``bench/results/tune_hybrid.md``.
"""

from __future__ import annotations

import itertools
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import torch
from bfcl import DATA_DIR, BfclData, load_bfcl
from sample_set import load_sample

from toolscout._search_settings import TOP_BAND
from toolscout._settings import ScoutSettings
from toolscout.search import SearchIndex, SearchPipeline
from toolscout.search._base import SearchMode
from toolscout.search._evaluation import EvalReport, summarize
from toolscout.search._hybrid import HybridFusion
from toolscout.search._index import IndexConfig, ToolIndex, build_index
from toolscout.search._judge import ConfidenceStage
from toolscout.search.embeddings._cache import EmbeddingCache
from toolscout.search.embeddings._dense import DenseRanker
from toolscout.search.embeddings._local import SentenceTransformerEmbedder

Ranking = list[tuple[str, float]]
Fuse = Callable[[Ranking, Ranking], list[tuple[str, float]]]
LIMIT = 10
RESULTS = Path(__file__).resolve().parent / "results" / "tune_hybrid.md"
OFF_TOPIC = (
    "bake a chocolate cake",
    "what is the capital of France",
    "translate this sentence into German",
    "recommend a good novel to read",
    "how tall is Mount Everest",
    "tell me a joke",
    "feed my cat",
    "water the plants",
    "learn to play guitar",
    "hire a plumber",
    "diagnose my headache",
    "write a poem about autumn",
    "find a dentist near me",
    "reserve a table for two tonight",
)


class Recorder:
    """A fusion that remembers what `ToolIndex` passes it and answers with `inner`."""

    def __init__(self, inner: HybridFusion) -> None:
        self.inner = inner
        self.calls: list[tuple[Ranking, Ranking]] = []

    def __call__(self, lexical: Ranking, dense: Ranking) -> list[tuple[str, float]]:
        self.calls.append((list(lexical), list(dense)))
        return self.inner(lexical, dense)


def score(rankings: Sequence[Sequence[str]], golds: Sequence[Sequence[str]]) -> EvalReport:
    return summarize(rankings, golds, ks=(1, 5, 10))


def row(label: str, report: EvalReport, *extra: str) -> str:
    cells = [
        label,
        *(f"{v:.3f}" for v in (report.recall[1], report.recall[5], report.hit[5], report.recall[10])),
        f"{report.mrr:.3f}",
    ]
    return "| " + " | ".join([*cells, *extra]) + " |"


def timed(queries: Sequence[str], rank: Callable[[str], list[str]]) -> tuple[list[list[str]], float]:
    rankings, latencies = [], []
    for query in queries:
        start = time.perf_counter()
        rankings.append(rank(query))
        latencies.append((time.perf_counter() - start) * 1000)
    return rankings, statistics.median(latencies)


def offline(
    fusion: Fuse, calls: Sequence[tuple[Ranking, Ranking]], exact: Sequence[str | None], band: float = 0.0
) -> list[list[str]]:
    """Replay `ToolIndex`'s hybrid step on recorded rankings: exact name first, then the fused order above the band."""
    out = []
    for (lexical, dense), name in zip(calls, exact, strict=True):
        ranked = fusion(lexical, dense)
        top = ranked[0][1] if ranked else 0.0
        fused = [n for n, score in ranked if n != name and score >= band * top]
        out.append(([name] if name else []) + fused[: LIMIT - (1 if name else 0)])
    return out


def grid() -> list[tuple[HybridFusion, float]]:
    """Fusions and top bands (``search_top_band``, applied to the fused scores) to compare."""
    blends = [
        (HybridFusion(lexical_weight=w, similarity_floor=f), b)
        for w, f, b in itertools.product((0.3, 0.5, 0.6, 0.7, 0.8, 0.9), (0.3, 0.35, 0.4), (0.0, 0.3, 0.5))
    ]
    rrfs = [
        (HybridFusion(method="rrf", rrf_k=k, lexical_weight=w), 0.0)
        for k, w in itertools.product((5.0, 10.0, 20.0, 60.0), (0.5, 0.6, 0.7))
    ]
    return blends + rrfs


def oracle(first: Sequence[list[str]], second: Sequence[list[str]], golds: Sequence[Sequence[str]]) -> EvalReport:
    """Per query, whichever of two rankings puts a gold tool higher (an R@1 that fusion rarely beats)."""

    def first_gold(ranking: list[str], gold: Sequence[str]) -> int:
        return next((i for i, name in enumerate(ranking) if name in gold), len(ranking))

    picked = [a if first_gold(a, g) <= first_gold(b, g) else b for a, b, g in zip(first, second, golds, strict=True)]
    return score(picked, golds)


def near_ties(band: float) -> Fuse:
    """A fusion that keeps the lexical order except within `band` of the top score, where MiniLM orders."""

    def fuse(lexical: Ranking, dense: Ranking) -> list[tuple[str, float]]:
        if not lexical:
            return []
        cosines = dict(dense)
        low = min(cosines.values(), default=0.0)
        head = [item for item in lexical if item[1] >= (1.0 - band) * lexical[0][1]]
        head.sort(key=lambda item: -cosines.get(item[0], low))
        return head + [item for item in lexical if item not in head]

    return fuse


def describe(f: HybridFusion, band: float = TOP_BAND) -> str:
    if f.method == "rrf":
        return f"rrf k={f.rrf_k:g} w={f.lexical_weight}"
    return f"blend w={f.lexical_weight} floor={f.similarity_floor} band={band}"


def sample_check(embedder: SentenceTransformerEmbedder, cache: EmbeddingCache) -> list[str]:
    catalog, requests = load_sample()
    labelled = [request for request in requests if request.gold]
    off_topic = [*OFF_TOPIC, *(request.query for request in requests if not request.gold)]
    judge = SearchPipeline([ConfidenceStage.from_settings(ScoutSettings())])  # abstention, as tool_search judges
    lexical = judge.around(build_index(catalog), catalog)
    hybrid = judge.around(
        build_index(catalog, dense=DenseRanker(catalog, embedder, cache=cache), fuse=HybridFusion()), catalog
    )
    out = ["", f"## Sample catalog ({len(catalog)} tools, {len(labelled)} paraphrased requests)", ""]
    out += ["| mode | R@1 | R@5 | hit@5 | R@10 | MRR | off-topic requests with hits |", "|---|---|---|---|---|---|---|"]
    modes: tuple[tuple[SearchMode, SearchIndex], ...] = (("lexical", lexical), ("hybrid", hybrid))
    for mode, index in modes:
        ranked = [[h.name for h in index.search(q.query, mode=mode, limit=LIMIT).hits] for q in labelled]
        report = score(ranked, [q.gold for q in labelled])
        noisy = sum(1 for q in off_topic if index.search(q, mode=mode).hits)
        out.append(row(mode, report, f"{noisy}/{len(off_topic)}"))
    return out


LIVE_CATEGORIES = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
UNKNOWN_WORD_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def unknown_word_check(
    data: BfclData, dense: DenseRanker, embedder: SentenceTransformerEmbedder, cache: EmbeddingCache
) -> list[str]:
    """Hybrid R@1 / R@5 per `IndexConfig.unknown_word_weight` on three request sets."""
    catalog, requests = load_sample()
    labelled = [request for request in requests if request.gold]
    sample_dense = DenseRanker(catalog, embedder, cache=cache)
    live = load_bfcl(LIVE_CATEGORIES)
    assert live.catalog.fingerprint == data.catalog.fingerprint, "the pooled catalog does not depend on the categories"
    sets = (
        ("sample requests", catalog, sample_dense, [(q.query, q.gold) for q in labelled], lambda names: names),
        ("BFCL tuning", data.catalog, dense, [(q.query, q.gold) for q in data.queries], data.canonical),
        ("BFCL live (held out)", live.catalog, dense, [(q.query, q.gold) for q in live.queries], live.canonical),
    )
    sizes = ", ".join(f"{label} {len(pairs)}" for label, _, _, pairs, _ in sets)
    out = ["", f"## Unknown-word weight (hybrid; requests: {sizes})", ""]
    out += ["| weight | " + " | ".join(f"{label} R@1 | R@5" for label, *_ in sets) + " |", "|---" * 7 + "|"]
    for weight in UNKNOWN_WORD_WEIGHTS:
        cells = []
        for _, tools, ranker, pairs, canonical in sets:
            index = build_index(
                tools, dense=ranker, fuse=HybridFusion(), config=IndexConfig(unknown_word_weight=weight)
            )
            ranked = [canonical([h.name for h in index.search(q, mode="hybrid", limit=LIMIT).hits]) for q, _ in pairs]
            report = score(ranked, [gold for _, gold in pairs])
            cells += [f"{report.recall[1]:.3f}", f"{report.recall[5]:.3f}"]
        out.append(f"| {weight:g} | " + " | ".join(cells) + " |")
    return out


def main(argv: Sequence[str]) -> None:
    # One intra-op thread: on a shared 2-core machine torch's spinning worker threads make a
    # one-query forward pass ~25x slower (measured 870 ms vs 34 ms under load).
    torch.set_num_threads(1)
    data = load_bfcl()
    queries = [q.query for q in data.queries]
    golds = [q.gold for q in data.queries]
    embedder = SentenceTransformerEmbedder()
    cache = EmbeddingCache(DATA_DIR / "cache")
    start = time.perf_counter()
    dense = DenseRanker(data.catalog, embedder, cache=cache)
    dense_s = time.perf_counter() - start
    recorder = Recorder(HybridFusion())
    index: ToolIndex = build_index(data.catalog, dense=dense, fuse=recorder)

    def canonical(rank: Callable[[str], list[str]]) -> Callable[[str], list[str]]:
        return lambda query: data.canonical(rank(query))

    lex, lex_p50 = timed(queries, canonical(lambda q: [h.name for h in index.search(q, limit=LIMIT).hits]))
    den, den_p50 = timed(queries, canonical(lambda q: [n for n, _ in dense.rank(q, limit=LIMIT)]))
    hyb, hyb_p50 = timed(
        queries, canonical(lambda q: [h.name for h in index.search(q, mode="hybrid", limit=LIMIT).hits])
    )
    lines = [
        "# Hybrid search tuning (BFCL tuning categories, pooled catalog)",
        "",
        f"{len(data.catalog)} tools, {len(queries)} queries; all-MiniLM-L6-v2 (packaged), text = "
        f"`toolscout.search.embeddings.tool_text`; catalog embedding {dense_s:.1f} s (cache "
        f"{'hit' if dense_s < 30 else 'miss'}). Recall@k is capped (`toolscout.search._evaluation`); hit@5 = any gold "
        "in the top 5 (the issue's reference figures).",
        "",
        "| system | R@1 | R@5 | hit@5 | R@10 | MRR | p50 ms |",
        "|---|---|---|---|---|---|---|",
        row("toolscout lexical", score(lex, golds), f"{lex_p50:.2f}"),
        row("all-MiniLM-L6-v2 dense alone", score(den, golds), f"{den_p50:.2f}"),
        row(f"toolscout hybrid (default: {describe(HybridFusion())})", score(hyb, golds), f"{hyb_p50:.2f}"),
        row("oracle: per query the better of lexical and dense", oracle(lex, den, golds), "–"),
    ]
    if "--grid" in argv:
        calls = recorder.calls[-len(queries) :]
        exact = [index.exact_match(q) for q in queries]
        scored = [
            ((f, band), score([data.canonical(r) for r in offline(f, calls, exact, band)], golds)) for f, band in grid()
        ]
        scored.sort(key=lambda item: -(item[1].recall[1] + item[1].recall[5]))
        best = [item for item in scored if item[0][0].method == "blend"][:10]
        best += [item for item in scored if item[0][0].method == "rrf"][:4]
        lines += ["", "## Grid (offline replay of the recorded rankings; best by R@1 + R@5: 10 blends, 4 RRF)", ""]
        lines += ["| fusion | R@1 | R@5 | hit@5 | R@10 | MRR |", "|---|---|---|---|---|---|"]
        lines += [row(describe(*candidate), report) for candidate, report in best]
        lines += ["", "MiniLM only reorders the lexical near-ties (scores within a band of the top one):", ""]
        lines += ["| band | R@1 | R@5 | hit@5 | R@10 | MRR |", "|---|---|---|---|---|---|"]
        for band in (0.0, 0.02, 0.05, 0.1, 0.2):
            ranked = offline(near_ties(band), calls, exact)
            lines.append(row(f"{band:.0%}", score([data.canonical(r) for r in ranked], golds)))
    lines += sample_check(embedder, cache)
    if "--unknown-words" in argv:
        lines += unknown_word_check(data, dense, embedder, cache)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
