"""Pre-search measured: labelled requests replayed as user messages, per setting, old and new offer rule side by side.

Each request is one first turn of a fresh session over its set's catalog (deferral on, bridge style,
hybrid search once the embeddings are in). new: ``session.assemble(user_message=request)`` with the
``presearch`` settings of the row, so the figures are what the library sends (the smallest set of hits whose
fitted chance of holding the right tool reaches the setting, ``bench/presearch_fit.py``). old: the rule it
replaced, replayed on the same session's ``tool_search`` answer (at most 3 hits whose own confidence reaches
the setting, deferred, within the token budget). The new rule offers at most ``presearch.max_tools``' default
(``--max-tools``: another). Per set, rule and setting:

- ``offered``: the share of requests whose gold tool (any gold, for a request with several; a tool
  with the gold's original name counts on BFCL's pooled catalog) is offered before the model asks;
- ``wrong-only``: the share of turns with tools offered and none of them a gold tool;
- ``tokens (median)``: the tokens the turn adds (the offered tools' definitions and the guidance
  line; 0 when nothing is offered), median over all turns, and over the turns with an offer.

Sets: BFCL tuning, BFCL live (held out: never used to choose a setting), the sample requests with a
tool, and the everyday probe (``data/everyday_probe.jsonl`` over ``data/everyday_catalog.json``).

    .venv/bin/python bench/presearch.py                 # -> results/presearch.{json,md}
    .venv/bin/python bench/presearch.py --limit 200     # the first 200 requests of each set (a quick look)
    .venv/bin/python bench/presearch.py --max-tools 5 --settings 0.8 0.9 --out /tmp/presearch5  # larger offers
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bfcl import TUNING_CATEGORIES, load_bfcl

from toolscout import Catalog, PresearchSettings, ScoutSettings, ToolScout
from toolscout._texts import Guidance
from toolscout._tokens import tool_tokens
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.dispatch import BridgeAnswer, SearchAnswer

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DATA = ROOT / "bench" / "data"
LIVE_CATEGORIES = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple")
"""BFCL's live categories (as ``tune_hybrid.LIVE_CATEGORIES``, without importing its training stack)."""
CONFIDENCES = tuple(sorted({0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, PresearchSettings().min_confidence}))
"""The settings measured unless ``--settings`` says otherwise: a coarse grid and the default."""
MAX_TOOLS = PresearchSettings().max_tools
"""The new rule's largest offer unless ``--max-tools`` says otherwise."""
OLD_MAX_TOOLS = 3
"""The old rule's largest offer (as it shipped)."""
BAR_OFFERED, BAR_WRONG_ONLY = 0.6, 0.08
"""Issue 39's bar on BFCL live at the default setting."""


@dataclass(frozen=True, slots=True)
class Labelled:
    """One catalog, its requests and their gold names (`canonical`: catalog names -> scored names)."""

    catalog: Catalog
    requests: list[str]
    golds: list[tuple[str, ...]]
    canonical: Callable[[list[str]], list[str]] = list


def labelled_sets() -> dict[str, Labelled]:
    """BFCL tuning, BFCL live (held out), the sample requests with a tool, the everyday probe."""
    tuning, live = load_bfcl(TUNING_CATEGORIES), load_bfcl(LIVE_CATEGORIES)
    sample = [json.loads(line) for line in sample_queries_path().read_text(encoding="utf-8").splitlines() if line]
    sample = [row for row in sample if row["gold"]]
    everyday = [json.loads(line) for line in (DATA / "everyday_probe.jsonl").read_text(encoding="utf-8").splitlines()]
    return {
        "BFCL tuning": Labelled(
            tuning.catalog, [q.query for q in tuning.queries], [q.gold for q in tuning.queries], tuning.canonical
        ),
        "BFCL live (held out)": Labelled(
            live.catalog, [q.query for q in live.queries], [q.gold for q in live.queries], live.canonical
        ),
        "sample": Labelled(
            Catalog.from_file(sample_catalog_path()), [r["query"] for r in sample], [tuple(r["gold"]) for r in sample]
        ),
        "everyday": Labelled(
            Catalog.from_file(DATA / "everyday_catalog.json"),
            [r["query"] for r in everyday if r["gold"]],
            [tuple(r["gold"]) for r in everyday if r["gold"]],
        ),
    }


