"""Fit and measure the confidence of search hits, and the threshold under which a search abstains.

    .venv/bin/python bench/bfcl.py                    # once: the BFCL wheel in .bench-data/
    .venv/bin/python bench/calibrate.py fit           # -> src/toolscout/search/calibration.json,
                                                      #    results/calibration_fit.md
    .venv/bin/python bench/calibrate.py measure       # -> results/calibration.{md,json}

Rerun ``fit`` whenever the packaged embedding model changes (the fit is for one model; the file records
its id, and ``tests/search/test_confidence.py`` fails when it no longer matches), then ``measure``.

``fit`` (allowed data only: the tooldata dev split and BFCL's tuning categories, `bfcl.TUNING_CATEGORIES`):
every search runs through `ToolIndex`, the engine ``tool_search`` runs, lexical and hybrid (the packaged
model); each of the top hits gives its `HitEvidence` and a label (is it a gold tool). Sets: BFCL tuning
against the pooled BFCL catalog; BFCL tuning against seeded catalogs of 1-10 BFCL tools with the gold
tool ("relevant") and without any gold tool ("irrelevant"); the tooldata dev requests against their own
source's tools ("relevant") and against the next source's ("irrelevant"). A logistic regression per mode over
`FEATURES`, fitted on every top hit (label: is it a gold tool), gives the confidence; the threshold is the
largest one that empties at most `EMPTIED_TARGET` of the requests of each of `THRESHOLD_SETS` (the bar is 1 %;
the margin is for requests it never saw).

``measure`` (nothing here is fitted on): the share abstained on BFCL's irrelevance and live_irrelevance
requests (each against the functions it came with, none of which serves it) and on ``data/no_tool_probe.jsonl``
(requests no tool of the packaged sample catalog serves, written for this bench) against that catalog;
the share emptied and recall@5 with and without abstention on BFCL tuning and live (held out), the packaged
sample requests and the multilingual probe; and the terse-catalog case (a weather request, one forecast tool).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).parent))

import multilingual
from bfcl import TUNING_CATEGORIES, _lines, _schema, _user_text, _wheel, load_bfcl

from toolscout import Catalog, ScoutSettings, ToolSpec
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.search import SearchHit, SearchPipeline
from toolscout.search._confidence import CALIBRATION_FILE, HitEvidence, register_calibrator
from toolscout.search._internal import build_index
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._base import Embedder, Vectors
from toolscout.search.embeddings._internal import DenseRanker, EmbeddingCache, shared_embedder

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
OUT_FILE = ROOT / "src" / "toolscout" / "search" / CALIBRATION_FILE
NO_TOOL_PROBE = Path(__file__).parent / "data" / "no_tool_probe.jsonl"
EMPTIED_TARGET = 0.005
THRESHOLD_SETS = ("BFCL tuning, pooled catalog", "BFCL tuning, 1-10 tools with gold", "tooldata dev, own source")
"""The relevant sets the thresholds are chosen on: BFCL's tuning requests and the tooldata dev requests (short voice
commands in many languages, shell one-liners, API calls), so that requests unlike BFCL's are not emptied either."""
"""The most relevant requests of any fitting set the fitted threshold may empty (the bar is 1 %)."""
LIMIT = 5
SIZES = range(1, 11)
MODES = ("lexical", "hybrid")
LIVE_CATEGORIES = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
"""BFCL's held-out live categories (as `bench/tune_hybrid.py` scores them): measured, never fitted on."""


