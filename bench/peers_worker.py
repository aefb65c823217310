"""Run a peer project's own tool-search code over a catalog and queries; runs inside .bench-venv/.

The peers and their dependencies stay out of the project's environment, so `compare_retrieval.py`
starts this script with `.bench-venv/bin/python` (made by `bench/setup.sh`). It imports only the peer's
package, never toolscout.

    python bench/peers_worker.py SYSTEM INPUT.json  ->  stdout: {"build_s", "rankings", "latencies_ms", "version"}

INPUT.json is {"tools": [{"name", "description", "parameters"}, ...], "queries": [str, ...], "limit": int}.
SYSTEM is one of:

- ``fastmcp-bm25``: FastMCP's `BM25SearchTransform._search`, the coroutine its `search_tools` tool
  awaits on every call (it re-hashes the catalog each call and rebuilds its index when it changed).
- ``pydantic-ai-keywords``: pydantic-ai's `ToolSearchToolset._run_keywords_search`, the local
  keyword-overlap search its `search_tools` function runs for deferred tools.

Build time is the first call (both peers build their index lazily on the first search).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

Search = Callable[[str], list[str]]


def fastmcp_bm25(tools: Sequence[dict[str, Any]], limit: int) -> tuple[Search, str]:
    import fastmcp
    from fastmcp.server.transforms.search import BM25SearchTransform
    from fastmcp.tools.base import Tool

    transform = BM25SearchTransform(max_results=limit)
    catalog = [Tool(name=t["name"], description=t["description"], parameters=t["parameters"]) for t in tools]
    loop = asyncio.new_event_loop()

    def search(query: str) -> list[str]:
        found = loop.run_until_complete(transform._search(catalog, query))
        return [tool.name for tool in found]

    return search, fastmcp.__version__


def pydantic_ai_keywords(tools: Sequence[dict[str, Any]], limit: int) -> tuple[Search, str]:
    import pydantic_ai
    from pydantic_ai.exceptions import ModelRetry
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.toolsets._tool_search import ToolSearchToolset

    toolset = ToolSearchToolset(wrapped=FunctionToolset([]), max_results=limit)
    corpus = [
        ToolDefinition(
            name=t["name"], description=t["description"], parameters_json_schema=t["parameters"], defer_loading=True
        )
        for t in tools
    ]
    # The two attributes `_run_keywords_search` reads from its search tool.
    search_tool = SimpleNamespace(corpus=corpus, discovered_tool_names=set())

    def search(query: str) -> list[str]:
        try:
            result = toolset._run_keywords_search([query], search_tool)  # type: ignore[arg-type]  # duck-typed: only .corpus and .discovered_tool_names are read
        except ModelRetry:  # raised for a query without a single ASCII word
            return []
        return [match["name"] for match in result["discovered_tools"]]

    return search, pydantic_ai.__version__


SYSTEMS: dict[str, Callable[[Sequence[dict[str, Any]], int], tuple[Search, str]]] = {
    "fastmcp-bm25": fastmcp_bm25,
    "pydantic-ai-keywords": pydantic_ai_keywords,
}


def main(argv: Sequence[str]) -> None:
    system, input_path = argv
    data = json.loads(Path(input_path).read_text(encoding="utf-8"))
    search, version = SYSTEMS[system](data["tools"], int(data["limit"]))
    started = time.perf_counter()
    search("find a tool")
    build_s = time.perf_counter() - started
    rankings: list[list[str]] = []
    latencies: list[float] = []
    for query in data["queries"]:
        started = time.perf_counter()
        rankings.append(search(query))
        latencies.append((time.perf_counter() - started) * 1000)
    json.dump({"build_s": build_s, "rankings": rankings, "latencies_ms": latencies, "version": version}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
