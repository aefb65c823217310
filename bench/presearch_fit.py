"""Fit pre-search's offer decision: the chance that the right tool is among the first k hits (k = 1 to 5).

Fitted ONLY on BFCL's tuning requests (against the pooled BFCL catalog) and the tooldata dev split (each
request against its own source's tools, and against the next source's, which hold no right tool), the sets
``bench/calibrate.py fit`` uses, with the same seeded samples. Each request is searched as pre-search
searches it (the session's ``tool_search``, hybrid, one hit deeper than the largest offer); per k, its
`toolscout._presearch.offer_features` and a label (a gold tool among the first k hits) feed one logistic
regression. The report compares, on these sets, the new rule (the smallest k whose chance reaches the
setting) with the old one (at most 3 hits whose own confidence reaches it), and names the lowest setting
whose wrong-only share (tools offered, none right) is at most 8 % on BFCL tuning and the tooldata dev
requests with a right tool (``--wilson``: its one-sided 95 % Wilson upper bound; the default setting,
``presearch.min_confidence`` with ``presearch.max_tools``, is chosen so: ``results/presearch_margin.md``). BFCL live,
the sample requests and the everyday probe are never read here (``bench/presearch.py`` measures them with
the model fixed).

    .venv/bin/python bench/presearch_fit.py            # fit and report -> results/presearch_fit.md
    .venv/bin/python bench/presearch_fit.py --write    # ... and write src/toolscout/presearch.json
    .venv/bin/python bench/presearch_fit.py --reuse    # refit from the searches recorded by the last run
    .venv/bin/python bench/presearch_fit.py --reuse --max-tools 5 --out /tmp/fit5.md  # offers of up to 5
    .venv/bin/python bench/presearch_fit.py --reuse --settings 0.8 0.81 0.82 --out /tmp/fit.md  # another grid
    .venv/bin/python bench/presearch_fit.py --reuse --wilson --out /tmp/fit.md  # the bar on the share's upper bound
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from statistics import NormalDist

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).parent))

from bfcl import TUNING_CATEGORIES, load_bfcl
from calibrate import tooldata

from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout._presearch import OFFER_DEPTH, OFFER_FEATURES, OFFER_FILE, offer_features
from toolscout.dispatch import BridgeAnswer, SearchAnswer
from toolscout.search import SearchMode

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
OUT_FILE = ROOT / "src" / "toolscout" / OFFER_FILE
RECORDED = Path("/tmp") / "toolscout_presearch_fit.json"
SETTINGS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
OLD_MAX_TOOLS = 3
MAX_TOOLS = 3
"""The new rule's largest offer unless ``--max-tools`` says otherwise (that of ``results/presearch_fit.md``)."""
WRONG_ONLY_BAR = 0.08
WILSON_Z = NormalDist().inv_cdf(0.95)
"""``--wilson``: the one-sided 95 % bound's normal quantile."""
MODES: tuple[SearchMode, ...] = ("hybrid", "lexical")
"""One fit per mode: their confidences come from different calibrations."""
CHOOSING_SETS = ("BFCL tuning, hybrid", "tooldata dev, own source, hybrid")
"""The sets the default setting is chosen on: requests with a right tool, the default search (hybrid)."""

Hit = tuple[float, str, str, bool]
"""One search hit: its confidence, its tool's name and description, whether it is a gold tool."""
Record = tuple[str, list[Hit]]
"""One request and its hits, best first."""


def searched(
    mode: SearchMode, catalog: Catalog, requests: Sequence[tuple[str, frozenset[str]]], canonical: Callable[[str], str]
) -> list[Record]:
    """Each request's hits as pre-search gets them (``tool_search`` in `mode`, `OFFER_DEPTH` + 1 hits)."""
    scout = ToolScout(catalog, settings=ScoutSettings(mode="on", search_mode=mode))
    if mode == "hybrid" and (not scout.wait_for_embeddings(3600) or scout.search_status().mode != "hybrid"):
        raise RuntimeError(f"tool_search is not hybrid: {scout.search_status()}")
    search = scout.settings.bridge_names.search
    records: list[Record] = []
    for number, (query, gold) in enumerate(requests):
        resolution = scout.session(f"fit-{number}").resolve(search, {"query": query, "limit": OFFER_DEPTH + 1})
        hits: list[Hit] = []
        if isinstance(resolution, BridgeAnswer) and isinstance(resolution.answer, SearchAnswer):
            for found in resolution.answer.tools:
                if found.confidence is None:
                    continue
                name = scout.renamed.get(found.name, found.name)
                tool = scout.catalog[found.name]
                hits.append((found.confidence, tool.name, tool.description, canonical(name) in gold))
        records.append((query, hits))
    scout.close()
    return records


