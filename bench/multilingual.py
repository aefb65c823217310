"""Multilingual probe: requests in eight languages, and tools described in Chinese.

The probe (``bench/data/multilingual_probe.jsonl``) has two sets:

- ``translated``: 43 of the sample requests (every other one, q01..q85) in English and
  translated into zh, ja, ko, th, es, fr, de and ru, searched against the sample catalog;
- ``zh-catalog``: requests for 33 tools described in Chinese (``multilingual_zh_catalog.json``,
  modelled on real Chinese MCP servers: maps, 12306 trains, Feishu, DingTalk, ...), in Chinese
  and mixed Chinese/English.

Both sets search ONE catalog (sample + Chinese tools, 160 tools), through the model's path:
``ToolScout(catalog).session(...).dispatch_sync("tool_search", {"query": ...})``, with default
settings (hybrid when an embedder is installed, queried once the embeddings are in) and with
``search_mode="lexical"``. The same probe runs twice in one run, each in its own process: on the
source tree of a baseline commit (default: where this branch left ``main``) and on the working tree.

Usage: ``.venv/bin/python bench/multilingual.py [--baseline REF]`` -> results/multilingual.{json,md}
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import defaultdict
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
PROBE = DATA / "multilingual_probe.jsonl"
ZH_CATALOG = DATA / "multilingual_zh_catalog.json"
SAMPLE_CATALOG = ROOT / "src" / "toolscout" / "data" / "sample_catalog.json"
RESULTS = ROOT / "bench" / "results"
LANGUAGES = ("zh", "ja", "ko", "th", "es", "fr", "de", "ru")


def search_all() -> dict[str, dict[str, object]]:
    """Every probe query through ``tool_search`` of the toolscout on ``sys.path``, per engine.

    Engines: ``default`` (default settings; hybrid when an embedder is installed, queried once the
    catalog's embeddings are in), ``lexical`` (``search_mode="lexical"``; older versions, without
    that setting, searched lexically by default) and ``english-only-embedder`` (hybrid with
    ``embeddings.languages: ["en"]``, where the tree has that setting). Each: ``mode`` run, and
    ``found`` (id -> tool names).
    """
    from toolscout import Catalog, ScoutSettings, ToolScout

    catalog = Catalog([*Catalog.from_file(SAMPLE_CATALOG).tools, *Catalog.from_file(ZH_CATALOG).tools])
    requests = [json.loads(line) for line in PROBE.read_text(encoding="utf-8").splitlines()]
    try:
        lexical = ToolScout(catalog, settings=ScoutSettings(search_mode="lexical"))
    except Exception:  # a baseline from before the setting existed: its default was lexical
        lexical = ToolScout(catalog)
    scouts = {"default": ToolScout(catalog), "lexical": lexical}
    try:  # hybrid with the embedder declared English-only: other languages rank lexically
        english = ScoutSettings.from_mapping({"embeddings": {"languages": ["en"]}}, prefix="toolscout")
        scouts["english-only-embedder"] = ToolScout(catalog, settings=english)
    except Exception:  # a baseline from before the setting existed
        pass
    out: dict[str, dict[str, object]] = {}
    for engine, scout in scouts.items():
        session = scout.session("probe")
        session.dispatch_sync("tool_search", {"query": "warm up"})
        mode = "lexical"
        if hasattr(scout, "search_status"):
            deadline = time.monotonic() + 600
            while scout.search_status().state == "pending" and time.monotonic() < deadline:
                time.sleep(0.5)
            mode = scout.search_status().mode
        found = {}
        for request in requests:
            result = session.dispatch_sync("tool_search", {"query": request["query"]})
            found[request["id"]] = [tool["name"] for tool in result.content["tools"]]
        out[engine] = {"mode": mode, "found": found}
    return out


def run_on(src: Path) -> dict[str, dict[str, object]]:
    """`search_all` in a fresh process importing toolscout from `src`."""
    path = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH", "")]))
    env = {**os.environ, "PYTHONPATH": path, "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, __file__, "--worker"], env=env, check=True, capture_output=True, text=True
    ).stdout
    runs: dict[str, dict[str, object]] = json.loads(out)
    return runs


def export_src(ref: str, into: Path) -> Path:
    """Write the ``src`` tree of commit `ref` under `into`; return its path."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def scores(found: dict[str, list[str]], requests: list[dict[str, object]]) -> dict[str, dict[str, float]]:
    """hit@1 and hit@5 per ``set/lang`` group, plus the eight-language total of each set."""
    hits: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for request in requests:
        names, gold = found[str(request["id"])], set(request["gold"])  # type: ignore[call-overload]
        pair = (bool(names[:1]) and names[0] in gold, bool(gold.intersection(names[:5])))
        hits[f"{request['set']}/{request['lang']}"].append(pair)
        if request["lang"] in LANGUAGES:
            hits[f"{request['set']}/8 languages"].append(pair)
    return {group: _rates(pairs) for group, pairs in hits.items()}


