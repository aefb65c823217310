"""Berkeley Function Calling Leaderboard (BFCL) as a tool-retrieval benchmark.

Downloads the `bfcl-eval` wheel once (pip, into `.bench-data/`), pools every function
definition of every category into ONE catalog (~3,000 tools) and turns each category's
requests into queries labelled with the gold function names.

Same-name functions whose descriptions differ become distinct tools (``name``, ``name_2``,
...); `BfclData.original_name` maps every catalog name back, and hits are scored on the
original name (`BfclData.canonical`).

Tune only on `TUNING_CATEGORIES`; the other categories are kept for an independent check.

Usage: ``python bench/bfcl.py [--all]`` writes ``.bench-data/bfcl_catalog.json``,
``bfcl_aliases.json`` and ``bfcl_tuning.jsonl`` (or ``bfcl_all.jsonl``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from toolscout import Catalog, ToolSpec

__all__ = [
    "ALL_CATEGORIES",
    "DATA_DIR",
    "TUNING_CATEGORIES",
    "BfclData",
    "Query",
    "load_bfcl",
    "write_bfcl",
]

WHEEL_SPEC = "bfcl-eval==2026.3.23"
DATA_DIR = Path(__file__).resolve().parents[1] / ".bench-data"

TUNING_CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "exec_simple",
    "exec_multiple",
    "exec_parallel",
    "exec_parallel_multiple",
    "sql",
)
"""The only categories used for tuning and reporting (issue 3)."""

_HELD_OUT: tuple[str, ...] = (
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "multi_turn_base",
    "multi_turn_long_context",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_composite",
)
ALL_CATEGORIES: tuple[str, ...] = TUNING_CATEGORIES + _HELD_OUT
"""Every category whose requests carry gold function calls."""

_ROOT = "bfcl_eval/data/"
_UNUSED = ("exec_simple", "exec_multiple", "exec_parallel", "exec_parallel_multiple", "sql", "multi_turn_composite")
_TYPES = {
    "dict": "object",
    "hashmap": "object",
    "float": "number",
    "double": "number",
    "long": "integer",
    "tuple": "array",
    "arraylist": "array",
    "char": "string",
}
_NOT_DEFINITIONS = ("possible_answer", "sanity_check", "memory_prereq", "format_sensitivity")
_CALL_NAME = re.compile(r"\s*([\w.]+)\s*\(")


@dataclass(frozen=True, slots=True, kw_only=True)
class Query:
    """One labelled request."""

    id: str
    """BFCL's id (multi-turn queries add ``#turnN``)."""
    query: str
    """The user's request text."""
    gold: tuple[str, ...]
    """Original names of the functions the request calls (deduplicated, in call order)."""
    category: str
    """The BFCL category."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BfclData:
    """The pooled catalog plus the queries of the requested categories."""

    catalog: Catalog
    """Every distinct function definition of every category."""
    queries: list[Query]
    """Queries of the requested categories, in category order."""
    original_name: dict[str, str]
    """Catalog name -> the function's original BFCL name (identity for most tools)."""

    def canonical(self, names: Iterable[str]) -> list[str]:
        """Map ranked catalog names to original names; a repeat keeps its slot (metrics count the first)."""
        return [self.original_name.get(name, name) for name in names]


def load_bfcl(categories: Sequence[str] | None = None, *, data_dir: Path = DATA_DIR) -> BfclData:
    """Load the pooled BFCL catalog and the queries of `categories` (default: `TUNING_CATEGORIES`)."""
    wanted = tuple(categories) if categories is not None else TUNING_CATEGORIES
    unknown = sorted(set(wanted) - set(ALL_CATEGORIES))
    if unknown:
        raise ValueError(f"unknown BFCL categories {unknown}; choose from {list(ALL_CATEGORIES)}")
    with zipfile.ZipFile(_wheel(data_dir)) as wheel:
        files = {name: wheel.read(name).decode("utf-8") for name in wheel.namelist() if name.startswith(_ROOT)}
    catalog, original = _pool(files)
    known = set(original.values())
    queries = [
        replace(query, gold=tuple(name for name in query.gold if name in known))
        for category in wanted
        for query in _queries(files, category)
    ]
    # A few multi-turn answers call functions no definition file declares; drop those names.
    queries = [query for query in queries if query.gold]
    return BfclData(catalog=catalog, queries=queries, original_name=original)


