"""Learning from use, seen: a real HTTP gateway's page, /metrics, activity log and `toolscout status` show it.

One real gateway (`toolscout serve --transport http`, SQLite usage store, three tokens) and real MCP clients:
alpha searches, misses, searches again and calls the tool; a fresh alpha session then gets a learned answer,
beta (another learning scope) does not. Each viewer sees only its own scope's requests.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.gateway.conftest import LIMIT_S, SERVERS, TOOLSCOUT, http_client, http_gateway, payload, write_config

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

TOKENS = {"alpha": "token-a-6b0e3d9f12ac47e8", "beta": "token-b-d41f8a2c7e5b9063", "ops": "token-o-93c1e7a04d5b28f6"}
MISSED = "plan the zorblat feast"
"""No tool's text has these words: unlearned search finds nothing for it."""
FOUND = "find recipes"
TOOL = "kitchen__find_recipes"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def bearer(label: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[label]}"}


def status(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([TOOLSCOUT, "status", *args], capture_output=True, text=True, timeout=LIMIT_S)


async def search(url: str, label: str, session: str, query: str) -> Any:
    async with http_client(url, token=TOKENS[label], session=session) as client:
        return payload(await client.call_tool("tool_search", {"query": query}))


async def test_learned_requests_answers_and_pairs_are_shown_to_each_scope_alone(tmp_path: Path) -> None:
    named = {"command": sys.executable, "args": [str(SERVERS / "named.py"), "find_recipes", "list_pantry"]}
    tokens: dict[str, Any] = {label: {"token": token} for label, token in TOKENS.items()}
    tokens["ops"]["admin"] = True
    config = write_config(
        tmp_path / "gateway.json",
        {"kitchen": named},
        mode="on",
        search_mode="lexical",
        port=free_port(),  # nothing listens there once the gateway (on its own port) stops
        auth={"tokens": tokens},
        learning={"enabled": True, "store": "usage.db"},
    )
    with anyio.fail_after(LIMIT_S * 2):
        async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            base = url.removesuffix("/mcp")
            assert (await search(url, "alpha", "first", MISSED))["tools"] == []
            async with http_client(url, token=TOKENS["alpha"], session="first") as client:
                assert TOOL in [
                    tool["name"] for tool in payload(await client.call_tool("tool_search", {"query": FOUND}))["tools"]
                ]
                called = await client.call_tool("tool_call", {"name": TOOL, "arguments": {"query": "basil"}})
                assert not called.is_error
            while not (await http.get(f"{base}/ui/api/learning", headers=bearer("alpha"))).json()["tools"]:
                await anyio.sleep(0.1)  # the recorder writes on its own thread
            await anyio.sleep(1.0)  # past the ranking's re-read interval

            learned = await search(url, "alpha", "second", MISSED)
            other = await search(url, "beta", "elsewhere", MISSED)
            page = {
                label: (await http.get(f"{base}/ui/api/learning", headers=bearer(label))).json() for label in TOKENS
            }
            html = (await http.get(f"{base}/ui/", headers=bearer("alpha"))).text
            script = (await http.get(f"{base}/ui/app.js", headers=bearer("alpha"))).text
            activity = (await http.get(f"{base}/ui/api/activity", headers=bearer("alpha"))).json()["events"]
            metrics = (await http.get(f"{base}/metrics", headers=bearer("ops"))).text
            shown = {label: status("--url", url, "--token", TOKENS[label]) for label in TOKENS}
        probed = status(str(config))

    # The learned answer: alpha's fresh session gets the tool; beta's scope never learned it.
    assert [tool["name"] for tool in learned["tools"]] == [TOOL]
    assert "learned" not in json.dumps(learned)  # nothing model-facing changed
    assert other["tools"] == []

    # The page: per tool, alpha's requests with distinct sessions and the last time; nothing of alpha for others.
    assert 'data-view="learned"' in html and 'id="learned-tools"' in html and 'api("learning")' in script
    alpha = page["alpha"]
    assert (alpha["enabled"], alpha["store"], alpha["scope"], alpha["scopes"]) == (
        True,
        "sqlite",
        "alpha",
        [{"scope": "alpha", "pairs": 2}],
    )
    (tool,) = alpha["tools"]
    assert (tool["name"], tool["pairs"]) == (TOOL, 2)
    requests = {row["request"]: (row["sessions"], row["missed"]) for row in tool["requests"]}
    assert requests == {MISSED: (1, True), FOUND: (1, False)}
    assert all(row["last"] > 0 for row in tool["requests"])
    assert page["beta"]["tools"] == [] and page["beta"]["scopes"] == [{"scope": "beta", "pairs": 0}]
    assert MISSED not in json.dumps(page["beta"]) and "alpha" not in json.dumps(page["beta"])
    # An admin counts every scope's pairs, and still reads only its own scope's requests.
    assert page["ops"]["scopes"] == [{"scope": "alpha", "pairs": 2}, {"scope": "ops", "pairs": 0}]
    assert page["ops"]["tools"] == [] and MISSED not in json.dumps(page["ops"])

    # The activity log and /metrics count the learned answer, once.
    searches = [event for event in activity if event["kind"] == "search" and event["query"] == MISSED]
    assert [event["learned"] for event in searches] == [[], [TOOL]]
    assert "toolscout_learned_answers_total 1.0" in metrics

    # `toolscout status --url`: learning, its store, and the pairs the token may see.
    for done in shown.values():
        assert done.returncode == 0, done.stderr
        assert "learning: on, store sqlite" in done.stdout, done.stdout
    assert _pairs(shown["alpha"].stdout) == {"alpha": 2}
    assert _pairs(shown["beta"].stdout) == {"beta": 0} and "alpha" not in shown["beta"].stdout
    assert _pairs(shown["ops"].stdout) == {"alpha": 2, "ops": 0}
    # `toolscout status CONFIG` with no gateway running: the config's store, read directly.
    assert f"learning: on, store {tmp_path / 'usage.db'}" in probed.stdout, probed.stdout + probed.stderr
    assert _pairs(probed.stdout) == {"alpha": 2}


def _pairs(output: str) -> dict[str, int]:
    """The ``SCOPE  N pairs`` lines of `toolscout status`."""
    rows = [line.split() for line in output.splitlines() if line.endswith(" pairs")]
    return {row[0]: int(row[1]) for row in rows}


async def test_the_page_and_status_say_when_learning_is_off(tmp_path: Path) -> None:
    named = {"command": sys.executable, "args": [str(SERVERS / "named.py"), "find_recipes"]}
    config = write_config(tmp_path / "gateway.json", {"kitchen": named}, mode="on", port=free_port(), learning=False)
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            page = (await http.get(url.removesuffix("/mcp") + "/ui/api/learning")).json()
            shown = status("--url", url)
    assert (page["enabled"], page["tools"], page["scopes"]) == (False, [], [])
    assert shown.returncode == 0 and "learning: off" in shown.stdout, shown.stdout + shown.stderr
