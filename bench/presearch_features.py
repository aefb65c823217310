"""Pre-search's offer model with more features, checked across the tuning sets (``results/presearch_features.md``).

Reads the searches ``bench/presearch_fit.py`` recorded (BFCL tuning, tooldata dev; nothing held out) and
compares two offer models, each one logistic regression per k: today's (`toolscout._presearch.OFFER_FEATURES`)
and today's plus `EXTRA` (`extra_features`). Check (a): fit on BFCL tuning, evaluate on tooldata dev's own-source
requests, and the reverse; per model and direction, the highest offered share over every (N, setting) whose
wrong-only share's one-sided 95 % Wilson upper bound is <= 8 % (token budget aside).

    .venv/bin/python bench/presearch_features.py --recorded /tmp/offer3_fit_records.json --out /tmp/features.md
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).parent))

from presearch_fit import RECORDED, WRONG_ONLY_BAR, Record, wilson_upper

from toolscout._presearch import OFFER_DEPTH, OFFER_FEATURES, _words, offer_features

EXTRA = ("length", "spread", "overlap", "uncovered", "first_logit_x_coverage")
"""The candidate features, in order (``results/presearch_features.md``)."""
TODAY = 12
"""Today's features: the first twelve of `offer_features`' rows."""
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
TODAY_C = 1.0
GRID = tuple(round(x / 100, 2) for x in range(20, 96))
MAX_TOOLS = (3, 4, 5)
_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _name_stem(name: str) -> str:
    words = [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", name))]
    return words[0][:5] if words else ""


def extra_features(query: str, hits: Sequence[tuple[float, str, str]]) -> list[list[float]]:
    """Per k = 1..`OFFER_DEPTH`: `EXTRA`'s values (today's `offer_features` row is read for the interaction)."""
    base = offer_features(query, hits)
    words = len(query.split())
    length = min(math.log1p(words) / math.log(64), 1.0)
    asked = _words(query, stop=True)
    texts = [_words(f"{name} {description}") for _, name, description in hits]
    every = set().union(*texts) if texts else set()
    uncovered = len(asked - every) / len(asked) if asked else 0.0
    stems = [_name_stem(name) for _, name, _ in hits[:OFFER_DEPTH]]
    rows = []
    for k in range(1, OFFER_DEPTH + 1):
        first_k = stems[:k]
        spread = len(set(first_k)) / len(first_k) if first_k else 0.0
        pairs = list(combinations(texts[:k], 2))
        overlap = float(np.mean([len(a & b) / len(a | b) if a | b else 0.0 for a, b in pairs])) if pairs else 0.0
        row = base[k - 1]
        rows.append([length, spread, overlap, uncovered, row[OFFER_FEATURES.index("first_logit")] * row[4]])
    return rows


def design(records: Sequence[Record], *, extended: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per request and k: the features (requests x k x features) and the labels (requests x k)."""
    rows = []
    for query, hits in records:
        plain = [(c, n, d) for c, n, d, _ in hits]
        base = [row[:TODAY] for row in offer_features(query, plain)]
        if extended:
            base = [a + b for a, b in zip(base, extra_features(query, plain), strict=True)]
        rows.append(base)
    labels = [[any(g for *_, g in hits[:k]) for k in range(1, OFFER_DEPTH + 1)] for _, hits in records]
    return np.array(rows, dtype=float), np.array(labels, dtype=float)


def fit(x: np.ndarray, y: np.ndarray, c: float) -> list[LogisticRegression]:
    return [LogisticRegression(C=c, max_iter=5000, random_state=0).fit(x[:, k, :], y[:, k]) for k in range(OFFER_DEPTH)]


def chances(models: list[LogisticRegression], x: np.ndarray) -> np.ndarray:
    return np.stack([m.predict_proba(x[:, k, :])[:, 1] for k, m in enumerate(models)], axis=1)


