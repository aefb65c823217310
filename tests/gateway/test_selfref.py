"""A config that lists the gateway as its own upstream is refused with one clear line, not respawned forever."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.conftest import free_port
from tests.gateway.conftest import (
    LIMIT_S,
    TOOLSCOUT,
    gateway_log,
    http_gateway,
    slow_server,
    stdio_gateway,
    text,
    tools_once,
    write_config,
)
from toolscout.gateway._config._chain import gateway_id
from toolscout.gateway._config._model import load_config


def serve(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLSCOUT, "serve", str(config), *extra],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_a_stdio_upstream_running_toolscout_serve_on_the_same_config_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    me = {"command": TOOLSCOUT, "args": ["serve", "gw.json"], "cwd": str(tmp_path)}
    config.write_text(json.dumps({"mcpServers": {"me": me}, "toolscout": {"store": "memory"}}))
    done = serve(config)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "mcpServers.me" in done.stderr and "its own upstream" in done.stderr


def test_an_http_upstream_at_the_gateways_own_address_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    servers = {"loop": {"url": "http://localhost:18765/mcp"}}
    config.write_text(json.dumps({"mcpServers": servers, "toolscout": {"port": 18765, "store": "memory"}}))
    done = serve(config, "--transport", "http")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "mcpServers.loop" in done.stderr and "this gateway's own address" in done.stderr


def gateways_running(folder: Path) -> list[int]:
    """Pids of the `toolscout serve` processes serving a config in `folder`."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            here = Path(os.readlink(entry / "cwd")) == folder
        except OSError:
            continue
        if b"serve" in words and (here or any(word.startswith(str(folder).encode()) for word in words)):
            pids.append(int(entry.name))
    return pids


def loop_configs(folder: Path) -> Path:
    """a.json lists B (`toolscout serve b.json`, its logs in gateway.log too), whose config lists A: a loop."""
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    b = f"exec {TOOLSCOUT} serve b.json -v --log-format json 2>>gateway.log"
    a_servers = {
        "other": slow_server(folder / "alpha", 0, "alpha"),
        "b": {"command": "sh", "args": ["-c", b], "cwd": str(folder), "env": env},
    }
    b_servers = {
        "beta": slow_server(folder / "beta", 0, "beta"),
        "a": {"command": TOOLSCOUT, "args": ["serve", "a.json"], "cwd": str(folder), "env": env},
    }
    write_config(folder / "b.json", b_servers, store="memory")
    return write_config(folder / "a.json", a_servers, store="memory")


@pytest.mark.anyio
async def test_a_gateway_that_its_upstream_gateway_starts_again_refuses_and_nothing_spawns_forever(
    tmp_path: Path,
) -> None:
    config = loop_configs(tmp_path)
    counts: list[int] = []
    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            tools = await tools_once(client, lambda names: {"other__alpha", "b__beta__beta"} <= names)
            for _ in range(40):  # 8 s: before the fix a new gateway started every second or two
                counts.append(len(gateways_running(tmp_path)))
                await anyio.sleep(0.2)
            alpha = text(await client.call_tool("other__alpha", {}))
    assert alpha == "pong" and "b__beta__beta" in tools
    assert max(counts) <= 3, counts  # A, B, and at most one short-lived copy of A that refuses
    refusals = [r["message"] for r in gateway_log(config) if "gateway loop" in r["message"]]
    a, b = gateway_id(load_config(tmp_path / "a.json")), gateway_id(load_config(tmp_path / "b.json"))
    assert refusals and f"{a} → {b} → {a}" in refusals[0] and "upstream 'a'" in refusals[0]
    assert str(tmp_path) not in refusals[0] and socket.gethostname() not in refusals[0]
    with anyio.fail_after(LIMIT_S):
        while gateways_running(tmp_path):
            await anyio.sleep(0.1)


def test_a_gateway_started_more_than_eight_gateways_deep_is_refused(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"beta": slow_server(tmp_path / "beta", 0, "beta")}, store="memory")
    chain = [f"{socket.gethostname()}:{tmp_path}/g{depth}.json" for depth in range(8)]
    done = subprocess.run(
        [TOOLSCOUT, "serve", str(config)],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        env={**os.environ, "TOOLSCOUT_GATEWAY_CHAIN": json.dumps(chain)},
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "gateways nested more than 8 deep" in done.stderr and f" → {gateway_id(load_config(config))})" in done.stderr
    assert str(tmp_path) not in done.stderr and socket.gethostname() not in done.stderr


@pytest.mark.anyio
async def test_an_http_gateway_refuses_a_gateway_upstream_whose_chain_already_holds_it(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"beta": slow_server(tmp_path / "beta", 0, "beta")}, store="memory")
    me, other = gateway_id(load_config(config)), "5f0e2a9c4b7d1e3a8c6b2d40"
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        headers = {"Accept": "application/json, text/event-stream"}
        looped = await http.post(
            url, json=initialize, headers={**headers, "Toolscout-Gateway-Chain": json.dumps([me, other])}
        )
        fine = await http.post(
            url, json=initialize, headers={**headers, "Toolscout-Gateway-Chain": json.dumps([other])}
        )
    assert looped.status_code == 508
    message = looped.json()["error"]["message"]
    assert f"gateway loop {me} → {other} → {me}" in message
    assert str(tmp_path) not in message and socket.gethostname() not in message
    assert fine.status_code != 508


