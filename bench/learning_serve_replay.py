"""Learning from use, replayed as a model meets it (issue 40): over MCP, through ``toolscout serve --transport http``.

For every set and engine (lexical, hybrid), each set's catalog is served by ``bench/servers/catalog_server.py`` (a
stdio MCP server answering every call with success; one per namespace, so ``slack__post_message`` is the ``slack``
upstream's ``post_message`` and keeps its name, and ``cat`` for the tools without a namespace) behind two fresh
gateways of the same run: learning on, and
learning off (the baseline). The requests are split as ``bench/learning_replay.py`` splits them (seeded shuffle,
the first share as history). On the learning gateway each history request runs in an MCP session of its own:
``tool_search``, then ``tool_call`` of each gold tool with the least arguments its input schema accepts. Then every
future request is searched (``tool_search``, its default limit of 5) in a fresh MCP session on both gateways, and
its hits (the gateway's namespaced names, mapped back to the catalog's) are scored as the in-process replay scores
them: R@1/R@5 split into "seen" (a gold tool appeared in the history) and "never" (none did).

The gateways run with no toolscout settings but these: ``learning.enabled`` (on one), ``search_mode: lexical`` for
the lexical rows (hybrid rows keep the default ``auto``, checked to be hybrid with its embeddings ready), and
``new_sessions_per_minute`` raised so the thousands of sessions one client address opens are not refused with 429
(an abuse limit; nothing in search reads it). Each gateway has a data dir of its own, so the learned pairs go to
its default store (``sessions.sqlite3`` there). After the history the script reads that store to check the
recorder path: one pair per successful call, credited to that call's own MCP session, marked missed exactly when
that session's search did not list the tool.

Usage: ``python bench/learning_serve_replay.py [--history 0.5] [--seed 0] [--modes lexical,hybrid] [--sets ...]
[--most N]``; writes ``bench/results/learning_serve_replay.md`` (``--out``). ``--most N`` keeps each set's (each
tooldata group's) first N requests before the split.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence, Set
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
from bfcl import TUNING_CATEGORIES
from gateway_clients import TOOLSCOUT, process_url
from learning_replay import Set as Groups
from learning_replay import bfcl, sample, table, tooldata
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from tune_hybrid import LIVE_CATEGORIES

from toolscout import Catalog
from toolscout._settings import LearningSettings
from toolscout.cli._replay import split_history
from toolscout.learning._internal import UsageBounds, export_pairs, open_usage_store
from toolscout.search import SearchHit, SearchIndex, SearchMode, SearchResult
from toolscout.search._internal import EvalReport, LabelledQuery, evaluate

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "bench" / "servers" / "catalog_server.py"
UPSTREAM = "cat"
"""The upstream serving the tools without a namespace (a namespaced tool is served by an upstream of that name)."""
CONCURRENCY = 4
"""MCP sessions in flight at once."""
EMBED_S_PER_REQUEST = 0.03
"""Hybrid: seconds allowed per history request for the gateway to embed past requests in the background."""


@dataclass
class Check:
    """What the replay saw of the recorder path and the wire."""

    calls: int = 0
    calls_ok: int = 0
    refused: list[str] = field(default_factory=list)
    listed: int = 0
    """Successful calls whose tool the same session's search had listed."""
    pairs: int = 0
    uses: int = 0
    """Pairs with no request: a call credited to no search, recorded as a use (for auto-pin)."""
    missed: int = 0
    """Pairs marked missed (a search that did not list the tool, credited by the chain)."""
    sessions: int = 0
    """Distinct learning sessions among the pairs (one per history session with a successful call, if exact)."""
    cross: int = 0
    """Pairs of a request whose tool the request's own session never called (credited from another session's call)."""
    missed_right: int = 0
    """Pairs marked missed exactly when their session's search did not list the tool."""
    foreign_hits: int = 0
    """Hits not under the upstream's namespace (should be none)."""

    def add(self, other: Check) -> None:
        self.calls += other.calls
        self.calls_ok += other.calls_ok
        self.refused += other.refused[: max(0, 5 - len(self.refused))]
        self.listed += other.listed
        self.pairs += other.pairs
        self.uses += other.uses
        self.missed += other.missed
        self.sessions += other.sessions
        self.cross += other.cross
        self.missed_right += other.missed_right
        self.foreign_hits += other.foreign_hits


