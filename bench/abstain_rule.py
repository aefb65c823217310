"""The near-miss abstention rule: chosen on the training sets alone, then measured once on the held-out sets.

    ABSTAIN_CACHE=/tmp/abstain_h/train   .venv/bin/python bench/abstain_query.py record --what train
    ABSTAIN_CACHE=/tmp/abstain_h/measure2 .venv/bin/python bench/abstain_query.py record --what measure
    .venv/bin/python bench/abstain_rule.py select  --train /tmp/abstain_h/train     # -> results/abstain_rule.json
    .venv/bin/python bench/abstain_rule.py measure --measure /tmp/abstain_h/measure2 # -> results/abstain_rule.md

The procedure is pre-registered in ``results/abstain_rule_procedure.md``: the rule family, the grid, the training
sets and the selection criterion are fixed there before any held-out set is measured. ``select`` reads only the
training sets; ``measure`` applies the chosen rule, unchanged, to every set.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from abstain_query import IRRELEVANT_SETS, RELEVANT_SETS, derived

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TRAIN_RELEVANT = (
    "train: tooldata own source",
    "train: tooldata gold + near misses",
    "train: BFCL tuning pooled",
    "train: BFCL tuning 1-10 with gold",
)
TRAIN_IRRELEVANT = (
    "train: tooldata without gold",
    "train: tooldata near misses",
    "train: BFCL tuning 1-10 without gold",
    "BFCL irrelevance",
)
TOP_COSINE = tuple(round(0.10 + 0.01 * k, 2) for k in range(31))  # 0.10 .. 0.40
OVERLAP = (0.01, 0.1, 0.15, 0.2, 0.25, 0.34, 0.5, 2.0)  # 2.0: the condition is off
DEPTH = (1, 2, 3, 5)
CATALOG = (0.01, 0.1, 0.2, 0.34, 0.5, 2.0)
TARGET = 0.005
A054CAC = {"top_cosine": 0.2453, "overlap": 0.2, "depth": 1, "catalog": 2.0}
"""The reverted veto of commit a054cac, reported beside the chosen rule."""
FINDINGS = "## Findings"
"""The hand-written section of ``abstain_rule.md`` that `measure` keeps."""


def load(folder: Path) -> dict[str, list[dict[str, object]]]:
    out = {}
    for file in sorted(folder.glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        for row in data["rows"]:
            row.update(derived(str(row["query"])))
        out[data["name"]] = data["rows"]
    return out


def right(row: dict[str, object]) -> bool:
    """A relevant request whose answer, abstention off, holds a gold tool anywhere in its five hits."""
    return bool(row["label"]) and row["gold_rank"] is not None


def answered(row: dict[str, object]) -> bool:
    """Today's rule answers (the veto can only take an answer away)."""
    return not row["abstained"] and bool(row["n_hits"])


def vetoes(rule: dict[str, float], row: dict[str, object]) -> bool:
    """Whether `rule` abstains on an answer today's rule gives (``rule``: top_cosine, overlap, depth, catalog)."""
    if not answered(row) or row.get("top_cosine1") is None:
        return False
    if float(row["english"]) <= 0.5 or float(row["ascii"]) <= 0.5:  # type: ignore[arg-type]
        return False
    overlaps = list(row["overlaps"])  # type: ignore[call-overload]
    best = max(overlaps[: int(rule["depth"])], default=0.0)
    return (
        float(row["top_cosine1"]) < rule["top_cosine"]  # type: ignore[arg-type]
        and best < rule["overlap"]
        and float(row["catalog_overlap"]) < rule["catalog"]  # type: ignore[arg-type]
    )


def share(rule: dict[str, float], rows: Sequence[dict[str, object]], relevant: bool) -> float:
    chosen = [r for r in rows if right(r)] if relevant else list(rows)
    if not chosen:
        return 0.0
    if relevant:
        return sum(vetoes(rule, r) for r in chosen) / len(chosen)
    return sum(bool(r["abstained"]) or vetoes(rule, r) for r in chosen) / len(chosen)


def emptied_today(rule: dict[str, float], rows: Sequence[dict[str, object]]) -> float:
    """The share of the right answers answered with nothing: today's abstention or the rule."""
    chosen = [r for r in rows if right(r)]
    return sum(bool(r["abstained"]) or vetoes(rule, r) for r in chosen) / len(chosen) if chosen else 0.0


