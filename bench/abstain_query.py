"""A query-level abstention signal: does a whole answer say "no tool here does this"?

    .venv/bin/python bench/abstain_query.py record [--per-source 40] [--most 400]   # -> CACHE/*.json
    .venv/bin/python bench/abstain_query.py evaluate --target 0.0025               # -> results/abstain_query.md

``record`` runs every request through ``tool_search``'s engine in hybrid mode (the packaged model), once with the
shipped calibration (is the answer abstained today?) and once recording each hit's `HitEvidence`, and keeps
features of the whole answer: the top hit's evidence, the second hit's, the number of hits, the catalog's size,
and how many of the request's content words the top hit's own text (name, description, parameter names) holds.

Training sets (allowed data only): the tooldata dev requests against their own source's tools ("relevant"), against
the same catalog without the gold tools (near misses: the shape of BFCL irrelevance, large catalog), against a
catalog of the 1-3 nearest non-gold tools (near misses, small catalog) and against the gold tools plus those
near misses ("relevant", small catalog); BFCL tuning against the pooled catalog and 1-10 tool catalogs with and
without the gold tool.

Measured sets (never fitted on): BFCL irrelevance and live_irrelevance (each against its own functions), the
no-tool probe (sample catalog), BFCL tuning and live, the sample requests, the everyday probe, the multilingual
probe.

``evaluate`` fits each candidate signal on the training sets (logistic regression and a small gradient-boosted
model, scikit-learn), picks the veto threshold that empties at most 0.5 % of each training relevant set beyond
today's abstention, and reports, per signal: abstained on the three no-tool sets, emptied on every relevant set.
The rule measured is "abstain today OR the signal vetoes". A right answer: a gold tool among the five hits
(abstention off).

Findings (results/abstain_query.md, results/calibration_near_miss.md): no signal chosen on the allowed data alone
reaches both bars (no-tool probe >= 25 %, BFCL irrelevance >= 40 %) while emptying at most 1 % of the right answers
of every set. The nearest is a near miss (English request, low top cosine, a best hit sharing none of the request's
content words): wired into the engine (commit a054cac, reverted) it abstains on 28.2 % / 42.1 % / 53.2 % of the
no-tool probe / BFCL irrelevance / live_irrelevance with no BFCL right answer emptied, but it empties 1 of the
sample requests' 80 right answers ("swap the old API URL in app.config for the new one", gold second). A rule chosen
blind by a pre-registered procedure on re-recorded training sets (gold anywhere in the hits) empties 5 % of the sample
requests: ``abstain_rule.py``, results/abstain_rule.md. A second one on the hits' evidence alone, with short
paraphrase-like tooldata and SGD requests as relevant proxies (``proxy_sets``), reaches 40.0 % of BFCL irrelevance with
no BFCL or sample right answer emptied but only 17.6 % of the no-tool probe: ``abstain_rule2.py``,
results/abstain_rule2.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import calibrate
from bfcl import TUNING_CATEGORIES
from calibrate import LIMIT, LIVE_CATEGORIES, RECORDER, Case, Engine, Memo

from toolscout import Catalog, ScoutSettings, ToolSpec
from toolscout.search.embeddings import EmbeddingSettings
from toolscout.search.embeddings._internal import shared_embedder

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
CACHE = Path(os.environ.get("ABSTAIN_CACHE", "/tmp/abstain_query"))
"""Where `record` keeps the features (outside the repository)."""
TRAIN_SETS = (
    "train: tooldata own source",
    "train: tooldata without gold",
    "train: tooldata near misses",
    "train: tooldata gold + near misses",
    "train: BFCL tuning pooled",
    "train: BFCL tuning 1-10 with gold",
    "train: BFCL tuning 1-10 without gold",
    "train: tooldata short paraphrases",
    "train: SGD short paraphrases",
)
IRRELEVANT_SETS = ("BFCL irrelevance", "BFCL live_irrelevance (held out)", "no-tool probe")
RELEVANT_SETS = (
    "BFCL tuning",
    "BFCL live (held out)",
    "sample requests",
    "everyday probe",
    "multilingual probe",
)
STOP = set(
    "a an the to of in on for and or is it me my i you your we our be can could would please what whats which who how "
    "with from at by this that these those are was do does did get give show tell find some any all into about as "
    "want need like there here up out so if then than will just also it's i'm let let's make".split()
)


def _words(text: str) -> list[str]:
    split = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower()
    return [w for w in re.findall(r"\w+", split) if w not in STOP and not w.isdigit()]


def _stem(word: str) -> str:
    return word[:5]


def _tool_text(tool: ToolSpec) -> set[str]:
    params = tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
    names = " ".join(params) if isinstance(params, dict) else ""
    return {_stem(w) for w in _words(f"{tool.name} {tool.description or ''} {names}")}


_CATALOG_TEXT: dict[str, set[str]] = {}


def _catalog_text(catalog: Catalog) -> set[str]:
    """The stems of every tool's own text in `catalog` (cached per catalog)."""
    found = _CATALOG_TEXT.get(catalog.fingerprint)
    if found is None:
        found = set().union(*(_tool_text(tool) for tool in catalog.tools))
        _CATALOG_TEXT[catalog.fingerprint] = found
    return found


