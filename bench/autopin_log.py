"""Write a replayable multi-session log of a simulated deployment, for the auto-pin bench (`autopin.py`).

The deployment runs the everyday catalog (``data/everyday_catalog.json``, 104 tools of the reference MCP
servers); its users' requests are those of the everyday probe (``data/everyday_probe.jsonl``, each labelled
with the tool it needs). Use is skewed as deployments are: the probe's tools are ranked by how many of its
requests ask for them (the probe was written as everyday users ask: the current time first), ties (and every tool with
``--random-order``) in a seeded order, and a session uses the tool of rank ``i`` with probability
``top / i ** decay`` (Zipf-like: the first few tools are
used in many sessions, most tools in few), at least one tool per session; it calls a tool it uses 1 + a
geometric number of times (mean ``1 + repeat``). Each use carries the request that asks for the tool (one of
the probe's requests labelled with it) and the other phrasings a model would retry with when its search misses
(the probe's other requests for the tool, then the tool's name in words).

With ``--shift-at F`` (default 1: never), use moves after that share of the sessions: the head of the order
is rotated (the most used tool drops to rank ``--shift-to``), so an auto-pinned tool whose use falls must leave.

One JSON object per line: ``{"session": "s0001", "uses": [{"tool": ..., "request": ..., "retries": [...],
"calls": n}, ...]}``.

    .venv/bin/python bench/autopin_log.py                          # -> bench/data/autopin_log.jsonl
    .venv/bin/python bench/autopin_log.py --sessions 400 --seed 7 --out /tmp/log.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
SESSIONS, TOP, DECAY, REPEAT, SEED = 600, 0.6, 1.0, 0.5, 40
SHIFT_AT, SHIFT_TO = 1.0, 8


def requests_by_tool(probe: Path) -> dict[str, list[str]]:
    """The probe's requests per tool they are labelled with (a request with several tools counts for each)."""
    found: dict[str, list[str]] = defaultdict(list)
    for line in probe.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            for tool in row["gold"]:
                found[tool].append(row["query"])
    return dict(found)


def name_words(tool: str) -> str:
    """A tool's name as a model would retype it in a search: ``github__create_issue`` -> ``create issue``."""
    return re.sub(r"[_\-]+", " ", tool.split("__", 1)[-1]).strip()


def generate(
    requests: dict[str, list[str]],
    *,
    sessions: int = SESSIONS,
    top: float = TOP,
    decay: float = DECAY,
    repeat: float = REPEAT,
    seed: int = SEED,
    shift_at: float = SHIFT_AT,
    shift_to: int = SHIFT_TO,
    by_probe: bool = True,
) -> list[dict[str, object]]:
    """The log's sessions (module docstring)."""
    rng = random.Random(seed)
    order = sorted(requests)
    rng.shuffle(order)
    if by_probe:  # the tools everyday users ask for most (most probe requests) first; ties in the seeded order
        order.sort(key=lambda tool: -len(requests[tool]))
    shifted = [*order[1:shift_to], order[0], *order[shift_to:]]
    log: list[dict[str, object]] = []
    for number in range(sessions):
        ranking = order if number < shift_at * sessions else shifted
        used = [tool for rank, tool in enumerate(ranking, 1) if rng.random() < top / rank**decay]
        if not used:
            used = [rng.choices(ranking, weights=[1 / rank**decay for rank in range(1, len(ranking) + 1)])[0]]
        rng.shuffle(used)
        uses = []
        for tool in used:
            phrasings = list(requests[tool])
            rng.shuffle(phrasings)
            calls = 1
            while rng.random() < repeat / (1 + repeat):
                calls += 1
            uses.append({"tool": tool, "request": phrasings[0], "retries": [*phrasings[1:], name_words(tool)][:2]})
            uses[-1]["calls"] = calls
        log.append({"session": f"s{number + 1:04d}", "uses": uses})
    return log


def main() -> None:
    """Write the log."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=SESSIONS)
    parser.add_argument("--top", type=float, default=TOP, help="the most used tool's share of sessions")
    parser.add_argument("--decay", type=float, default=DECAY, help="Zipf exponent of use over the tools' ranks")
    parser.add_argument("--repeat", type=float, default=REPEAT, help="mean extra calls of a used tool")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--shift-at", type=float, default=SHIFT_AT, help="share of sessions after which use moves")
    parser.add_argument("--shift-to", type=int, default=SHIFT_TO, help="the rank the most used tool drops to")
    parser.add_argument("--random-order", action="store_true", help="rank the tools in the seeded order alone")
    parser.add_argument("--probe", type=Path, default=DATA / "everyday_probe.jsonl")
    parser.add_argument("--out", type=Path, default=DATA / "autopin_log.jsonl")
    args = parser.parse_args()
    log = generate(
        requests_by_tool(args.probe),
        sessions=args.sessions,
        top=args.top,
        decay=args.decay,
        repeat=args.repeat,
        seed=args.seed,
        shift_at=args.shift_at,
        shift_to=args.shift_to,
        by_probe=not args.random_order,
    )
    args.out.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in log), encoding="utf-8")
    print(f"{len(log)} sessions -> {args.out}")


if __name__ == "__main__":
    main()