class Memo:
    """An embedder that embeds each text once per run (the bench builds many small catalogs of the same tools)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self._docs: dict[str, Vectors] = {}
        self._queries: dict[str, Vectors] = {}

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        missing = [t for t in dict.fromkeys(texts) if t not in self._docs]
        if missing:
            for text, row in zip(missing, self.inner.embed_documents(missing), strict=True):
                self._docs[text] = row
        return np.stack([self._docs[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        if text not in self._queries:
            self._queries[text] = self.inner.embed_query(text)
        return self._queries[text]


class Recorder:
    """A calibrator that records the evidence of every hit and never abstains.

    Its confidence numbers the calls downwards (0.999, 0.998, ...: falling down the list, as the pipeline keeps
    confidences), so a hit's confidence says which evidence is its own; a hit the request names has none and repeats
    the number of the hit above it.
    """

    def __init__(self) -> None:
        self.seen: list[HitEvidence] = []

    def confidence(self, evidence: HitEvidence) -> float:
        self.seen.append(evidence)
        return 1.0 - len(self.seen) / 1000

    def evidence(self, hits: Sequence[SearchHit]) -> list[tuple[str, HitEvidence | None]]:
        """Each hit's name and own evidence (None: the request names it)."""
        out: list[tuple[str, HitEvidence | None]] = []
        previous = None
        for hit in hits:
            own = hit.confidence is not None and hit.confidence != previous
            call = round((1.0 - hit.confidence) * 1000) if own and hit.confidence is not None else None
            out.append((hit.name, self.seen[call - 1] if call is not None and 0 < call <= len(self.seen) else None))
            previous = hit.confidence
        return out

    def threshold(self, *, dense: bool) -> float:
        return 0.0


RECORDER = Recorder()
register_calibrator("bench-record", lambda: RECORDER)


@dataclass
class Case:
    """One request against one catalog; `gold` empty for a request no tool of the catalog serves."""

    query: str
    catalog: Catalog
    gold: frozenset[str]
    original: dict[str, str] | None = None
    """BFCL: each catalog name's original function name (recall counts a gold function once, whichever copy)."""


@dataclass
class Searched:
    """One case's top hits in one mode: each hit's name and evidence (None: the request names the tool)."""

    case: Case
    hits: list[tuple[str, HitEvidence | None]] = field(default_factory=list)


class Engine:
    """Builds ``tool_search``'s engine (ToolIndex; hybrid with the packaged model) per catalog, once."""

    def __init__(self, embedder: Embedder, settings: ScoutSettings) -> None:
        self.embedder, self.settings = embedder, settings
        self._indexes: dict[str, object] = {}

    def index(self, catalog: Catalog):  # type: ignore[no-untyped-def]
        found = self._indexes.get(catalog.fingerprint)
        if found is None:
            dense = DenseRanker(catalog, self.embedder, cache=EmbeddingCache())  # reused by the next run
            engine = build_index(catalog, ranking=self.settings).with_dense(dense)
            found = SearchPipeline.from_settings(self.settings).around(engine, catalog)
            if len(self._indexes) > 64:
                self._indexes.clear()
            self._indexes[catalog.fingerprint] = found
        return found


def record(engine: Engine, cases: Iterable[Case], mode: str) -> list[Searched]:
    out = []
    for case in cases:
        RECORDER.seen.clear()
        result = engine.index(case.catalog).search(case.query, limit=LIMIT, mode=mode)
        out.append(Searched(case, RECORDER.evidence(result.hits)))
    return out


# ---- data -------------------------------------------------------------------------------------------------


def bfcl_full(categories: Sequence[str], limit: int | None = None, seed: int = 3) -> list[Case]:
    data = load_bfcl(categories)
    queries = list(data.queries)
    if limit is not None and len(queries) > limit:
        queries = random.Random(seed).sample(queries, limit)
    by_original: dict[str, set[str]] = {}
    for tool in data.catalog:
        by_original.setdefault(data.original_name.get(tool.name, tool.name), set()).add(tool.name)
    return [
        Case(q.query, data.catalog, frozenset(n for o in q.gold for n in by_original.get(o, {o})), data.original_name)
        for q in queries
    ]