def write_bfcl(data: BfclData, *, out_dir: Path = DATA_DIR, stem: str = "bfcl_tuning") -> tuple[Path, Path, Path]:
    """Write the catalog JSON, the alias map JSON and the queries JSONL; return their paths.

    Query lines are ``{"id", "query", "gold": [original names], "category"}``. Scoring on the
    original name needs the alias map (catalog name -> original name) to canonicalise hits.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    catalog_path = out_dir / "bfcl_catalog.json"
    aliases_path = out_dir / "bfcl_aliases.json"
    queries_path = out_dir / f"{stem}.jsonl"
    catalog_path.write_text(json.dumps([tool.to_definition() for tool in data.catalog], ensure_ascii=False))
    renamed = {name: original for name, original in data.original_name.items() if name != original}
    aliases_path.write_text(json.dumps(renamed, ensure_ascii=False, indent=1))
    with queries_path.open("w", encoding="utf-8") as out:
        for q in data.queries:
            line = {"id": q.id, "query": q.query, "gold": list(q.gold), "category": q.category}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return catalog_path, aliases_path, queries_path


def _wheel(data_dir: Path) -> Path:
    found = sorted(data_dir.glob("bfcl_eval-2026.3.23-*.whl"))
    if not found:
        data_dir.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(data_dir), WHEEL_SPEC]
        subprocess.run(cmd, check=True)
        found = sorted(data_dir.glob("bfcl_eval-2026.3.23-*.whl"))
    return found[0]


def _lines(text: str) -> Iterator[dict[str, object]]:
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def _definitions(files: dict[str, str]) -> Iterator[dict[str, object]]:
    for path in sorted(files):
        if path.endswith(".json") and not any(part in path for part in _NOT_DEFINITIONS):
            for record in _lines(files[path]):
                yield from record.get("function", [record] if "parameters" in record else [])  # type: ignore[misc]


def _pool(files: dict[str, str]) -> tuple[Catalog, dict[str, str]]:
    seen: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    tools: list[ToolSpec] = []
    original: dict[str, str] = {}
    for fn in _definitions(files):
        name, description = str(fn["name"]), str(fn.get("description") or "")
        if (name, description) in seen:
            continue
        unique, n = name, 1
        while unique in taken:
            n += 1
            unique = f"{name}_{n}"
        seen[(name, description)] = unique
        taken.add(unique)
        original[unique] = name
        params = _schema(fn.get("parameters") or {"type": "dict", "properties": {}})
        tools.append(ToolSpec(name=unique, description=description, parameters=params))  # type: ignore[arg-type]
    return Catalog(tools), original


def _schema(value: object) -> object:
    """BFCL's Python-flavoured types (dict, float, tuple, any, ...) -> JSON Schema types."""
    if isinstance(value, list):
        return [_schema(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, object] = {}
    for key, item in value.items():
        if key == "type" and isinstance(item, str):
            mapped = _TYPES.get(item.lower(), item.lower())
            if mapped not in ("any", ""):
                out[key] = mapped
        elif key == "properties" and isinstance(item, dict):
            out[key] = {prop: _schema(sub) for prop, sub in item.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _schema(item)
        elif key != "optional":
            out[key] = item
    return out


def _question_path(category: str, *, answer: bool) -> str:
    folder = "unused_datasets/" if category in _UNUSED else ""
    inner = "possible_answer/" if answer else ("question/" if folder else "")
    return f"{_ROOT}{folder}{inner}BFCL_v4_{category}.json"


def _queries(files: dict[str, str], category: str) -> Iterator[Query]:
    answers = {str(a["id"]): a["ground_truth"] for a in _lines(files[_question_path(category, answer=True)])}
    for record in _lines(files[_question_path(category, answer=False)]):
        qid = str(record["id"])
        turns = record["question"]
        assert isinstance(turns, list)
        if turns and isinstance(turns[0], dict):
            turns = [turns]  # the sql file stores one turn without the outer list
        truth = answers[qid]
        if category.startswith("multi_turn"):
            yield from _turn_queries(qid, category, turns, truth)  # type: ignore[arg-type]
            continue
        gold = _gold(truth)
        if gold:
            yield Query(id=qid, query=_user_text(turns[0]), gold=gold, category=category)


def _turn_queries(qid: str, category: str, turns: list[list[dict[str, str]]], truth: list[object]) -> Iterator[Query]:
    last = ""
    for index, (turn, calls) in enumerate(zip(turns, truth, strict=False)):
        last = _user_text(turn) or last
        gold = _gold(calls)
        if gold and last:
            yield Query(id=f"{qid}#turn{index}", query=last, gold=gold, category=category)


def _user_text(messages: list[dict[str, str]]) -> str:
    return "\n".join(m["content"] for m in messages if m.get("role") == "user" and m.get("content")).strip()


def _gold(truth: object) -> tuple[str, ...]:
    names: list[str] = []
    for call in truth if isinstance(truth, list) else []:
        if isinstance(call, str):
            match = _CALL_NAME.match(call)
            found = [match.group(1)] if match else []
        elif isinstance(call, dict):
            found = [str(key) for key in call]
        else:
            found = []
        names.extend(name for name in found if name not in names)
    return tuple(names)


def main(argv: Sequence[str]) -> None:
    everything = "--all" in argv
    data = load_bfcl(ALL_CATEGORIES if everything else TUNING_CATEGORIES)
    paths = write_bfcl(data, stem="bfcl_all" if everything else "bfcl_tuning")
    print(f"{len(data.catalog)} tools, {len(data.queries)} queries")
    for path in paths:
        print(path)


if __name__ == "__main__":
    main(sys.argv[1:])