def measure(
    data: Labelled, confidences: Sequence[float], max_tools: int = MAX_TOOLS
) -> dict[str, dict[str, dict[str, float]]]:
    """Each rule's and setting's figures on `data` (``off``: pre-search off), all from one scout's shared index.

    `max_tools`: the new rule's largest offer (the old one offers at most `OLD_MAX_TOOLS`).
    """
    base = ToolScout(data.catalog, settings=ScoutSettings(mode="on", search_mode="hybrid"))
    if not base.wait_for_embeddings(3600) or base.search_status().mode != "hybrid":
        raise RuntimeError(f"tool_search is not hybrid: {base.search_status()}")
    none = [False] * len(data.requests)
    off = _row(none, none, [0] * len(none))
    rows: dict[str, dict[str, dict[str, float]]] = {"off": {"old": off, "new": off}}
    answers = _old_answers(base, data.requests)
    for confidence in confidences:
        presearch = PresearchSettings(enabled=True, max_tools=max_tools, min_confidence=confidence)
        scout = base.replace(settings=ScoutSettings(mode="on", search_mode="hybrid", presearch=presearch))
        session = scout.session("bench")
        new = [list(session.assemble(request).presearched) for request in data.requests]
        old = [_old_rule(scout, hits, confidence, presearch.max_tokens) for hits in answers]
        rows[f"{confidence:.2f}"] = {"old": _score(scout, data, old), "new": _score(scout, data, new)}
    return rows


def _old_answers(scout: ToolScout, requests: list[str]) -> list[list[tuple[str, float]]]:
    """Each request's ``tool_search`` hits as the old rule searched them (limit: the most tools offered)."""
    search = scout.settings.bridge_names.search
    answers = []
    for number, request in enumerate(requests):
        resolution = scout.session(f"old-{number}").resolve(search, {"query": request.strip(), "limit": OLD_MAX_TOOLS})
        found = []
        if request.strip() and isinstance(resolution, BridgeAnswer) and isinstance(resolution.answer, SearchAnswer):
            found = [(hit.name, hit.confidence) for hit in resolution.answer.tools if hit.confidence is not None]
        answers.append(found)
    return answers


def _old_rule(scout: ToolScout, hits: list[tuple[str, float]], confidence: float, budget: int) -> list[str]:
    """The hits whose own confidence reaches `confidence`, within the token budget (the rule before issue 39's fit)."""
    offered, spent = [], 0
    for name, value in hits:
        cost = tool_tokens(scout.catalog[name], scout.counter)
        if value >= confidence and spent + cost <= budget:
            spent += cost
            offered.append(name)
    return offered


def _score(scout: ToolScout, data: Labelled, offers: list[list[str]]) -> dict[str, float]:
    offered, wrong, tokens = [], [], []
    for names, gold in zip(offers, data.golds, strict=True):
        right = bool(set(data.canonical([scout.renamed.get(n, n) for n in names])) & set(gold))
        offered.append(right)
        wrong.append(bool(names) and not right)
        added = sum(tool_tokens(scout.catalog[n], scout.counter) for n in names)
        tokens.append(added + scout.counter.count(Guidance.presearched(", ".join(names))) if names else 0)
    return _row(offered, wrong, tokens)


def _row(offered: list[bool], wrong: list[bool], tokens: list[int]) -> dict[str, float]:
    count = max(len(offered), 1)
    with_offer = [t for t in tokens if t]
    return {
        "offered": round(sum(offered) / count, 3),
        "wrong_only": round(sum(wrong) / count, 3),
        "tokens_median": statistics.median(tokens) if tokens else 0,
        "tokens_median_when_offered": statistics.median(with_offer) if with_offer else 0,
        "requests": len(offered),
    }