def bfcl_small(count: int, seed: int = 7) -> tuple[list[Case], list[Case]]:
    """BFCL tuning requests against catalogs of 1-10 pooled tools, with and without the gold tool."""
    full = bfcl_full(TUNING_CATEGORIES)
    tools = list(full[0].catalog)
    rng = random.Random(seed)
    usable = [case for case in full if case.gold]
    relevant, irrelevant = [], []
    for case in rng.sample(usable, min(count, len(usable))):
        gold_tool = next(tool for tool in tools if tool.name in case.gold)
        others = [tool for tool in tools if tool.name not in case.gold]
        for size in SIZES:
            picked = rng.sample(others, size)
            relevant.append(Case(case.query, Catalog([gold_tool, *picked[: size - 1]]), case.gold))
            irrelevant.append(Case(case.query, Catalog(picked), frozenset()))
    return relevant, irrelevant


def tooldata(path: Path, per_source: int, tools: int) -> tuple[list[Case], list[Case]]:
    """The tooldata dev requests against their source's tools, and against the next source's."""
    sys.path.insert(0, str(ROOT))
    from train._data import load_corpus  # not train._select: it imports torch

    corpus = load_corpus(path)
    rng = random.Random(0)
    by_source: dict[str, list[object]] = {}
    for pair in corpus.dev:
        by_source.setdefault(pair.source, []).append(pair)
    pools: dict[str, list[str]] = {}
    for tool in corpus.tools.values():
        pools.setdefault(tool.source, []).append(tool.id)
    dev: dict[str, tuple[list[object], list[str]]] = {}
    for source in sorted(by_source):  # as train._select.dev_set: the positives plus a seeded sample
        picked = rng.sample(by_source[source], min(per_source, len(by_source[source])))
        needed = {t for pair in picked for t in pair.positives}  # type: ignore[attr-defined]
        rest = [t for t in pools[corpus.catalog_source(picked[0])] if t not in needed]  # type: ignore[arg-type]
        dev[source] = (picked, sorted(needed) + rng.sample(rest, max(0, min(len(rest), tools - len(needed)))))
    sets: dict[str, tuple[Catalog, list[tuple[str, frozenset[str]]]]] = {}
    for source, (pairs, tool_ids) in dev.items():
        names: dict[str, str] = {}
        for tool_id in tool_ids:
            name = corpus.tools[tool_id].name
            names[tool_id] = name if name not in names.values() else tool_id
        catalog = Catalog([ToolSpec(name=names[t], description=corpus.tools[t].description) for t in tool_ids])
        sets[source] = (catalog, [(p.query, frozenset(names[t] for t in p.positives)) for p in pairs])
    sources = sorted(sets)
    relevant, irrelevant = [], []
    for k, source in enumerate(sources):
        catalog, requests = sets[source]
        other = sets[sources[(k + 1) % len(sources)]][0]
        for query, gold in requests:
            relevant.append(Case(query, catalog, gold))
            irrelevant.append(Case(query, other, frozenset()))
    return relevant, irrelevant


def bfcl_irrelevance(category: str) -> list[Case]:
    """BFCL's irrelevance requests, each against the functions it came with (none of which serves it)."""
    with zipfile.ZipFile(_wheel(ROOT / ".bench-data")) as wheel:
        text = wheel.read(f"bfcl_eval/data/BFCL_v4_{category}.json").decode("utf-8")
    cases = []
    for record_ in _lines(text):
        turns = record_["question"]
        assert isinstance(turns, list)
        query = _user_text(turns[0] if turns and isinstance(turns[0], list) else turns)
        tools = {}
        for fn in record_.get("function", []):  # type: ignore[union-attr]
            name = str(fn["name"])
            params = _schema(fn.get("parameters") or {"type": "dict", "properties": {}})
            tools.setdefault(name, ToolSpec(name=name, description=str(fn.get("description") or ""), parameters=params))  # type: ignore[arg-type]
        if query and tools:
            cases.append(Case(query, Catalog(list(tools.values())), frozenset()))
    return cases