def _overlap(query_words: Sequence[str], tool_words: set[str]) -> float:
    if not query_words:
        return 0.0
    return sum(_stem(w) in tool_words for w in query_words) / len(query_words)


def features(case: Case, hits: list[tuple[str, object]], abstained: bool) -> dict[str, object]:
    """One answer's features (hits: name and `HitEvidence` or None, best first)."""
    tools = {tool.name: tool for tool in case.catalog.tools}
    words = list(dict.fromkeys(_words(case.query)))
    evs = [ev for _, ev in hits if ev is not None]
    row: dict[str, object] = {
        "query": case.query,
        "label": bool(case.gold),
        "hit1": bool(hits) and hits[0][0] in case.gold,
        "hit5": any(name in case.gold for name, _ in hits),
        "abstained": abstained,
        "n_hits": len(hits),
        "catalog": len(tools),
        "words": len(words),
    }
    for k, ev in enumerate(evs[:2]):
        for field in ("lexical", "cosine", "score", "gap", "top_cosine", "coverage"):
            value = getattr(ev, field)
            row[f"{field}{k + 1}"] = None if value is None else float(value)
    overlaps = [_overlap(words, _tool_text(tools[name])) for name, _ in hits if name in tools]
    row["overlap1"] = overlaps[0] if overlaps else 0.0
    row["overlap_max"] = max(overlaps, default=0.0)
    row["overlaps"] = overlaps
    row["gold_rank"] = next((k for k, (name, _) in enumerate(hits) if name in case.gold), None)
    row["lexicals"] = [float(ev.lexical) for ev in evs]  # type: ignore[attr-defined]
    row["evidenced"] = len(evs) == len(hits)
    row["cosines"] = [None if getattr(ev, "cosine", None) is None else float(ev.cosine) for ev in evs]  # type: ignore[attr-defined]
    row["catalog_overlap"] = _overlap(words, _catalog_text(case.catalog))
    first = words[0] if words else ""
    row["verb1"] = float(bool(hits) and hits[0][0] in tools and _stem(first) in _tool_text(tools[hits[0][0]]))
    cosines = [float(ev.cosine) for ev in evs if getattr(ev, "cosine", None) is not None]  # type: ignore[attr-defined]
    row["cos_mean"] = sum(cosines) / len(cosines) if cosines else None
    return row


def run(calibrated: Engine, recording: Engine, cases: Sequence[Case]) -> list[dict[str, object]]:
    rows = []
    for case in cases:
        answer = calibrated.index(case.catalog).search(case.query, limit=LIMIT, mode="hybrid")
        RECORDER.seen.clear()
        result = recording.index(case.catalog).search(case.query, limit=LIMIT, mode="hybrid")
        rows.append(features(case, RECORDER.evidence(result.hits), answer.abstained))
    return rows


# ---- sets -------------------------------------------------------------------------------------------------