def collect(data: Path) -> dict[str, list[Record]]:
    """Search every fitting set once per mode (BFCL tuning, tooldata dev own and next source; `data`: tooldata)."""
    own, other = tooldata(data, 40, 150)
    tuning = load_bfcl(TUNING_CATEGORIES)
    sets: dict[str, list[Record]] = {}
    for mode in MODES:
        sets[f"BFCL tuning, {mode}"] = searched(
            mode,
            tuning.catalog,
            [(q.query, frozenset(q.gold)) for q in tuning.queries],
            lambda name: tuning.original_name.get(name, name),
        )
        for label, cases in (("tooldata dev, own source", own), ("tooldata dev, next source", other)):
            by_catalog: dict[int, tuple[Catalog, list[tuple[str, frozenset[str]]]]] = {}
            for case in cases:
                by_catalog.setdefault(id(case.catalog), (case.catalog, []))[1].append((case.query, case.gold))
            sets[f"{label}, {mode}"] = [
                record for catalog, requests in by_catalog.values() for record in searched(mode, catalog, requests, str)
            ]
        print(mode, {name: len(records) for name, records in sets.items()}, flush=True)
    return sets


def design(records: Sequence[Record]) -> tuple[np.ndarray, np.ndarray]:
    """Per request and k: the features (shape requests x k x features) and the labels (requests x k)."""
    features = np.array([offer_features(query, [(c, n, d) for c, n, d, _ in hits]) for query, hits in records])
    labels = np.array([[any(g for *_, g in hits[:k]) for k in range(1, OFFER_DEPTH + 1)] for _, hits in records])
    return features.reshape(len(records), OFFER_DEPTH, len(OFFER_FEATURES)), labels.astype(float)


def fit(sets: dict[str, list[Record]], mode: SearchMode) -> list[list[float]]:
    """One logistic regression per k over every fitting request of `mode` (each request weighs the same)."""
    chosen = [records for name, records in sets.items() if name.endswith(f", {mode}")]
    features, labels = zip(*(design(records) for records in chosen), strict=True)
    x, y = np.concatenate(features), np.concatenate(labels)
    weights = []
    for k in range(OFFER_DEPTH):
        model = LogisticRegression(C=1.0, max_iter=5000, random_state=0).fit(x[:, k, :], y[:, k])
        weights.append([round(float(model.intercept_[0]), 4), *(round(float(w), 4) for w in model.coef_[0])])
    return weights


def chances(weights: list[list[float]], features: np.ndarray) -> np.ndarray:
    w = np.array(weights)
    z = w[:, 0][None, :] + np.einsum("rkf,kf->rk", features, w[:, 1:])
    return 1.0 / (1.0 + np.exp(-np.clip(z, -60, 60)))


def wilson_upper(hits: int, count: int) -> float:
    """The one-sided 95 % Wilson upper bound of the share `hits` / `count`."""
    if not count:
        return 1.0
    share, z2 = hits / count, WILSON_Z**2
    spread = WILSON_Z * math.sqrt(share * (1 - share) / count + z2 / (4 * count**2))
    return (share + z2 / (2 * count) + spread) / (1 + z2 / count)