def sample_cases() -> list[Case]:
    catalog = Catalog.from_file(sample_catalog_path())
    rows = [json.loads(line) for line in sample_queries_path().read_text(encoding="utf-8").splitlines() if line]
    return [Case(r["query"], catalog, frozenset(r["gold"])) for r in rows if r["gold"]]


def no_tool_cases() -> list[Case]:
    catalog = Catalog.from_file(sample_catalog_path())
    rows = [json.loads(line) for line in NO_TOOL_PROBE.read_text(encoding="utf-8").splitlines() if line]
    return [Case(r["query"], catalog, frozenset()) for r in rows]


def multilingual_cases() -> list[Case]:
    catalog = Catalog(
        [*Catalog.from_file(multilingual.SAMPLE_CATALOG).tools, *Catalog.from_file(multilingual.ZH_CATALOG).tools]
    )
    rows = [json.loads(line) for line in multilingual.PROBE.read_text(encoding="utf-8").splitlines() if line]
    return [Case(r["query"], catalog, frozenset(r["gold"])) for r in rows if r["lang"] != "en"]


def terse_cases() -> list[Case]:
    catalog = Catalog(
        [
            ToolSpec(name="get_forecast", description="Get the forecast for a location."),
            ToolSpec(name="send_email", description="Send an email."),
            ToolSpec(name="create_event", description="Create a calendar event."),
            ToolSpec(name="list_files", description="List files in a directory."),
            ToolSpec(name="translate_text", description="Translate text."),
        ]
    )
    return [Case("will it rain in Oslo tomorrow", catalog, frozenset({"get_forecast"}))]


# ---- fit --------------------------------------------------------------------------------------------------

RECORDED = ("lexical", "cosine", "score", "gap", "top_cosine", "coverage")
"""What is recorded of each hit's evidence, in order."""
FEATURES = ("score", "gap", "top_cosine", "coverage")
"""What the calibrator reads: score and gap fall down a ranked list (their weights are kept non-negative, so
confidences fall too); the top similarity (hybrid only) and the word coverage are the same for every hit of a
search."""


def features(evidence: HitEvidence) -> list[float | None]:
    return [
        evidence.lexical,
        evidence.cosine,
        evidence.score,
        evidence.gap,
        evidence.top_cosine,
        evidence.coverage,
    ]


def fit_logistic(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], ridge: float = 1e-3, fixed_zero: tuple[int, ...] = ()
) -> npt.NDArray[np.float64]:
    """Logistic regression by Newton's method (x has an intercept column first; `fixed_zero` columns stay 0)."""
    x = x.copy()
    x[:, list(fixed_zero)] = 0.0
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -60, 60)))
        gradient = x.T @ (p - y) + ridge * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


Hit = tuple[float, list[float | None]]
"""One recorded hit: is it a gold tool (1.0/0.0), and its evidence (`RECORDED`; cosine None in lexical search)."""
Request = tuple[bool, list[Hit | None]]
"""One recorded search: whether a tool of its catalog serves it, and its hits (None: the request names the tool)."""
EVIDENCE = ROOT / ".bench-data" / "calibration_evidence.json"
KINDS = ("lexical", "hybrid")
"""The calibrator's two fits: evidence without an embedding similarity, and with one."""


def kind(values: Sequence[float | None]) -> str:
    return "lexical" if values[1] is None else "hybrid"


def confidence(fits: dict[str, dict[str, float]], values: Sequence[float | None]) -> float:
    weights = fits[kind(values)]
    z = weights["intercept"] + sum(weights[f] * (values[RECORDED.index(f)] or 0.0) for f in FEATURES)
    return float(1.0 / (1.0 + np.exp(-np.clip(z, -60, 60))))