def tooldata_sets(path: Path, per_source: int, tools: int, recording: Engine) -> dict[str, list[Case]]:
    relevant, _ = calibrate.tooldata(path, per_source, tools)
    rng = random.Random(5)
    without, near, gold_near = [], [], []
    for case in relevant:
        rest = Catalog([tool for tool in case.catalog.tools if tool.name not in case.gold])
        without.append(Case(case.query, rest, frozenset()))
        RECORDER.seen.clear()
        result = recording.index(rest).search(case.query, limit=LIMIT, mode="hybrid")
        by_name = {tool.name: tool for tool in rest.tools}
        nearest = [by_name[hit.name] for hit in result.hits if hit.name in by_name][: rng.randint(1, 3)]
        if nearest:
            near.append(Case(case.query, Catalog(nearest), frozenset()))
            gold = [tool for tool in case.catalog.tools if tool.name in case.gold]
            mixed = [*gold, *nearest[: rng.randint(0, len(nearest))]]
            rng.shuffle(mixed)
            gold_near.append(Case(case.query, Catalog(mixed), case.gold))
    return {
        "train: tooldata own source": relevant,
        "train: tooldata without gold": without,
        "train: tooldata near misses": near,
        "train: tooldata gold + near misses": gold_near,
    }


PROXY_WORDS = 8
"""A paraphrase-like request has at most this many words (split on white space)."""
PROXY_CHARS = 60
"""... and at most this many characters (requests in scripts without spaces)."""
PROXY_SHARE = 0.25
"""... and shares at most this share of its content words with each gold tool's own text (name, description)."""


def paraphrase_like(query: str, gold: Sequence[ToolSpec]) -> bool:
    """A short request that does not restate its tool's words (the shape of an agent's request to an MCP server)."""
    words = list(dict.fromkeys(_words(query)))
    if len(query.split()) > PROXY_WORDS or len(query) > PROXY_CHARS or not words:
        return False
    return all(_overlap(words, _tool_text(tool)) <= PROXY_SHARE for tool in gold)


def proxy_sets(path: Path, tools: int) -> dict[str, list[Case]]:
    """Relevant proxies of agent requests (abstain_rule2_procedure.md): paraphrase-like tooldata requests.

    ``tooldata short paraphrases``: the dev pairs of every source, at most 60 a source (seed 23), each against its
    source's catalog (the gold tools plus a seeded sample, `tools` in all). ``SGD short paraphrases``: the SGD pairs
    of both splits (the one source the shipped model never trained on), 200 sampled (seed 29), against all 88 SGD
    tools.
    """
    sys.path.insert(0, str(ROOT))
    from train._data import load_corpus

    corpus = load_corpus(path, exclude=())
    spec = {t.id: ToolSpec(name=t.name, description=t.description) for t in corpus.tools.values()}
    pools: dict[str, list[str]] = {}
    for tool in corpus.tools.values():
        pools.setdefault(tool.source, []).append(tool.id)

    def shaped(pairs: Sequence[object]) -> list[object]:
        return [p for p in pairs if paraphrase_like(p.query, [spec[t] for t in p.positives])]  # type: ignore[attr-defined]

    def case(pair: object, tool_ids: Sequence[str]) -> Case:
        names: dict[str, str] = {}
        for tool_id in tool_ids:
            name = spec[tool_id].name
            names[tool_id] = name if name not in names.values() else tool_id
        catalog = Catalog([ToolSpec(name=names[t], description=spec[t].description) for t in tool_ids])
        return Case(pair.query, catalog, frozenset(names[t] for t in pair.positives))  # type: ignore[attr-defined]

    rng = random.Random(23)
    dev: list[Case] = []
    by_source: dict[str, list[object]] = {}
    for pair in shaped(corpus.dev):
        by_source.setdefault(pair.source, []).append(pair)  # type: ignore[attr-defined]
    for source in sorted(by_source):
        picked = rng.sample(by_source[source], min(60, len(by_source[source])))
        needed = sorted({t for pair in picked for t in pair.positives})  # type: ignore[attr-defined]
        rest = [t for t in pools[corpus.catalog_source(picked[0])] if t not in needed]  # type: ignore[arg-type]
        tool_ids = needed + rng.sample(rest, max(0, min(len(rest), tools - len(needed))))
        dev += [case(pair, tool_ids) for pair in picked]
    sgd = shaped([p for p in (*corpus.train, *corpus.dev) if p.source == "sgd"])
    sgd_tools = sorted(pools["sgd"])
    return {
        "train: tooldata short paraphrases": dev,
        "train: SGD short paraphrases": [case(p, sgd_tools) for p in random.Random(29).sample(sgd, min(200, len(sgd)))],
    }