def rules(
    weights: list[list[float]], records: Sequence[Record], setting: float, max_tools: int = MAX_TOOLS
) -> dict[str, dict[str, float]]:
    """The old and new rule's offered and wrong-only shares on `records` at `setting` (token budget aside).

    The old rule offers at most `OLD_MAX_TOOLS` hits, the new one at most `max_tools` (up to `OFFER_DEPTH`).
    """
    features, labels = design(records)
    chance = chances(weights, features)
    rows = {}
    for rule in ("old", "new"):
        offered = wrong = 0
        sizes = []
        for index, (_, hits) in enumerate(records):
            if rule == "old":
                size = sum(1 for c, *_ in hits[:OLD_MAX_TOOLS] if c >= setting)
            else:
                most = min(max_tools, len(hits))
                size = next((k for k in range(1, most + 1) if chance[index, k - 1] >= setting), 0)
            right = bool(size) and bool(labels[index, size - 1])
            offered += right
            wrong += bool(size) and not right
            sizes.append(size)
        count = max(len(records), 1)
        rows[rule] = {
            "offered": round(offered / count, 3),
            "wrong_only": round(wrong / count, 3),
            "tools": round(float(np.mean([s for s in sizes if s])) if any(sizes) else 0.0, 2),
            "wrong_only_upper": wilson_upper(wrong, len(records)),
        }
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write src/toolscout/{OFFER_FILE}")
    parser.add_argument("--reuse", action="store_true", help="refit from --recorded (the last run's searches)")
    parser.add_argument("--recorded", type=Path, default=RECORDED, help="where the searches are recorded")
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent / "shared" / "tooldata")
    parser.add_argument(
        "--max-tools",
        type=int,
        default=MAX_TOOLS,
        choices=range(1, OFFER_DEPTH + 1),
        help="the new rule's largest offer",
    )
    parser.add_argument("--settings", type=float, nargs="+", default=SETTINGS, help="the settings measured")
    parser.add_argument(
        "--wilson",
        action="store_true",
        help="choose by the wrong-only share's one-sided 95 %% Wilson upper bound (and report it)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS / "presearch_fit.md", help="the report")
    args = parser.parse_args()
    if args.reuse:
        sets = {
            name: [(q, [tuple(h) for h in hits]) for q, hits in rows]
            for name, rows in json.loads(args.recorded.read_text()).items()
        }
    else:
        sets = collect(args.tooldata)
        args.recorded.write_text(json.dumps(sets), encoding="utf-8")
    weights = {mode: fit(sets, mode) for mode in MODES}
    table = {
        name: {f"{s:.2f}": rules(weights[name.rsplit(", ", 1)[1]], records, s, args.max_tools) for s in args.settings}
        for name, records in sets.items()
    }
    judged = "wrong_only_upper" if args.wilson else "wrong_only"
    bounded = "'s one-sided 95 % Wilson upper bound" if args.wilson else ""
    passing = [
        s
        for s in args.settings
        if all(table[name][f"{s:.2f}"]["new"][judged] <= WRONG_ONLY_BAR for name in CHOOSING_SETS)
    ]
    lowest = min(passing) if passing else max(args.settings)
    lines = [
        "# Pre-search's offer decision, fitted",
        "",
        "`bench/presearch_fit.py` (fitted and measured on the same sets: BFCL tuning and the tooldata dev split, "
        "one fit per search mode; nothing held out is read). old: at most 3 hits whose own confidence reaches "
        f"the setting; new: the smallest k (at most {args.max_tools}) whose set-level chance reaches it. offered: a "
        "gold tool offered; wrong-only: tools offered, none gold; tools: mean tools per offer. The token budget is "
        "left aside here.",
        "",
        f"Lowest passing setting: {lowest:.2f} (the lowest whose new-rule wrong-only share"
        f"{bounded} is <= {WRONG_ONLY_BAR:.0%} on "
        f"{' and '.join(CHOOSING_SETS)}).",
        "",
        "Weights per k (intercept, " + ", ".join(OFFER_FEATURES) + "):",
        "",
        *(f"- {mode}, k={k + 1}: {row}" for mode, rows in weights.items() for k, row in enumerate(rows)),
        "",
    ]
    for name, rows in table.items():
        lines += [f"## {name} ({len(sets[name])} requests)", ""]
        upper = " new wrong-only upper |" if args.wilson else ""
        lines += [f"| setting | old offered | old wrong-only | new offered | new wrong-only | new tools |{upper}"]
        lines += ["|---|---|---|---|---|---|" + ("---|" if args.wilson else "")]
        for setting, row in rows.items():
            old, new = row["old"], row["new"]
            lines.append(
                f"| {setting} | {old['offered']:.3f} | {old['wrong_only']:.3f} | {new['offered']:.3f} | "
                f"{new['wrong_only']:.3f} | {new['tools']:.2f} |"
                + (f" {new['wrong_only_upper']:.4f} |" if args.wilson else "")
            )
        lines.append("")
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    if args.write:
        fitted = {
            "command": "bench/presearch_fit.py --write",
            "features": list(OFFER_FEATURES),
            **weights,
        }
        OUT_FILE.write_text(json.dumps(fitted, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