def decision(fits: dict[str, dict[str, float]], hits: Sequence[Hit | None]) -> tuple[str, float] | None:
    """The kind of threshold a search is judged by and its best confidence, as `ToolIndex` does (None: no hit)."""
    if not hits:
        return None
    scored = [hit[1] for hit in hits if hit is not None]
    dense = any(values[1] is not None for values in scored)
    best = max([confidence(fits, values) for values in scored] + [1.0] * (len(hits) - len(scored)))
    return ("hybrid" if dense else "lexical"), best


def collect(args: argparse.Namespace) -> dict[str, object]:
    """Run every fitting set through the engine in both modes and keep each hit's evidence and label."""
    embedder = Memo(shared_embedder(EmbeddingSettings()))
    engine = Engine(embedder, ScoutSettings(search_calibrator="bench-record"))
    small_relevant, small_irrelevant = bfcl_small(args.small)
    dev_relevant, dev_irrelevant = tooldata(args.tooldata, args.per_source, args.dev_tools)
    sets = {
        "BFCL tuning, pooled catalog": bfcl_full(TUNING_CATEGORIES, args.full),
        "BFCL tuning, 1-10 tools with gold": small_relevant,
        "BFCL tuning, 1-10 tools without gold": small_irrelevant,
        "tooldata dev, own source": dev_relevant,
        "tooldata dev, next source": dev_irrelevant,
    }
    recorded: dict[str, object] = {"model": embedder.model_id}
    for mode in MODES:
        recorded[mode] = {
            name: [
                (
                    bool(s.case.gold),
                    [None if ev is None else (float(hit in s.case.gold), features(ev)) for hit, ev in s.hits],
                )
                for s in record(engine, cases, mode)
            ]
            for name, cases in sets.items()
        }
    EVIDENCE.write_text(json.dumps(recorded), encoding="utf-8")
    return recorded