def everyday_cases() -> list[Case]:
    catalog = Catalog.from_file(DATA / "everyday_catalog.json")
    rows = [json.loads(line) for line in (DATA / "everyday_probe.jsonl").read_text(encoding="utf-8").splitlines()]
    return [Case(r["query"], catalog, frozenset(r["gold"])) for r in rows if line_ok(r)]


def line_ok(row: dict[str, object]) -> bool:
    return bool(row.get("gold"))


def record(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    CACHE.mkdir(exist_ok=True)
    embedder = Memo(shared_embedder(EmbeddingSettings()))
    calibrated = Engine(embedder, ScoutSettings())
    recording = Engine(embedder, ScoutSettings(search_calibrator="bench-record"))

    def sample(cases: list[Case]) -> list[Case]:
        return cases if len(cases) <= args.most else random.Random(11).sample(cases, args.most)

    sets: dict[str, list[Case]] = {}
    if "train" in args.what:
        sets.update(tooldata_sets(args.tooldata, args.per_source, args.dev_tools, recording))
        sets.update(proxy_sets(args.tooldata, args.dev_tools))
        small_rel, small_irr = calibrate.bfcl_small(args.small, seed=13)
        sets["train: BFCL tuning pooled"] = calibrate.bfcl_full(TUNING_CATEGORIES, args.most, seed=17)
        sets["train: BFCL tuning 1-10 with gold"] = small_rel
        sets["train: BFCL tuning 1-10 without gold"] = small_irr
    if "measure" in args.what:
        sets["BFCL irrelevance"] = sample(calibrate.bfcl_irrelevance("irrelevance"))
        sets["BFCL live_irrelevance (held out)"] = sample(calibrate.bfcl_irrelevance("live_irrelevance"))
        sets["no-tool probe"] = calibrate.no_tool_cases()
        sets["BFCL tuning"] = sample(calibrate.bfcl_full(TUNING_CATEGORIES))
        sets["BFCL live (held out)"] = sample(calibrate.bfcl_full(LIVE_CATEGORIES))
        sets["sample requests"] = calibrate.sample_cases()
        sets["everyday probe"] = everyday_cases()
        sets["multilingual probe"] = calibrate.multilingual_cases()
    for name, cases in sets.items():
        rows = run(calibrated, recording, cases)
        slug = re.sub(r"\W+", "_", name).strip("_")
        (CACHE / f"{slug}.json").write_text(json.dumps({"name": name, "rows": rows}), encoding="utf-8")
        print(f"{name}: {len(rows)} in {time.perf_counter() - started:.0f} s", flush=True)


# ---- evaluate ---------------------------------------------------------------------------------------------

EVIDENCE = ("score1", "gap1", "cosine1", "lexical1", "top_cosine1", "coverage1")
OVERLAP = ("overlap1", "overlap_max", "verb1")
SHAPE = ("cosine2", "cos_mean", "log_catalog", "n_hits", "words", "english", "ascii")
MODELS: dict[str, tuple[str, ...]] = {
    "top hit evidence": EVIDENCE,
    "evidence + overlap": EVIDENCE + OVERLAP,
    "evidence + overlap + shape": EVIDENCE + OVERLAP + SHAPE,
}
"""Learned signals: p(the answer holds a gold tool) from these features (logistic regression, small GBM)."""
RULES: dict[str, tuple[str, ...]] = {
    "top cosine low": ("top_cosine1",),
    "top cosine and coverage low": ("top_cosine1", "coverage1"),
    "top cosine low, top hit shares no word": ("top_cosine1", "overlap1"),
    "... and an English request (library detector)": ("top_cosine1", "overlap1", "+english=0.5"),
    "... and an English request (detector, no accented letter)": (
        "top_cosine1",
        "overlap1",
        "+english=0.5",
        "+ascii=0.5",
    ),
    "... the same, no hit of the five shares a word": ("top_cosine1", "overlap_max", "+english=0.5", "+ascii=0.5"),
    "the veto of commit a054cac (fixed thresholds)": (
        "top_cosine1=0.2453",
        "overlap1=0.2",
        "+english=0.5",
        "+ascii=0.5",
    ),
}
"""Threshold rules: veto when every feature is under its threshold (``+f``: over; ``f=v``: a fixed threshold v),
the thresholds chosen on the training sets only (a grid over each feature's quantiles). The English conditions
are fixed, not fitted; the no-accented-letter one was added after reading which multilingual-probe requests the
library-detector rule emptied (Spanish requests the detector reads as English), so that probe no longer measures it
blind."""
GRID = 21


def load() -> dict[str, list[dict[str, object]]]:
    out = {}
    for file in sorted(CACHE.glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        rows = data["rows"]
        for row in rows:
            row.update(derived(str(row["query"])))
        out[data["name"]] = rows
    return out


def derived(query: str) -> dict[str, float]:
    """Features of the request alone: its share of English words (the library's detector), and no accented letter."""
    from toolscout.search._language import word_languages

    found = word_languages(query)
    english = sum(code == "en" for code in found) / len(found) if found else 0.0
    letters = [c for c in query if c.isalpha()]
    return {"english": english, "ascii": float(all(c.isascii() for c in letters))}


def right(row: dict[str, object]) -> bool:
    """A relevant request whose answer (abstention off) holds a gold tool (`hit5`; older caches: the top hit)."""
    return bool(row["label"]) and bool(row.get("hit5", row["hit1"]))


def vector(row: dict[str, object], names: Sequence[str]) -> list[float]:
    out = []
    for name in names:
        value = math.log(float(row["catalog"])) if name == "log_catalog" else row.get(name)  # type: ignore[arg-type]
        out.append(-1.0 if value is None else float(value))  # type: ignore[arg-type]
    return out


def evaluate(args: argparse.Namespace) -> None:
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    sets = load()
    train = [name for name in TRAIN_SETS if name in sets]
    train_relevant = [n for n in train if any(r["label"] for r in sets[n])]
    train_irrelevant = [n for n in train if n not in train_relevant]
    live = {n: np.array([not r["abstained"] and bool(r["n_hits"]) for r in rows]) for n, rows in sets.items()}
    today = {n: np.array([bool(r["abstained"]) for r in rows]) for n, rows in sets.items()}
    is_right = {n: np.array([right(r) for r in rows]) for n, rows in sets.items()}

    def cells(vetoed: dict[str, np.ndarray]) -> list[str]:  # type: ignore[type-arg]
        out = [f"{(today[n] | vetoed[n]).mean():.1%}" for n in IRRELEVANT_SETS if n in sets]
        return out + [f"{(today[n] | vetoed[n])[is_right[n]].mean():.1%}" for n in RELEVANT_SETS if n in sets]

    def train_ok(vetoed: dict[str, np.ndarray]) -> bool:  # type: ignore[type-arg]
        return all(vetoed[n][is_right[n]].mean() <= args.target for n in train_relevant)

    header = ["signal", "model", "threshold"] + [f"abstained: {n}" for n in IRRELEVANT_SETS if n in sets]
    header += [f"right emptied: {n} (n={int(is_right[n].sum())})" for n in RELEVANT_SETS if n in sets]
    lines = [
        "Query-level abstention signals, hybrid search (`.venv/bin/python bench/abstain_query.py record`, then",
        '`evaluate`). Each signal vetoes an answer today\'s rule gives; the rule measured is "abstain today OR veto".',
        f"Thresholds are chosen on the training sets only (at most {args.target:.2%} of each training set's right",
        f"answers vetoed): {', '.join(train)}. Abstained: share of the requests no tool serves answered with nothing;",
        "right emptied: share of the right answers (abstention off, "
        + (
            "a gold tool among the five hits"
            if all("hit5" in r for rows in sets.values() for r in rows)
            else "the top hit is a gold tool"
        )
        + f") answered with nothing. Features: `{CACHE}`.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        "| today (shipped rule) | - | - | " + " | ".join(cells({n: live[n] & False for n in sets})) + " |",
    ]
    for label, names in MODELS.items():
        rows = [
            r for n in train for r in sets[n] if not r["abstained"] and r["n_hits"] and (right(r) or not r["label"])
        ]
        x, y = np.array([vector(r, names) for r in rows]), np.array([right(r) for r in rows])
        for model_name, model in (
            ("logistic", LogisticRegression(max_iter=3000)),
            ("gbm", HistGradientBoostingClassifier(max_iter=150, max_depth=3)),
        ):
            model.fit(x, y)
            p = {n: model.predict_proba(np.array([vector(r, names) for r in rows_]))[:, 1] for n, rows_ in sets.items()}
            limits = [np.sort(p[n][is_right[n] & live[n]]) for n in train_relevant]
            threshold = min(
                float(q[int(args.target * is_right[n].sum())]) for n, q in zip(train_relevant, limits, strict=True)
            )
            vetoed = {n: live[n] & (p[n] < threshold - 1e-9) for n in sets}
            lines.append(f"| {label} | {model_name} | {threshold:.3f} | " + " | ".join(cells(vetoed)) + " |")
            print(lines[-1], flush=True)
    for label, specs in RULES.items():
        names = [spec.split("=")[0] for spec in specs]
        columns = {n: [np.array([np.nan if r.get(f.lstrip("+")) is None else float(r[f.lstrip("+")]) for r in rows])
                       for f in names] for n, rows in sets.items()}  # fmt: skip
        grids = []
        for spec, f in zip(specs, names, strict=True):
            if "=" in spec:
                grids.append(np.array([float(spec.split("=")[1])]))
                continue
            values = np.concatenate([columns[n][names.index(f)] for n in train])
            grids.append(np.unique(np.quantile(values[~np.isnan(values)], np.linspace(0, 1, GRID))))

        def veto(th: Sequence[float], names: list[str] = names, columns: dict[str, list[np.ndarray]] = columns):  # type: ignore[type-arg]
            out = {}
            for n in sets:
                flags = live[n].copy()
                for f, column, t in zip(names, columns[n], th, strict=True):
                    flags &= ~np.isnan(column) & ((column > t) if f.startswith("+") else (column < t))
                out[n] = flags
            return out

        best: tuple[float, tuple[float, ...]] | None = None
        for th in itertools.product(*grids):
            vetoed = veto(th)
            if train_ok(vetoed) or all("=" in spec for spec in specs):  # fixed thresholds are reported as they are
                gained = sum(float(vetoed[n].mean()) for n in train_irrelevant)
                if best is None or gained > best[0]:
                    best = (gained, th)
        assert best is not None
        shown = " and ".join(
            f"{f.lstrip('+')}{'>' if f.startswith('+') else '<'}{t:.3f}" for f, t in zip(names, best[1], strict=True)
        )
        lines.append(f"| {label} | rule | {shown} | " + " | ".join(cells(veto(best[1]))) + " |")
        print(lines[-1], flush=True)
    out = ROOT / "bench" / "results" / "abstain_query.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--what", nargs="+", default=["train", "measure"], choices=("train", "measure"))
    rec.add_argument("--tooldata", type=Path, default=ROOT.parent.parent / "shared" / "tooldata")
    rec.add_argument("--per-source", type=int, default=40)
    rec.add_argument("--dev-tools", type=int, default=150)
    rec.add_argument("--small", type=int, default=60)
    rec.add_argument("--most", type=int, default=400)
    ev = sub.add_parser("evaluate")
    ev.add_argument("--target", type=float, default=0.005)
    args = parser.parse_args(argv)
    {"record": record, "evaluate": evaluate}[args.command](args)


if __name__ == "__main__":
    main(sys.argv[1:])