def log_loss(models: list[LogisticRegression], x: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(chances(models, x), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def offers(chance: np.ndarray, y: np.ndarray, hits: list[int], setting: float, max_tools: int) -> dict[str, float]:
    """The offered and wrong-only shares (and the wrong-only bound) of the rule at (`max_tools`, `setting`)."""
    offered = wrong = 0
    for index, count in enumerate(hits):
        most = min(max_tools, count)
        size = next((k for k in range(1, most + 1) if chance[index, k - 1] >= setting), 0)
        right = bool(size) and bool(y[index, size - 1])
        offered += right
        wrong += bool(size) and not right
    n = len(hits)
    return {"offered": offered / n, "wrong_only": wrong / n, "upper": wilson_upper(wrong, n), "wrong": wrong}


def best(chance: np.ndarray, y: np.ndarray, hits: list[int]) -> tuple[float, int, float, dict[str, float]]:
    """The highest offered share over (N, setting) whose wrong-only bound is within the bar."""
    top: tuple[float, int, float, dict[str, float]] = (0.0, 0, 0.0, {})
    for n in MAX_TOOLS:
        for s in GRID:
            row = offers(chance, y, hits, s, n)
            if row["upper"] <= WRONG_ONLY_BAR and row["offered"] > top[0]:
                top = (row["offered"], n, s, row)
    return top


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recorded", type=Path, default=RECORDED)
    parser.add_argument("--out", type=Path, default=Path("/tmp/presearch_features.md"))
    args = parser.parse_args()
    sets = {
        name: [(q, [tuple(h) for h in hits]) for q, hits in rows]
        for name, rows in json.loads(args.recorded.read_text()).items()
    }
    bfcl = sets["BFCL tuning, hybrid"]
    own = sets["tooldata dev, own source, hybrid"]
    tooldata_fit = own + sets["tooldata dev, next source, hybrid"]
    lines = ["# Check (a): fit on one tuning set, evaluate on the other (hybrid)", ""]
    designs = {}
    for extended in (False, True):
        designs[extended] = {
            "bfcl": design(bfcl, extended=extended),
            "own": design(own, extended=extended),
            "tooldata": design(tooldata_fit, extended=extended),
        }
    # C by cross-set log-loss (new features only)
    d = designs[True]
    losses = {}
    for c in C_GRID:
        one = log_loss(fit(*d["bfcl"], c), *d["tooldata"])
        two = log_loss(fit(*d["tooldata"], c), *d["bfcl"])
        losses[c] = (one + two) / 2
        lines.append(f"- C={c}: log-loss BFCL->tooldata {one:.4f}, tooldata->BFCL {two:.4f}, mean {losses[c]:.4f}")
    chosen_c = min(losses, key=lambda c: losses[c])
    lines += ["", f"C chosen: {chosen_c}", ""]
    lines += [
        "| direction | model | best offered | N | setting | wrong-only | upper |",
        "|---|---|---|---|---|---|---|",
    ]
    verdict = []
    for label, train, test, records in (
        ("BFCL tuning -> tooldata dev own", "bfcl", "own", own),
        ("tooldata dev -> BFCL tuning", "tooldata", "bfcl", bfcl),
    ):
        hits = [len(h) for _, h in records]
        figures = {}
        for extended, c in ((False, TODAY_C), (True, chosen_c)):
            models = fit(*designs[extended][train], c)
            x, y = designs[extended][test]
            offered, n, s, row = best(chances(models, x), y, hits)
            figures[extended] = offered
            name = "new" if extended else "today"
            lines.append(
                f"| {label} | {name} (C={c}) | {offered:.3f} | {n} | {s:.2f} | {row.get('wrong_only', 0):.3f} | "
                f"{row.get('upper', 1):.4f} |"
            )
        verdict.append(figures[True] > figures[False])
    lines += ["", f"(a) {'passes' if all(verdict) else 'fails'}: new > today in each direction: {verdict}", ""]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
