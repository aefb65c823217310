"""The retrieval systems the benchmarks compare, each behind one `System` shape.

A `System` is built once for a catalog and answers queries with ranked catalog names. In-process
systems are timed here; the peers' own code runs in `.bench-venv/` through `peers_worker.py`
and reports its own timings.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import bm25s
import numpy as np
import Stemmer
from rank_bm25 import BM25Okapi

from toolscout import Catalog, ToolScout, ToolSpec
from toolscout.cli._engine import build_for_mode
from toolscout.search._base import SearchMode

ROOT = Path(__file__).resolve().parents[1]
BENCH_PYTHON = ROOT / ".bench-venv" / "bin" / "python"
PEERS = ("fastmcp-bm25", "pydantic-ai-keywords")

Search = Callable[[str, int], list[str]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """One system's answers to a query list."""

    system: str
    rankings: list[list[str]]
    latencies_ms: list[float]
    build_s: float
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)


_WORD = re.compile(r"[a-z0-9]+")


def simple_tokens(text: str) -> list[str]:
    """Lowercased ASCII letter/digit runs: the plain tokenizer of the seeds' BM25 (splits snake_case)."""
    return _WORD.findall(text.lower())


def name_and_description(tool: ToolSpec) -> str:
    return f"{tool.name} {tool.description}"


def rank_bm25_system(catalog: Catalog) -> Search:
    """`rank_bm25.BM25Okapi` over name + description, positive scores only."""
    names = [tool.name for tool in catalog]
    bm25 = BM25Okapi([simple_tokens(name_and_description(tool)) for tool in catalog])

    def search(query: str, limit: int = 10) -> list[str]:
        scores = bm25.get_scores(simple_tokens(query))
        top = np.argsort(-scores, kind="stable")[:limit]
        return [names[i] for i in top if scores[i] > 0]

    return search


def bm25s_system(catalog: Catalog) -> Search:
    """`bm25s` (Lucene BM25) over name + description with its English stopwords and stemmer."""
    names = [tool.name for tool in catalog]
    stemmer = Stemmer.Stemmer("english")
    corpus = [name_and_description(tool).replace("_", " ") for tool in catalog]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False)

    def search(query: str, limit: int = 10) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        docs, scores = retriever.retrieve(tokens, k=min(limit, len(names)), show_progress=False, n_threads=1)
        return [names[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    return search


def toolscout_system(catalog: Catalog, mode: SearchMode) -> Search:
    """toolscout's index, built exactly as `toolscout search/eval --mode MODE` builds it."""
    index = build_for_mode(catalog, mode)

    def search(query: str, limit: int = 10) -> list[str]:
        return [hit.name for hit in index.search(query, limit=limit, mode=mode).hits]

    return search


def tool_search_system(catalog: Catalog) -> Search:
    """What the model gets: `tool_search` through a session of `ToolScout(catalog)` with default settings.

    The embeddings are awaited before the first query (a live host answers lexically until then).
    """
    # BFCL has a function named tool_search, a bridge tool's name: the model sees it as tool_search_2
    # (ToolScout.renamed), and hits are scored under the catalog's own names.
    scout = ToolScout(catalog)
    if not scout.wait_for_embeddings(3600):
        raise RuntimeError("embedding the catalog did not finish")
    session = scout.session("bench")

    def search(query: str, limit: int = 10) -> list[str]:
        outcome = session.dispatch_sync("tool_search", {"query": query, "limit": limit})
        content = outcome.content
        assert isinstance(content, dict), outcome
        return [scout.renamed.get(str(tool["name"]), str(tool["name"])) for tool in content["tools"]]

    return search


def dense_system(catalog: Catalog) -> Search:
    """Plain all-MiniLM-L6-v2 cosine ranking (no lexical part), through toolscout's embedding layer."""
    from toolscout.search.embeddings._dense import DenseRanker
    from toolscout.search.embeddings._local import SentenceTransformerEmbedder

    ranker = DenseRanker(catalog, SentenceTransformerEmbedder())

    def search(query: str, limit: int = 10) -> list[str]:
        return [name for name, _ in ranker.rank(query, limit=limit)]

    return search


IN_PROCESS: dict[str, Callable[[Catalog], Search]] = {
    "rank_bm25 (name+desc)": rank_bm25_system,
    "bm25s (name+desc)": bm25s_system,
    "MiniLM dense": dense_system,
    "toolscout lexical": lambda catalog: toolscout_system(catalog, "lexical"),
    "toolscout hybrid": lambda catalog: toolscout_system(catalog, "hybrid"),
    "toolscout tool_search (defaults)": tool_search_system,
}


def run_in_process(name: str, catalog: Catalog, queries: Sequence[str], *, limit: int) -> Run:
    started = time.perf_counter()
    search = IN_PROCESS[name](catalog)
    build_s = time.perf_counter() - started
    search(queries[0], limit)  # warm-up, so first-call costs (lazy imports) do not land on one query
    rankings: list[list[str]] = []
    latencies: list[float] = []
    for query in queries:
        started = time.perf_counter()
        rankings.append(search(query, limit))
        latencies.append((time.perf_counter() - started) * 1000)
    return Run(system=name, rankings=rankings, latencies_ms=latencies, build_s=build_s)


def run_peer(system: str, catalog: Catalog, queries: Sequence[str], *, limit: int) -> Run:
    if not BENCH_PYTHON.exists():
        raise SystemExit(f"{BENCH_PYTHON} is missing: run `bash bench/setup.sh` first")
    tools = [{"name": tool.name, "description": tool.description, "parameters": tool.parameters} for tool in catalog]
    with tempfile.TemporaryDirectory() as tmp:
        payload = Path(tmp) / "input.json"
        payload.write_text(json.dumps({"tools": tools, "queries": list(queries), "limit": limit}), encoding="utf-8")
        worker = Path(__file__).with_name("peers_worker.py")
        out = subprocess.run(
            [str(BENCH_PYTHON), str(worker), system, str(payload)], check=True, capture_output=True, text=True
        ).stdout
    data = json.loads(out)
    return Run(
        system=system,
        rankings=data["rankings"],
        latencies_ms=data["latencies_ms"],
        build_s=data["build_s"],
        note=f"v{data['version']}",
    )