def markdown(results: dict[str, dict[str, dict[str, dict[str, float]]]], max_tools: int = MAX_TOOLS) -> str:
    lines = [
        "# Pre-search: tools offered before the model asks",
        "",
        "`bench/presearch.py`: each request is a first turn's user message (hybrid tool_search, bridge style, "
        f"deferral on, at most {max_tools} tools). old: the hits whose own confidence reaches the setting; new (what "
        "the library does): the smallest set of hits whose fitted chance of holding the right tool reaches it "
        "(`bench/presearch_fit.py`, fitted on BFCL tuning and the tooldata dev split only). offered: gold tool among "
        "them; wrong-only: tools offered, none gold; tokens: added per turn, median over all turns / turns with an "
        "offer.",
        "",
    ]
    default = f"{PresearchSettings().min_confidence:.2f}"
    live = results.get("BFCL live (held out)", {}).get(default, {}).get("new")
    if live is not None:
        met = live["offered"] >= BAR_OFFERED and live["wrong_only"] <= BAR_WRONG_ONLY
        lines += [
            f"Default: pre-search off, {default} when on (with at most {PresearchSettings().max_tools} tools: the "
            f"lowest setting whose wrong-only share's one-sided 95% upper bound is at most {BAR_WRONG_ONLY:.0%} on "
            "BFCL tuning and the tooldata dev split, `results/presearch_margin.md`). BFCL live "
            f"(held out) at {default}: {live['offered']:.3f} offered, {live['wrong_only']:.3f} wrong-only, "
            f"{live['tokens_median']:g} tokens (median); the issue's bar (offered >= {BAR_OFFERED:.0%} with wrong-only "
            f"<= {BAR_WRONG_ONLY:.0%}) is {'met' if met else 'not met'}. With pre-search off no tool is offered "
            "before the model asks: it calls tool_search first.",
            "",
        ]
    lines += [
        "At matched wrong-only (new rule at the default; old rule at its best setting with no more wrong-only):",
        "",
    ]
    for name, rows in results.items():
        new = rows.get(default, {}).get("new")
        if new is None:
            continue
        fair = [
            row["old"] for key, row in rows.items() if key != "off" and row["old"]["wrong_only"] <= new["wrong_only"]
        ]
        old = max(fair, key=lambda row: row["offered"], default=rows["off"]["old"])
        lines.append(
            f"- {name}: new {new['offered']:.3f} offered / {new['wrong_only']:.3f} wrong-only; "
            f"old {old['offered']:.3f} / {old['wrong_only']:.3f}"
        )
    lines += ["", f"Best of each rule at any setting with wrong-only <= {BAR_WRONG_ONLY:.0%}:", ""]
    for name, rows in results.items():
        best = {}
        for rule in ("old", "new"):
            within = [row[rule] for row in rows.values() if row[rule]["wrong_only"] <= BAR_WRONG_ONLY]
            best[rule] = max(within, key=lambda row: row["offered"])
        lines.append(
            f"- {name}: new {best['new']['offered']:.3f} offered / {best['new']['wrong_only']:.3f} wrong-only; "
            f"old {best['old']['offered']:.3f} / {best['old']['wrong_only']:.3f}"
        )
    lines.append("")
    for name, rows in results.items():
        count = rows["off"]["new"]["requests"]
        lines += [f"## {name} ({count} requests)", ""]
        lines += ["| setting | old offered | old wrong-only | old tokens | new offered | new wrong-only | new tokens |"]
        lines += ["|---|---|---|---|---|---|---|"]
        for setting, row in rows.items():
            label = "pre-search off" if setting == "off" else setting
            cells = []
            for rule in ("old", "new"):
                figures = row[rule]
                tokens = f"{figures['tokens_median']:g} / {figures['tokens_median_when_offered']:g}"
                cells.append(f"{figures['offered']:.3f} | {figures['wrong_only']:.3f} | {tokens}")
            lines.append(f"| {label} | {' | '.join(cells)} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N requests of each set")
    parser.add_argument("--out", type=Path, default=RESULTS / "presearch")
    parser.add_argument("--max-tools", type=int, default=MAX_TOOLS, help="the new rule's largest offer")
    parser.add_argument("--settings", type=float, nargs="+", default=CONFIDENCES, help="the settings measured")
    parser.add_argument("--sets", nargs="+", default=None, help="the sets measured (names as in the report)")
    parser.add_argument("--markdown-only", action="store_true", help="rewrite the .md from the .json, measure nothing")
    args = parser.parse_args()
    if args.markdown_only:
        saved = json.loads(args.out.with_suffix(".json").read_text(encoding="utf-8"))
        args.out.with_suffix(".md").write_text(markdown(saved, args.max_tools), encoding="utf-8")
        return
    results = {}
    for name, data in labelled_sets().items():
        if args.sets is not None and name not in args.sets:
            continue
        if args.limit is not None:
            data = Labelled(data.catalog, data.requests[: args.limit], data.golds[: args.limit], data.canonical)
        results[name] = measure(data, args.settings, args.max_tools)
        print(name, json.dumps(results[name]), flush=True)
    args.out.with_suffix(".json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(results, args.max_tools), encoding="utf-8")


if __name__ == "__main__":
    main()