def minimal(schema: object) -> object:
    """The least value `schema` accepts (required properties only, shortest strings, smallest numbers)."""
    if not isinstance(schema, Mapping):
        return "x"
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return minimal(schema[key][0])
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: minimal(properties.get(name, {})) for name in schema.get("required") or ()}
    if kind == "array":
        return [minimal(schema.get("items", {})) for _ in range(int(schema.get("minItems", 0)))]
    if kind in ("integer", "number"):
        least = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        return max(0, int(least) + (1 if "exclusiveMinimum" in schema else 0))
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "x" * max(1, int(schema.get("minLength", 1)))


def serve_command(config: Path) -> list[str]:
    return [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", "0", "--wait-for-upstreams"]


@dataclass(frozen=True)
class Gateway:
    url: str
    data: Path


@dataclass(frozen=True)
class Served:
    """A catalog split into upstreams: one per namespace (``cat`` for tools without one), as a gateway would see it."""

    servers: dict[str, Path]
    """Upstream name -> its tools file."""
    wire: dict[str, str]
    """Catalog name -> the gateway's name (``upstream__tool``)."""
    catalog: dict[str, str]
    """The gateway's name -> the catalog name."""


def served(catalog: Catalog, folder: Path) -> Served:
    """Write one tools file per upstream under `folder`."""
    rows: dict[str, list[dict[str, object]]] = {}
    wire: dict[str, str] = {}
    for tool in catalog:
        upstream = tool.namespace or UPSTREAM
        bare = re.sub(r"\s", "_", tool.name.removeprefix(f"{upstream}__"))  # MCP names have no spaces
        row = {"name": bare, "description": tool.description, "inputSchema": tool.parameters, "title": tool.title}
        rows.setdefault(upstream, []).append({**row, "annotations": tool.annotations, "_meta": tool.meta})
        wire[tool.name] = f"{upstream}__{bare}"
    servers = {}
    for number, (upstream, tools) in enumerate(rows.items()):
        servers[upstream] = folder / f"tools-{number}.json"
        servers[upstream].write_text(json.dumps(tools))
    return Served(servers, wire, {shown: name for name, shown in wire.items()})


@asynccontextmanager
async def gateway(folder: Path, tools: Served, *, mode: str, learning: bool) -> AsyncIterator[Gateway]:
    """A fresh ``toolscout serve --transport http`` in front of the catalog server, ready to search."""
    data = folder / f"data-{mode}-{'on' if learning else 'off'}"
    data.mkdir()
    settings: dict[str, Any] = {"new_sessions_per_minute": 1_000_000, "learning": {"enabled": learning}}
    if mode == "lexical":
        settings["search_mode"] = "lexical"
    config = data / "gateway.json"
    servers = {
        name: {"command": sys.executable, "args": [str(SERVER), str(path)]} for name, path in tools.servers.items()
    }
    config.write_text(json.dumps({"mcpServers": servers, "toolscout": settings}))
    os.environ["TOOLSCOUT_DATA_DIR"] = str(data)  # read by the process started next
    async with process_url(serve_command(config)) as started:
        await ready(started.url, mode)
        yield Gateway(started.url, data)


async def ready(url: str, mode: str) -> None:
    """Wait until the gateway lists the catalog and, for hybrid, its embeddings are in."""
    base = url.rsplit("/mcp", 1)[0]
    async with httpx2.AsyncClient(timeout=30) as http:
        for _ in range(3_000):
            health = (await http.get(f"{base}/healthz")).json()
            search = health.get("search", {})
            if health.get("tools") and (mode == "lexical" or search.get("embeddings") in ("ready", "failed")):
                if mode == "hybrid" and (search.get("mode") != "hybrid" or search.get("embeddings") != "ready"):
                    raise RuntimeError(f"the gateway's search is not hybrid: {search}")
                return
            await anyio.sleep(0.2)
    raise RuntimeError(f"the gateway at {url} never got ready")


WIRES = ("session", "stateless", "header")
"""How a replay's client speaks: ``session``: the 2025 handshake, one ``Mcp-Session-Id`` per MCP session;
``stateless``: 2026-07-28 with no session at all (the gateway credits calls by principal); ``header``: 2026-07-28
with a ``Toolscout-Session`` of its own per MCP session."""


@asynccontextmanager
async def connect(url: str, wire: str) -> AsyncIterator[Client]:
    """A fresh MCP session on the gateway, spoken as `wire` says."""
    headers = {"Toolscout-Session": secrets.token_hex(8)} if wire == "header" else {}
    mode = "legacy" if wire == "session" else "auto"
    async with (
        httpx2.AsyncClient(timeout=120, headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


async def search(url: str, wire: str, query: str) -> list[str]:
    """`query` searched in a fresh MCP session: the hits' names as the gateway wrote them."""
    async with connect(url, wire) as client:
        result = await client.call_tool("tool_search", {"query": query})
    return [tool["name"] for tool in json.loads(result.content[0].text).get("tools", [])]


async def history_one(
    url: str, wire: str, item: LabelledQuery, calls: Sequence[tuple[str, str, object]], check: Check
) -> dict[str, bool]:
    """One history request in its own MCP session: search, then call each gold tool; tool -> listed by the search."""
    listed: dict[str, bool] = {}
    async with connect(url, wire) as client:
        found = await client.call_tool("tool_search", {"query": item.query})
        hits = {tool["name"] for tool in json.loads(found.content[0].text).get("tools", [])}
        for name, shown, arguments in calls:
            check.calls += 1
            result = await client.call_tool("tool_call", {"name": shown, "arguments": arguments})
            if result.is_error:
                check.refused.append(f"{name}: {result.content[0].text[:200]}")
                continue
            check.calls_ok += 1
            listed[name] = shown in hits
            check.listed += listed[name]
    return listed


async def replay_gateway(
    url: str,
    past: Sequence[LabelledQuery],
    future: Sequence[LabelledQuery],
    catalog: Catalog,
    scored: Mapping[str, str],
    tools: Served,
    *,
    mode: str,
    wire: str,
    check: Check,
) -> tuple[dict[str, list[str]], dict[str, dict[str, bool]]]:
    """History (when given) then the future searches: query -> hits mapped back to catalog names, and per history
    request, each successfully called tool -> whether its session's search listed it."""
    names: dict[str, str] = {}
    for tool in catalog:
        names.setdefault(scored.get(tool.name, tool.name), tool.name)
    limiter = anyio.Semaphore(CONCURRENCY)
    listed: dict[str, dict[str, bool]] = {}

    async def one_past(number: int, item: LabelledQuery) -> None:
        calls = [
            (n, tools.wire[n], minimal(catalog[n].parameters)) for n in (names[g] for g in item.gold if g in names)
        ]
        async with limiter:
            listed.setdefault(item.query, {}).update(await history_one(url, wire, item, calls, check))

    async with anyio.create_task_group() as group:
        for number, item in enumerate(past):
            group.start_soon(one_past, number, item)
    if past:
        await anyio.sleep(1.0)  # the recorder writes on its own thread; the ranking re-reads every 0.25 s
        if mode == "hybrid":  # past requests are embedded in the background once a search needs them
            await search(url, wire, past[0].query)
            await anyio.sleep(2.0 + EMBED_S_PER_REQUEST * len(past))
    hits: dict[str, list[str]] = {}

    async def one_future(item: LabelledQuery) -> None:
        async with limiter:
            found = await search(url, wire, item.query)
        check.foreign_hits += sum(name not in tools.catalog for name in found)
        hits[item.query] = [tools.catalog.get(name, name) for name in found]

    async with anyio.create_task_group() as group:
        for item in future:
            group.start_soon(one_future, item)
    return hits, listed


def check_store(data: Path, listed: Mapping[str, Mapping[str, bool]], tools: Served, check: Check) -> None:
    """The learning gateway's store after the history, against what each history session did."""
    store = open_usage_store(str(data / "sessions.sqlite3"), UsageBounds.from_settings(LearningSettings()))
    try:
        pairs = export_pairs(store)
    finally:
        store.close()
    check.pairs += len(pairs)
    check.sessions += len({pair.session for pair in pairs})
    clip = LearningSettings().max_request_bytes
    stored: dict[str, dict[str, bool]] = {}  # the stored (clipped) request -> what its sessions called, listed
    for request, called in listed.items():
        stored.setdefault(request.encode()[:clip].decode(errors="ignore"), {}).update(called)
    for pair in pairs:
        check.missed += pair.missed
        if not pair.request:
            check.uses += 1
            continue
        was_listed = stored.get(pair.request, {}).get(tools.catalog.get(pair.tool, pair.tool))
        if was_listed is None:  # a tool no session of this request called: credited across sessions
            check.cross += 1
        else:
            check.missed_right += pair.missed == (not was_listed)


class Answered:
    """A `SearchIndex` over answers already fetched from a gateway (so `evaluate` scores them as in-process)."""

    def __init__(self, hits: Mapping[str, list[str]], catalog: Catalog) -> None:
        self._hits = hits
        self._catalog = catalog

    @property
    def fingerprint(self) -> str:
        return self._catalog.fingerprint

    def search(
        self, query: str, *, limit: int = 5, mode: SearchMode = "lexical", allowed: Set[str] | None = None
    ) -> SearchResult:
        names = self._hits[query][:limit]
        found = tuple(
            SearchHit(name=name, score=float(len(names) - rank), namespace=None) for rank, name in enumerate(names)
        )
        return SearchResult(query=query, mode=mode, hits=found, total=len(found))


def built(index: SearchIndex) -> Any:
    return lambda _catalog: index


async def measure(
    groups: Groups, *, mode: str, wire: str, history: float, seed: int, most: int | None, check: Check
) -> dict[str, object]:
    """Pooled (weighted by requests) R@1/R@5 per split and state, and the history size."""
    sums: dict[tuple[str, str], list[float]] = {}
    fed = 0
    for catalog, queries, scored in groups:
        kept = list(queries)[:most] if most else list(queries)
        past, future = split_history(kept, history=history, seed=seed)
        fed += len(past)
        with tempfile.TemporaryDirectory() as folder:
            tools = served(catalog, Path(folder))
            answers: dict[str, dict[str, list[str]]] = {}
            async with gateway(Path(folder), tools, mode=mode, learning=False) as off:
                answers["off"], _ = await replay_gateway(
                    off.url, [], future, catalog, scored, tools, mode=mode, wire=wire, check=check
                )
            async with gateway(Path(folder), tools, mode=mode, learning=True) as on:
                answers["on"], listed = await replay_gateway(
                    on.url, past, future, catalog, scored, tools, mode=mode, wire=wire, check=check
                )
                check_store(on.data, listed, tools, check)
        seen_tools = {name for item in past for name in item.gold}
        splits = {
            "all": future,
            "seen": [item for item in future if seen_tools.intersection(item.gold)],
            "never": [item for item in future if not seen_tools.intersection(item.gold)],
        }
        for split, items in splits.items():
            if not items:
                continue
            for state, hits in answers.items():
                report: EvalReport = evaluate(
                    catalog, items, build=built(Answered(hits, catalog)), ks=(1, 5), mode=mode, aliases=scored
                )
                n, r1, r5 = sums.setdefault((split, state), [0.0, 0.0, 0.0])
                sums[split, state] = [n + report.n, r1 + report.n * report.recall[1], r5 + report.n * report.recall[5]]
    rows = {
        f"{split}/{state}": {"n": int(n), "r1": r1 / n, "r5": r5 / n}
        for (split, state), (n, r1, r5) in sums.items()
        if n
    }
    return {"history": fed, **rows}


def markdown(
    results: dict[str, dict[str, dict[str, object]]], checks: dict[str, Check], args: argparse.Namespace, took: float
) -> str:
    most = f" --most {args.most}" if args.most else ""
    lines = [
        "# Learning from use, replayed through the gateway (issue 40)",
        "",
        f"`python bench/learning_serve_replay.py --history {args.history} --seed {args.seed}"
        f' --sets "{args.sets}" --modes {args.modes} --wire {args.wire}{most}` ({took:.0f} s). Each set\'s catalog'
        " served by `bench/servers/catalog_server.py` behind `toolscout serve --transport http`, learning on (its"
        " default"
        " SQLite store in a fresh data dir) and, in the same run, a fresh gateway with learning off. Requests"
        f" shuffled (seed {args.seed}) as `bench/learning_replay.py` shuffles them"
        + (f", each set (each tooldata group) cut to its first {args.most} first" if args.most else "")
        + f"; the first {args.history:.0%} replayed on the learning gateway, each in its own MCP session"
        " (`tool_search`, then `tool_call` of each gold tool with the least arguments its schema accepts); the rest"
        " searched in fresh MCP sessions on both (`tool_search`, default limit 5), hits mapped back from"
        " `<upstream>__<tool>` (one catalog server per namespace, `cat` for tools without one). *seen*: a gold tool"
        " appeared in the history; *never*: none did. Learning settings:"
        " the defaults.",
        "",
        *table(results),
    ]
    lines += [
        "",
        "Recorder path (learning gateway, after the history): calls made, succeeded, listed by the same session's"
        " search; pairs in the store, of them uses (a call credited to no search, an empty request) and pairs marked"
        " missed, the distinct learning sessions they name, pairs of a request whose tool the request's own"
        " session never called (credited across sessions), pairs of a session's own call marked missed exactly when"
        " its search had not listed the tool; hits outside the upstream's namespace (future searches, both gateways).",
        "",
        "| set | engine | calls | ok | listed | pairs | uses | missed | sessions | cross-session | missed flag right"
        " | foreign hits |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key, check in checks.items():
        name, mode = key.split("|")
        lines.append(
            f"| {name} | {mode} | {check.calls} | {check.calls_ok} | {check.listed} | {check.pairs} | {check.uses} |"
            f" {check.missed} | {check.sessions} | {check.cross} | {check.missed_right} | {check.foreign_hits} |"
        )
    refused = [example for check in checks.values() for example in check.refused][:5]
    if refused:
        lines += ["", "Refused calls (first 5): " + "; ".join(f"`{r}`" for r in refused)]
    return "\n".join(lines) + "\n"


async def run(args: argparse.Namespace) -> None:
    loaders = {
        "BFCL tuning": lambda: bfcl(TUNING_CATEGORIES),
        "BFCL live (held out)": lambda: bfcl(LIVE_CATEGORIES),
        "tooldata dev": lambda: tooldata(args.tooldata, args.per_source),
        "sample": sample,
    }
    started = time.perf_counter()
    results: dict[str, dict[str, dict[str, object]]] = {}
    checks: dict[str, Check] = {}
    for name in args.sets.split(","):
        groups = loaders[name]()
        for mode in args.modes.split(","):
            check = checks[f"{name}|{mode}"] = Check()
            found = await measure(
                groups, mode=mode, wire=args.wire, history=args.history, seed=args.seed, most=args.most, check=check
            )
            results.setdefault(name, {})[mode] = found
            print(name, mode, json.dumps(found), check, flush=True)
    text = markdown(results, checks, args, time.perf_counter() - started)
    if args.out.name != "-":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    print(text)


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", default="lexical,hybrid")
    parser.add_argument("--sets", default="BFCL tuning,BFCL live (held out),tooldata dev,sample")
    parser.add_argument("--wire", choices=WIRES, default="session", help="how the client speaks (see WIRES)")
    parser.add_argument("--most", type=int, default=None, help="Keep each set's (tooldata group's) first N requests.")
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent.parent / "shared" / "tooldata")
    parser.add_argument("--per-source", type=int, default=200)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "learning_serve_replay.md")
    args = parser.parse_args(argv)
    if not args.tooldata.exists():
        args.tooldata = Path("/work/shared/tooldata")
    anyio.run(run, args)


if __name__ == "__main__":
    main(sys.argv[1:])
