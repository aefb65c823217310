"""What each caller of a real HTTP gateway may see: its token's scope on every endpoint, and no `${VAR}` secret.

The gateway fronts two real servers (time, memory) and two that fail (an HTTP server whose URL and
header carry secrets from the environment, a stdio server that prints its secret argument and exits),
behind three tokens: one full, one limited to a server, one limited to a tool pattern.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx2
import pytest

from tests.conftest import free_port
from tests.gateway.conftest import LIMIT_S, TOOLSCOUT, http_client, http_gateway, payload, real_servers, write_config

pytestmark = pytest.mark.anyio

TOKENS = {
    "full": "full-token-5c1e9a2b7d3f4e60",
    "timeonly": "time-token-8b2d4f6a1c3e5d70",
    "readers": "read-token-3e7a1c9b5d2f4860",
}
SCRAPER = "scrape-token-9d4b2e6f8a1c3570"
SECRETS = {
    "EXA_API_KEY": "exa-key-2f8c1d9e7b6a5430",
    "EXA_HEADER": "hdr-secret-71c3b9e2d4a8f605",
    "BROKEN_SECRET": "stdio-arg-secret-4d2a9c7e1b",
    "EMBED_PASSWORD": "embed-pw-93a1c7e5d2b8f604",
    "EMBED_KEY": "embed-key-1a9c3e5b7d2f8064",
}
VISIBLE = {
    "timeonly": ({"time"}, {"time__get_current_time", "time__convert_time"}),
    "readers": ({"memory"}, {"memory__read_graph"}),
}
# Strings that only a view of another scope contains.
FOREIGN = {
    "timeonly": ("memory__", "exasearch", "brokenstdio", "full token's private question"),
    "readers": ("time__", "get_current_time", "exasearch", "brokenstdio", "full token's private question"),
}
_BROKEN = "import sys; print('rejected key', sys.argv[1], file=sys.stderr); sys.exit(3)"


@pytest.fixture(autouse=True)
def secrets_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)


def failing_servers() -> dict[str, Any]:
    """An HTTP server nobody listens for, with secrets in its URL and header; a stdio server that exits."""
    return {
        "exasearch": {
            "url": f"http://127.0.0.1:{free_port()}/mcp?exaApiKey=${{EXA_API_KEY}}&tier=pro",
            "headers": {"Authorization": "Bearer ${EXA_HEADER}"},
        },
        "brokenstdio": {"command": sys.executable, "args": ["-c", _BROKEN, "${BROKEN_SECRET}"]},
    }


def config(tmp_path: Path, *, admin: bool = False) -> Path:
    servers = real_servers(tmp_path)
    tokens: dict[str, Any] = {
        "full": {"token": TOKENS["full"]},
        "timeonly": {"token": TOKENS["timeonly"], "servers": ["time"]},
        "readers": {"token": TOKENS["readers"], "tools": ["memory__read_*"]},
    }
    if admin:
        tokens["scraper"] = {"token": SCRAPER, "servers": [], "admin": True}
    chosen = {"time": servers["time"], "memory": servers["memory"], **failing_servers()}
    return write_config(tmp_path / "gw.json", chosen, mode="on", auth={"tokens": tokens})


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def page_views(http: httpx2.AsyncClient, base: str, token: str) -> dict[str, httpx2.Response]:
    """Every HTTP endpoint but /mcp, as `token` sees it."""
    paths = {
        "catalog": "/ui/api/catalog",
        "search": "/ui/api/search?q=graph%20time%20search%20read&limit=50",
        "activity": "/ui/api/activity",
        "budget": "/ui/api/budget",
        "healthz": "/healthz",
        "metrics": "/metrics",
    }
    return {name: await http.get(base + path, headers=bearer(token)) for name, path in paths.items()}


async def search_as(url: str, token: str, query: str) -> Any:
    async with http_client(url, token=token) as client:
        return payload(await client.call_tool("tool_search", {"query": query}))


async def test_each_limited_token_sees_only_its_scope_on_every_http_endpoint(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path)) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            base = url.removesuffix("/mcp")
            await search_as(url, TOKENS["full"], "the full token's private question about graphs")
            await search_as(url, TOKENS["timeonly"], "what time is it")
            await search_as(url, TOKENS["readers"], "read the graph")
            views = {label: await page_views(http, base, TOKENS[label]) for label in VISIBLE}
            full = await page_views(http, base, TOKENS["full"])

    # The full token sees every server and tool, failed ones included.
    assert {server["name"] for server in full["catalog"].json()["servers"]} == {
        "time",
        "memory",
        "exasearch",
        "brokenstdio",
    }
    for label, (servers, tools) in VISIBLE.items():
        seen = views[label]
        catalog = seen["catalog"].json()
        assert {server["name"] for server in catalog["servers"]} == servers, label
        assert {tool["name"] for tool in catalog["tools"]} == tools, label
        for column in seen["search"].json()["results"].values():
            assert {hit["name"] for hit in column["hits"]} <= tools, label
        events = seen["activity"].json()["events"]
        assert events and {event["label"] for event in events} == {label}, label
        assert {server["name"] for server in seen["budget"].json()["servers"]} <= servers, label
        assert {entry["name"] for entry in seen["healthz"].json()["upstreams"]} == servers, label
        # Tool counts are those of the token's scope (memory has nine tools, this token may see one).
        assert sum(server["tools"] for server in catalog["servers"]) == len(tools), label
        assert sum(entry["tools"] for entry in seen["healthz"].json()["upstreams"]) == len(tools), label
        assert seen["metrics"].status_code == 403, label
        for name, response in seen.items():
            for foreign in FOREIGN[label]:
                assert foreign not in response.text, (label, name, foreign)


async def test_metrics_answer_only_an_admin_grant(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path, admin=True)) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            base = url.removesuffix("/mcp")
            await search_as(url, TOKENS["timeonly"], "what time is it")
            metrics = {label: await http.get(f"{base}/metrics", headers=bearer(TOKENS[label])) for label in TOKENS}
            scraped = await http.get(f"{base}/metrics", headers=bearer(SCRAPER))
            anonymous = await http.get(f"{base}/metrics")
            activity = (await http.get(f"{base}/ui/api/activity", headers=bearer(SCRAPER))).json()["events"]
            catalog = (await http.get(f"{base}/ui/api/catalog", headers=bearer(SCRAPER))).json()
    for label, response in metrics.items():
        assert response.status_code == 403, label
        assert "admin" in response.json()["error"] and "exasearch" not in response.text
    assert anonymous.status_code == 401
    assert scraped.status_code == 200 and 'toolscout_upstream_up{state="failed",upstream="exasearch"}' in scraped.text
    assert [event["label"] for event in activity] == ["timeonly"]  # an admin reads every token's activity
    assert catalog["tools"] == []  # and the tools of its own scope only


def leaked(text: str) -> list[str]:
    """The secrets (as written or URL-encoded) that `text` contains."""
    return [name for name, value in SECRETS.items() if value in text or quote(value, safe="") in text]


async def test_no_secret_from_an_environment_variable_appears_in_any_answer_or_log(tmp_path: Path) -> None:
    answers: list[str] = []
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path)) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            base = url.removesuffix("/mcp")
            for token in TOKENS.values():
                answers += [response.text for response in (await page_views(http, base, token)).values()]
            answers.append((await http.get(f"{base}/healthz")).text)
            async with http_client(url, token=TOKENS["full"]) as client:
                search = await client.call_tool("tool_search", {"query": "exa web search"})
                call = await client.call_tool("tool_call", {"name": "exasearch__web_search", "arguments": {}})
            answers += [json.dumps(payload(search)), json.dumps(payload(call))]
            servers = {server["name"]: server for server in json.loads(answers[0])["servers"]}
    log = (tmp_path / "gateway.log").read_text()
    # The failures happened, and are explained without their secrets.
    assert servers["exasearch"]["state"] == "failed" and "cannot reach" in servers["exasearch"]["error"]
    assert "exaApiKey=" in servers["exasearch"]["error"] and "tier=" in servers["exasearch"]["error"]
    assert servers["brokenstdio"]["state"] == "failed"
    assert "rejected key" in log
    for text in answers:
        assert not leaked(text), text
    assert not leaked(log), [line for line in log.splitlines() if leaked(line)][:3]


async def test_a_full_token_health_counts_failed_upstreams_and_status_exits_1(tmp_path: Path) -> None:
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config(tmp_path)) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            base = url.removesuffix("/mcp")
            full = (await http.get(f"{base}/healthz", headers=bearer(TOKENS["full"]))).json()
            readers = (await http.get(f"{base}/healthz", headers=bearer(TOKENS["readers"]))).json()
            status = await anyio.run_process(
                [TOOLSCOUT, "status", "--url", url, "--token", TOKENS["full"]], check=False
            )
    assert full["status"] == "degraded"
    states = {entry["name"]: entry["state"] for entry in full["upstreams"]}
    assert states == {"time": "connected", "memory": "connected", "exasearch": "failed", "brokenstdio": "failed"}
    assert readers["status"] == "ok" and [entry["name"] for entry in readers["upstreams"]] == ["memory"]
    assert status.returncode == 1, status.stdout.decode()
    assert "exasearch" in status.stdout.decode()


def open_config(tmp_path: Path) -> Path:
    """A gateway without tokens, its embedding endpoint reached with credentials from the environment."""
    embeddings = {
        "backend": "openai-compatible",
        "url": f"http://user:${{EMBED_PASSWORD}}@127.0.0.1:{free_port()}/v1?key=${{EMBED_KEY}}",
        "model": "embedder",
    }
    servers = {"time": real_servers(tmp_path)["time"], **failing_servers()}
    return write_config(tmp_path / "open.json", servers, search_mode="hybrid", embeddings=embeddings)


async def test_without_tokens_health_explains_the_embedding_failure_without_its_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLSCOUT_SEARCH_MODE", "hybrid")
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(open_config(tmp_path)) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            health = url.replace("/mcp", "/healthz")
            while (report := (await http.get(health)).json())["search"]["embeddings"] != "failed":
                await anyio.sleep(0.1)
            answer = (await http.get(health)).text
    assert "embedding endpoint" in report["search"]["error"]
    assert not leaked(answer), answer
    assert not leaked((tmp_path / "gateway.log").read_text())


async def test_a_foreign_host_header_is_refused_on_every_endpoint_of_a_loopback_gateway(tmp_path: Path) -> None:
    paths = ("/healthz", "/metrics", "/ui/api/catalog", "/ui/api/activity", "/ui/api/budget", "/ui/", "/ui/app.js")
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(open_config(tmp_path)) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
            base = url.removesuffix("/mcp")
            foreign = {path: await http.get(base + path, headers={"Host": "evil.example:80"}) for path in paths}
            own = {path: await http.get(base + path) for path in paths}
            origin = await http.get(base + "/ui/api/catalog", headers={"Origin": "http://evil.example"})
    for path in paths:
        assert foreign[path].status_code == 421, path
        assert own[path].status_code == 200, path
    assert origin.status_code == 403


def test_config_import_accepts_a_token_given_as_an_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI_TOKEN", TOKENS["full"])
    file = tmp_path / "agent.json"
    section = {"auth": {"tokens": {"ci": {"token": "${CI_TOKEN}", "servers": ["time"]}}}}
    file.write_text(json.dumps({"capabilities": {"tool_search": {"threshold": 20}}, "toolscout": section}))
    done = subprocess.run(
        [TOOLSCOUT, "config", "import", str(file)], capture_output=True, text=True, timeout=LIMIT_S, check=False
    )
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)["toolscout"]
    assert printed["auth"]["tokens"]["ci"]["token"] == "${CI_TOKEN}"  # printed as written, never expanded
    assert TOKENS["full"] not in done.stdout + done.stderr