def _rates(pairs: list[tuple[bool, bool]]) -> dict[str, float]:
    n = len(pairs)
    return {"n": n, "hit@1": sum(a for a, _ in pairs) / n, "hit@5": sum(b for _, b in pairs) / n}


def markdown(
    before: dict[str, dict[str, dict[str, float]]], after: dict[str, dict[str, dict[str, float]]], baseline: str
) -> str:
    lines = [f"Multilingual probe through `tool_search`, baseline `{baseline}` vs this tree, one run.", ""]
    for engine, rows in after.items():
        b_label = next((label for label in before if label.split()[0] == engine.split()[0]), engine)
        b_rows = before.get(b_label, {})
        lines += [
            f"**{engine}** (before: {b_label})",
            "",
            "| set / language | n | hit@1 before | hit@1 after | hit@5 before | hit@5 after |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for group, a in rows.items():
            b = b_rows.get(group, {"hit@1": float("nan"), "hit@5": float("nan")})
            cells = [f"{b['hit@1']:.3f}", f"{a['hit@1']:.3f}", f"{b['hit@5']:.3f}", f"{a['hit@5']:.3f}"]
            lines.append(f"| {group} | {a['n']:.0f} | {' | '.join(cells)} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--baseline", help="commit to compare with (default: merge-base of HEAD and main)")
    parser.add_argument("--misses", action="store_true", help="print the queries whose gold is not first")
    args = parser.parse_args()
    if args.worker:
        json.dump(search_all(), sys.stdout, ensure_ascii=False)
        return
    baseline = (
        args.baseline
        or subprocess.run(
            ["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], check=True, capture_output=True, text=True
        ).stdout.strip()
    )
    requests = [json.loads(line) for line in PROBE.read_text(encoding="utf-8").splitlines()]
    with tempfile.TemporaryDirectory() as tmp:
        runs_before = run_on(export_src(baseline, Path(tmp)))
    runs_after = run_on(ROOT / "src")
    order = sorted({f"{r['set']}/{r['lang']}" for r in requests}, key=_group_order)
    order += [f"{s}/8 languages" for s in ("translated", "zh-catalog") if f"{s}/zh" in order]
    before = {_label(engine, run): scores(_found(run), requests) for engine, run in runs_before.items()}
    after = {
        _label(engine, run): {group: rows[group] for group in order if group in rows}
        for engine, run in runs_after.items()
        for rows in [scores(_found(run), requests)]
    }
    table = markdown(before, after, baseline[:12])
    print(table)
    if args.misses:
        for engine, run in runs_after.items():
            for request in requests:
                names = _found(run)[request["id"]]
                if not names or names[0] not in request["gold"]:
                    print(engine, request["id"], request["query"], request["gold"], names[:3])
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "multilingual.md").write_text(table, encoding="utf-8")
    payload = {"baseline": baseline, "before": before, "after": after}
    (RESULTS / "multilingual.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def _found(run: dict[str, object]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = run["found"]  # type: ignore[assignment]
    return found


def _label(engine: str, run: dict[str, object]) -> str:
    return f"{engine} ({run['mode']})"


def _group_order(group: str) -> tuple[str, int]:
    kind, lang = group.split("/")
    return (kind, (("en", *LANGUAGES, "mixed").index(lang)))


if __name__ == "__main__":
    main()
