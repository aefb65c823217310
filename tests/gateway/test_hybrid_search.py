"""The gateway's tool_search runs the hybrid engine: lexical at start, hybrid once embeddings are in."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.conftest import require
from tests.gateway.conftest import LIMIT_S, gateway_log, http_client, http_gateway, payload, real_servers, write_config
from toolscout._texts import Search

pytestmark = pytest.mark.anyio


async def test_the_gateway_answers_at_once_then_searches_hybrid_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require(importlib.util.find_spec("onnxruntime") is not None, "hybrid search needs toolscout[semantic]")
    monkeypatch.setenv("TOOLSCOUT_SEARCH_MODE", "auto")  # the default a user gets
    servers = real_servers(tmp_path)
    config = write_config(tmp_path / "gw.json", {"time": servers["time"], "memory": servers["memory"]}, mode="on")

    async with http_gateway(config) as url, http_client(url) as client:
        health: dict[str, Any] = {}
        with anyio.fail_after(LIMIT_S):
            while health.get("search", {}).get("embeddings") != "ready":
                health = httpx2.get(url.replace("/mcp", "/healthz")).json()
                await anyio.sleep(0.2)
        # No word of this request is in any tool's text: only the embeddings connect it to the clock.
        found = payload(await client.call_tool("tool_search", {"query": "what hour is it in Tokyo"}))
        off_topic = payload(await client.call_tool("tool_search", {"query": "brew a cup of coffee"}))

    assert health["search"]["mode"] == "hybrid"
    assert "onnx" in health["search"]["embedder"]
    assert found["tools"] and found["tools"][0]["name"].startswith("time__")
    assert all(0.0 <= tool["confidence"] <= 1.0 for tool in found["tools"])
    # Nothing serves it: no tools, a plain statement, and the nearest names to check.
    assert off_topic["tools"] == [] and off_topic["hint"] == Search.NO_FIT
    assert off_topic["suggestions"] and all("__" in name for name in off_topic["suggestions"])
    started = [record["message"] for record in gateway_log(config) if record["message"].startswith("search:")]
    assert started and "hybrid with the onnx embedder" in started[0]