@pytest.mark.anyio
async def test_an_eight_link_chain_gets_a_508_that_names_no_host_or_config_path(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"beta": slow_server(tmp_path / "beta", 0, "beta")}, store="memory")
    chain = [f"{depth:024x}" for depth in range(8)]
    async with http_gateway(config) as url, httpx2.AsyncClient(timeout=LIMIT_S) as http:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        headers = {"Accept": "application/json, text/event-stream", "Toolscout-Gateway-Chain": json.dumps(chain)}
        deep = await http.post(url, json=initialize, headers=headers)
    assert deep.status_code == 508
    message = deep.json()["error"]["message"]
    assert "more than 8 deep" in message and gateway_id(load_config(config)) in message
    assert str(tmp_path) not in message and socket.gethostname() not in message


class _HeaderRecorder(BaseHTTPRequestHandler):
    seen: list[str | None] = []

    def do_POST(self) -> None:
        self.seen.append(self.headers.get("Toolscout-Gateway-Chain"))
        self.send_error(503)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.mark.anyio
async def test_upstreams_receive_the_chain_as_digests_naming_no_host_or_config_path(tmp_path: Path) -> None:
    listener = ThreadingHTTPServer(("127.0.0.1", 0), _HeaderRecorder)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    received = tmp_path / "chain.txt"
    write_chain = "import os, sys; open(sys.argv[1], 'w').write(os.environ['TOOLSCOUT_GATEWAY_CHAIN'])"
    servers = {
        "stdio": {"command": sys.executable, "args": ["-c", write_chain, str(received)]},
        "remote": {"url": f"http://127.0.0.1:{listener.server_address[1]}/mcp"},
    }
    config = write_config(tmp_path / "gw.json", servers, store="memory")
    try:
        async with http_gateway(config):
            pass
    finally:
        listener.shutdown()
        listener.server_close()
    expected = [gateway_id(load_config(config))]
    for sent in (received.read_text(), *(header or "" for header in _HeaderRecorder.seen)):
        assert socket.gethostname() not in sent and str(tmp_path) not in sent, sent
    assert json.loads(received.read_text()) == expected
    assert _HeaderRecorder.seen and all(json.loads(header or "null") == expected for header in _HeaderRecorder.seen)


async def upstream_states(http: httpx2.AsyncClient, gateway_url: str) -> dict[str, dict[str, Any]]:
    health = await http.get(gateway_url.removesuffix("/mcp") + "/healthz")
    return {entry["name"]: entry for entry in health.json()["upstreams"]}


@pytest.mark.anyio
async def test_two_http_gateways_started_apart_that_list_each_other_find_the_loop(tmp_path: Path) -> None:
    port_a, port_b = free_port(), free_port()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a_servers = {"alpha": slow_server(tmp_path / "alpha", 0, "alpha"), "b": {"url": f"http://127.0.0.1:{port_b}/mcp"}}
    b_servers = {"beta": slow_server(tmp_path / "beta", 0, "beta"), "a": {"url": f"http://127.0.0.1:{port_a}/mcp"}}
    a = write_config(tmp_path / "a" / "a.json", a_servers, store="memory", port=port_a)
    b = write_config(tmp_path / "b" / "b.json", b_servers, store="memory", port=port_b)
    async with (
        http_gateway(a, "--port", str(port_a)) as url_a,
        http_gateway(b, "--port", str(port_b)) as url_b,
        httpx2.AsyncClient(timeout=LIMIT_S) as http,
    ):
        with anyio.move_on_after(LIMIT_S):
            while True:  # until one gateway refuses the other (before the fix: never; the catalogs churned)
                links = [(await upstream_states(http, url_a))["b"], (await upstream_states(http, url_b))["a"]]
                if any("gateway loop" in (link.get("error") or "") for link in links):
                    break
                await anyio.sleep(0.2)
        counts = []
        for _ in range(10):  # the side that kept its link sees a steady catalog
            settled = [(await upstream_states(http, url_a))["b"], (await upstream_states(http, url_b))["a"]]
            counts.append(tuple(link["tools"] for link in settled))
            await anyio.sleep(0.3)
        a_alpha = (await upstream_states(http, url_a))["alpha"]
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        accept = {"Accept": "application/json, text/event-stream"}
        answers = [await http.post(url, json=initialize, headers=accept) for url in (url_a, url_b)]
    reaches = [json.loads(answer.headers["Toolscout-Gateway-Reach"]) for answer in answers]
    assert sorted(len(reach) for reach in reaches) == [1, 2]  # the side that kept its link reaches the other
    assert not any("json" in link or socket.gethostname() in link for reach in reaches for link in reach)
    refused = [link for link in links if "gateway loop" in (link.get("error") or "")]
    assert len(refused) == 1, links
    a_id, b_id = gateway_id(load_config(a)), gateway_id(load_config(b))
    assert f"{a_id} → {b_id} → {a_id}" in refused[0]["error"] or f"{b_id} → {a_id} → {b_id}" in refused[0]["error"]
    assert len(set(counts)) == 1, counts
    assert a_alpha["state"] == "connected"