def fit(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    recorded = json.loads(EVIDENCE.read_text(encoding="utf-8")) if args.reuse else collect(args)
    model = recorded["model"]
    runs: dict[str, dict[str, list[Request]]] = {mode: recorded[mode] for mode in MODES}
    # Fitted on every hit of every search (is it a right answer?), so that each hit's confidence estimates its own
    # chance, not the best hit's. Lexical evidence also comes from hybrid searches whose request the embedder
    # cannot read.
    hits = [hit for run in runs.values() for group in run.values() for _, found in group for hit in found if hit]
    fits: dict[str, dict[str, float]] = {}
    for k in KINDS:
        rows = [(label, values) for label, values in hits if kind(values) == k]
        x = np.array([[1.0, *(values[RECORDED.index(f)] or 0.0 for f in FEATURES)] for _, values in rows])
        y = np.array([label for label, _ in rows])
        lexical_only = (3,) if k == "lexical" else ()
        w = fit_logistic(x, y, fixed_zero=lexical_only)
        negative = tuple(1 + at for at, weight in enumerate(w[1:3]) if weight < 0)
        if negative:  # a negative score or gap weight would let a lower hit read more confident than a higher one
            w = fit_logistic(x, y, fixed_zero=(*negative, *lexical_only))
        fits[k] = {
            "intercept": round(float(w[0]), 4),
            **{f: round(float(v), 4) for f, v in zip(FEATURES, w[1:], strict=True)},
        }
    fitted: dict[str, object] = {"model": model, "command": "bench/calibrate.py fit"}
    for k in KINDS:
        # the largest threshold under which at most EMPTIED_TARGET of each threshold set's requests fall (requests
        # with no hit at all are empty whatever the threshold)
        candidates = []
        for run in runs.values():
            for name in THRESHOLD_SETS:
                decided = [d for d in (decision(fits, hits) for _, hits in run[name]) if d is not None]
                best = sorted(b for used, b in decided if used == k)
                allowed = int(EMPTIED_TARGET * len(run[name]))
                if len(best) > allowed:
                    candidates.append(best[allowed])
        fitted[k] = {**fits[k], "threshold": round(max(min(candidates) - 5e-5, 0.0), 4)}
    thresholds = {k: fitted[k]["threshold"] for k in KINDS}  # type: ignore[index]
    lines = [f"Calibration fit (`.venv/bin/python bench/calibrate.py fit`), model `{model}`:", ""]
    lines += [f"- {k}: {fitted[k]}" for k in KINDS] + [""]
    for mode, run in runs.items():
        lines += [f"**{mode} search**", "", "| set | requests | abstained | no hits at all |", "|---|---:|---:|---:|"]
        for name, group in run.items():
            decided = [decision(fits, hits) for _, hits in group]
            abstained = sum(d is not None and d[0] == "hybrid" and d[1] < thresholds["hybrid"] for d in decided) / len(
                group
            )
            lines.append(
                f"| {name} | {len(group)} | {abstained:.1%} | {sum(d is None for d in decided) / len(group):.1%} |"
            )
        lines.append("")
    OUT_FILE.write_text(json.dumps(fitted, indent=2) + "\n", encoding="utf-8")
    lines.append(f"Run time {time.perf_counter() - started:.0f} s.")
    (RESULTS / "calibration_fit.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


# ---- measure ----------------------------------------------------------------------------------------------


def measure(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    embedder = Memo(shared_embedder(EmbeddingSettings()))
    calibrated = Engine(embedder, ScoutSettings())
    uncalibrated = Engine(embedder, ScoutSettings(search_min_confidence=0.0))
    irrelevant = {
        "BFCL irrelevance (own functions)": bfcl_irrelevance("irrelevance"),
        "BFCL live_irrelevance (held out, own functions)": bfcl_irrelevance("live_irrelevance"),
        "no-tool probe (sample catalog)": no_tool_cases(),
    }
    relevant = {
        "BFCL tuning": bfcl_full(TUNING_CATEGORIES),
        "BFCL live (held out)": bfcl_full(LIVE_CATEGORIES),
        "sample requests": sample_cases(),
        "multilingual probe (8 languages)": multilingual_cases(),
        "terse catalog: will it rain in Oslo tomorrow": terse_cases(),
    }
    if args.most is not None:  # a seeded sample of each set
        irrelevant = {k: _sample(v, args.most) for k, v in irrelevant.items()}
        relevant = {k: _sample(v, args.most) for k, v in relevant.items()}
    report: dict[str, dict[str, object]] = {}
    for mode in args.modes:
        rows: dict[str, object] = {}
        for name, cases in irrelevant.items():
            answered = [calibrated.index(c.catalog).search(c.query, limit=LIMIT, mode=mode) for c in cases]
            rows[name] = {
                "n": len(cases),
                "abstained": round(sum(r.abstained for r in answered) / len(cases), 4),
                "no hits": round(sum(not r.hits for r in answered) / len(cases), 4),
                "median best confidence": _median_best(
                    [uncalibrated.index(c.catalog).search(c.query, limit=LIMIT, mode=mode) for c in cases]
                ),
            }
            print(mode, name, rows[name], flush=True)
        for name, cases in relevant.items():
            on = [calibrated.index(c.catalog).search(c.query, limit=LIMIT, mode=mode) for c in cases]
            off = [uncalibrated.index(c.catalog).search(c.query, limit=LIMIT, mode=mode) for c in cases]
            rows[name] = {
                "n": len(cases),
                "emptied": round(sum(r.abstained for r in on) / len(cases), 4),
                "no hits": round(sum(not r.hits for r in on) / len(cases), 4),
                "median best confidence": _median_best(off),
                "R@5 without abstention": _recall(off, cases),
                "R@5 with abstention": _recall(on, cases),
            }
            print(mode, name, rows[name], flush=True)
        report[mode] = rows
    report["run"] = {"seconds": round(time.perf_counter() - started), "model": embedder.model_id, "most": args.most}
    (RESULTS / "calibration.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (RESULTS / "calibration.md").write_text(_markdown(report), encoding="utf-8")
    print(_markdown(report))


def _median_best(results: Sequence[object]) -> float:
    """The median over searches with hits of the best hit's confidence (abstention off)."""
    best = [max(h.confidence or 0.0 for h in r.hits) for r in results if r.hits]  # type: ignore[attr-defined]
    return round(float(np.median(best)), 3) if best else 0.0


def _sample(cases: list[Case], most: int) -> list[Case]:
    return cases if len(cases) <= most else random.Random(11).sample(cases, most)


def _recall(results: Sequence[object], cases: Sequence[Case]) -> float:
    """Share of the gold tools found in the top 5, averaged over requests (BFCL's canonical names)."""
    total = 0.0
    for result, case in zip(results, cases, strict=True):
        original = case.original or {}
        names = {original.get(hit.name, hit.name) for hit in result.hits}  # type: ignore[attr-defined]
        gold = {original.get(name, name) for name in case.gold}
        total += len(names & gold) / len(gold) if gold else 0.0
    return round(total / len(cases), 4)


def _markdown(report: dict[str, dict[str, object]]) -> str:
    run = report["run"]
    command = "bench/calibrate.py measure" + (f" --most {run['most']}" if run["most"] else "")
    sampled = f" Each set is a seeded sample of at most {run['most']} requests." if run["most"] else ""
    lines = [
        f"Abstention of `tool_search`'s engine with the fitted calibration (`.venv/bin/python {command}`;",
        f"model `{run['model']}`, {run['seconds']} s). Nothing measured here was fitted on.{sampled}",
        "Emptied: a relevant request answered with no tools because the engine abstained; no hits at all also counts",
        "requests nothing matched. R@5: share of the gold tools in the five hits, without and with abstention.",
        "",
    ]
    for mode in MODES:
        if mode not in report:
            continue
        rows = report[mode]
        lines += [
            f"**{mode}**",
            "",
            "| requests no tool serves | n | abstained | no hits at all | median best confidence |",
            "|---|---:|---:|---:|---:|",
        ]
        for name, row in rows.items():
            if isinstance(row, dict) and "abstained" in row:
                lines.append(
                    f"| {name} | {row['n']} | {row['abstained']:.1%} | {row['no hits']:.1%} "
                    f"| {row['median best confidence']:.3f} |"
                )
        lines += [
            "",
            "| relevant requests | n | emptied by abstention | no hits at all | median best confidence "
            "| R@5 before | R@5 after |",
        ]
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for name, row in rows.items():
            if isinstance(row, dict) and "emptied" in row:
                lines.append(
                    f"| {name} | {row['n']} | {row['emptied']:.1%} | {row['no hits']:.1%} "
                    f"| {row['median best confidence']:.3f} | {row['R@5 without abstention']:.3f} "
                    f"| {row['R@5 with abstention']:.3f} |"
                )
        lines.append("")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    fitting = sub.add_parser("fit", help="fit the calibration and write calibration.json")
    fitting.add_argument("--tooldata", type=Path, default=ROOT.parent / "shared" / "tooldata")
    fitting.add_argument("--full", type=int, default=400, help="BFCL tuning requests against the pooled catalog")
    fitting.add_argument("--small", type=int, default=150, help="BFCL tuning requests for the 1-10 tool catalogs")
    fitting.add_argument("--per-source", type=int, default=40, help="tooldata dev requests per source")
    fitting.add_argument("--dev-tools", type=int, default=150, help="tools per tooldata source catalog")
    fitting.add_argument("--reuse", action="store_true", help="refit from the evidence the last fit recorded")
    measuring = sub.add_parser("measure", help="measure abstention and recall with the packaged calibration")
    measuring.add_argument("--modes", nargs="+", default=list(MODES), choices=MODES)
    measuring.add_argument("--most", type=int, help="at most this many requests per set (a seeded sample)")
    args = parser.parse_args(argv)
    {"fit": fit, "measure": measure}[args.command](args)


if __name__ == "__main__":
    main(sys.argv[1:])