def select(args: argparse.Namespace) -> None:
    sets = load(args.train)
    missing = [n for n in (*TRAIN_RELEVANT, *TRAIN_IRRELEVANT) if n not in sets]
    assert not missing, missing
    best: tuple[tuple[float, ...], dict[str, float]] | None = None
    for cos, ov, depth, cat in itertools.product(TOP_COSINE, OVERLAP, DEPTH, CATALOG):
        if ov == 2.0 and depth != 1:
            continue  # the depth means nothing without the overlap condition
        rule = {"top_cosine": cos, "overlap": ov, "depth": depth, "catalog": cat}
        if any(share(rule, sets[n], True) > TARGET for n in TRAIN_RELEVANT):
            continue
        gained = sum(share(rule, sets[n], False) for n in TRAIN_IRRELEVANT) / len(TRAIN_IRRELEVANT)
        emptied = sum(share(rule, sets[n], True) for n in TRAIN_RELEVANT)
        conditions = (ov < 2.0) + (cat < 2.0)
        key = (round(gained, 6), -round(emptied, 6), -conditions, -cos, -ov, depth, -cat)
        if best is None or key > best[0]:
            best = (key, rule)
    assert best is not None
    rule = best[1]
    report = {
        "rule": rule,
        "train": {
            n: {"relevant": n in TRAIN_RELEVANT, "share": share(rule, sets[n], n in TRAIN_RELEVANT), "n": len(sets[n])}
            for n in (*TRAIN_RELEVANT, *TRAIN_IRRELEVANT)
        },
    }
    (RESULTS / "abstain_rule.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


def measure(args: argparse.Namespace) -> None:
    rule = json.loads((RESULTS / "abstain_rule.json").read_text(encoding="utf-8"))["rule"]
    sets = load(args.measure)
    off = {"top_cosine": 0.0, "overlap": 0.0, "depth": 1, "catalog": 0.0}
    irrelevant = [n for n in IRRELEVANT_SETS if n in sets]
    relevant = [n for n in RELEVANT_SETS if n in sets]
    header = ["rule", *(f"abstained: {n} (n={len(sets[n])})" for n in irrelevant)]
    header += [f"right emptied: {n} (n={sum(right(r) for r in sets[n])})" for n in relevant]
    shown = " and ".join(
        [
            f"top cosine < {rule['top_cosine']}",
            *([f"best word share of the top {rule['depth']} hits < {rule['overlap']}"] if rule["overlap"] < 2 else []),
            *([f"catalog word share < {rule['catalog']}"] if rule["catalog"] < 2 else []),
            "English request",
        ]
    )
    lines = [
        "# Near-miss abstention rule, measured once (`.venv/bin/python bench/abstain_rule.py measure`)",
        "",
        "The rule chosen by the pre-registered procedure (`abstain_rule_procedure.md`, `abstain_rule.json`) on the",
        "training sets alone, applied unchanged. Abstained: share of the requests no tool serves answered with nothing",
        "(today's abstention or the rule); right emptied: share of the right answers (abstention off, a gold tool",
        "anywhere in the five hits) answered with nothing (today's abstention or the rule). Hybrid search, the",
        "packaged model. The last row, for reference: the veto of commit a054cac (its fixed thresholds).",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for label, chosen in (("today (shipped rule)", off), (shown, rule), ("commit a054cac (reference)", A054CAC)):
        cells = [f"{share(chosen, sets[n], False):.1%}" for n in irrelevant]
        cells += [f"{emptied_today(chosen, sets[n]):.1%}" for n in relevant]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    emptied = [(n, r["query"]) for n in relevant for r in sets[n] if right(r) and vetoes(rule, r)]
    lines += ["", "Right answers the rule empties:", *(f"- {n}: {q}" for n, q in emptied)]
    write_keeping_findings(RESULTS / "abstain_rule.md", lines)


def write_keeping_findings(out: Path, lines: list[str]) -> None:
    """Write `lines` to `out` and print them, keeping the findings written by hand below `FINDINGS` in `out`."""
    kept = out.read_text(encoding="utf-8").partition(FINDINGS)[2] if out.exists() else ""
    lines = [*lines, "", FINDINGS + kept.rstrip("\n")] if kept else lines
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sel = sub.add_parser("select")
    sel.add_argument("--train", type=Path, default=Path("/tmp/abstain_h/train"))
    mea = sub.add_parser("measure")
    mea.add_argument("--measure", type=Path, default=Path("/tmp/abstain_h/measure2"))
    args = parser.parse_args(argv)
    {"select": select, "measure": measure}[args.command](args)


if __name__ == "__main__":
    main(sys.argv[1:])
