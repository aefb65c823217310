"""Fuzz a running HTTP gateway with Hypothesis-generated JSON-RPC messages and tool arguments.

Every message must be answered within `DEADLINE_S`: a JSON-RPC result (an ``isError`` result for
a refused tool call), a JSON-RPC error, or ``202 Accepted`` for what has no id to answer. An
unhandled exception (JSON-RPC error code 0), an internal error, a 5xx, a non-JSON answer, a
timeout or a dropped connection fails the test; so does a gateway that is unhealthy afterwards.
Messages go both ways the SDK serves them: in a 2025-era session (``Mcp-Session-Id``) and as
2026-07-28 single exchanges (routing headers and the ``_meta`` envelope).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import httpx2
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.gateway.conftest import LIMIT_S, SERVERS, TOOLSCOUT, write_config

DEADLINE_S = 30.0
MODERN = "2026-07-28"
LEGACY = "2025-06-18"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
METHODS = (
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "prompts/list",
    "server/discover",
    "subscriptions/listen",
    "notifications/initialized",
    "notifications/cancelled",
    "completion/complete",
    "logging/setLevel",
)
BRIDGE = ("tool_search", "tool_describe", "tool_call", "output_read", "output_search", "output_query")
UPSTREAM = ("fragile__echo", "fragile__pid", "fragile__garbage", "FRAGILE__ECHO", "echo", "tool_call")


@dataclass
class Gateway:
    url: str
    session: str
    handle: str
    process: subprocess.Popen[bytes]


@dataclass
class Tally:
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def fail(self, kind: str, message: object, detail: str) -> None:
        self.outcomes[kind] += 1
        if len(self.failures) < 10:
            self.failures.append(f"{kind}: {json.dumps(message)[:300]} -> {detail[:300]}")


def answers(response: httpx2.Response) -> list[Any]:
    """The JSON-RPC messages of an answer (a JSON body or the data lines of an SSE stream)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        lines = re.split(r"\r\n|\r|\n", response.text)  # SSE lines; str.splitlines also splits on U+0085
        return [json.loads(line[5:]) for line in lines if line.startswith("data:")]
    return [response.json()]


def post(http: httpx2.Client, url: str, body: bytes, headers: dict[str, str]) -> httpx2.Response:
    return http.post(url, content=body, headers={**ACCEPT, **headers})


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    """`toolscout serve` over HTTP in front of servers/fragile.py, offloading results over 200 tokens."""
    folder = tmp_path_factory.mktemp("fuzz")
    fragile = {"command": sys.executable, "args": [str(SERVERS / "fragile.py"), str(folder / "fragile")]}
    (folder / "fragile").mkdir()
    config = write_config(folder / "gw.json", {"fragile": fragile}, store="memory", offload={"budget_tokens": 200})
    command = [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", "0", "--wait-for-upstreams"]
    with (folder / "gateway.log").open("ab") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().decode().strip()
        assert url.startswith("http"), (folder / "gateway.log").read_text()
        with httpx2.Client(timeout=LIMIT_S) as http:
            hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}
            initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
            started = post(http, url, json.dumps(initialize).encode(), {})
            session = started.headers["mcp-session-id"]
            legacy = {"mcp-session-id": session, "MCP-Protocol-Version": LEGACY}
            post(http, url, b'{"jsonrpc": "2.0", "method": "notifications/initialized"}', legacy)
            big = {
                "name": "fragile__echo",
                "arguments": {"text": json.dumps([{"n": n, "tag": "x" * 20} for n in range(150)])},
            }
            call = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "tool_call", "arguments": big},
            }
            stub = answers(post(http, url, json.dumps(call).encode(), legacy))[0]["result"]["content"][0]["text"]
            handle = re.search(r'"handle": "([^"]+)"', stub)
            assert handle is not None, stub
        yield Gateway(url=url, session=session, handle=handle[1], process=process)
    finally:
        process.terminate()
        process.wait(LIMIT_S)


def json_values(leaf: st.SearchStrategy[Any] | None = None) -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
    return st.recursive(
        scalars if leaf is None else scalars | leaf,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
        max_leaves=12,
    )


def weighted(choices: list[st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of `choices`, each as likely as the others (a strategy listed twice is twice as likely)."""
    return st.integers(min_value=0, max_value=len(choices) - 1).flatmap(lambda index: choices[index])


def tool_arguments(handle: str) -> st.SearchStrategy[tuple[str, Any]]:
    """A bridge or upstream tool name with arguments that are sometimes right and often not."""
    numbers = st.integers(min_value=-(2**40), max_value=2**40)
    words = st.text(max_size=60) | st.sampled_from(["", "echo", "123", "123 456", "echo 5", "*", "fragile__echo"])
    handles = st.sampled_from([handle, handle.upper(), handle[:-1], "out_0", ""]) | st.text(max_size=20)
    jq = st.sampled_from([".", ".[0]", ".[] | .n", "[.[] | .n] | add", "def f: f; f", "[range(1e9)]", "..", "input"])
    by_tool: dict[str, st.SearchStrategy[Any]] = {
        "tool_search": st.fixed_dictionaries(
            {}, optional={"query": words | json_values(), "limit": numbers, "offset": numbers}
        ),
        "tool_describe": st.fixed_dictionaries(
            {"names": st.lists(st.sampled_from(UPSTREAM) | st.text(max_size=30), max_size=5) | json_values()}
        ),
        "tool_call": st.fixed_dictionaries(
            {"name": st.sampled_from(UPSTREAM) | st.text(max_size=30) | json_values()},
            optional={
                "arguments": st.fixed_dictionaries({}, optional={"text": st.text(max_size=200) | json_values()})
                | json_values()
            },
        ),
        "output_read": st.fixed_dictionaries(
            {"handle": handles},
            optional={"start_line": numbers, "lines": numbers, "offset": numbers, "length": numbers},
        ),
        "output_search": st.fixed_dictionaries(
            {"handle": handles},
            optional={
                "pattern": words | st.sampled_from(["(", "a{99999}", "(a+)+$", "n"]),
                "regex": st.booleans(),
                "context": numbers,
            },
        ),
        "output_query": st.fixed_dictionaries({"handle": handles, "expression": jq | st.text(max_size=40)}),
    }
    named = st.sampled_from(BRIDGE).flatmap(lambda name: st.tuples(st.just(name), by_tool[name]))
    anything = st.tuples(st.sampled_from(UPSTREAM) | st.text(max_size=30), json_values())
    return weighted([*[named] * 4, anything])


def messages(handle: str) -> st.SearchStrategy[tuple[str, bytes, dict[str, str]]]:
    """(kind, body, extra headers): tool calls, JSON-RPC-shaped messages, any JSON, and non-JSON bytes."""
    ids = st.integers() | st.text(max_size=10) | st.none() | json_values()
    calls = st.builds(
        lambda call, id_, extra: {
            "jsonrpc": "2.0",
            "id": id_,
            "method": "tools/call",
            "params": {"name": call[0], "arguments": call[1], **extra},
        },
        tool_arguments(handle),
        st.integers(min_value=1, max_value=2**31) | ids,
        st.fixed_dictionaries({}, optional={"_meta": json_values()}),
    )
    shaped = st.fixed_dictionaries(
        {},
        optional={
            "jsonrpc": st.just("2.0") | json_values(),
            "id": ids,
            "method": st.sampled_from(METHODS) | st.text(max_size=20) | json_values(),
            "params": st.dictionaries(st.text(max_size=10), json_values(), max_size=4) | json_values(),
            "result": json_values(),
            "error": json_values(),
        },
    )
    tool_calls = calls.map(lambda m: ("tool call", m))
    others = [
        shaped.map(lambda m: ("json-rpc", m)),
        st.lists(calls | shaped, min_size=1, max_size=3).map(lambda m: ("batch", m)),
        json_values().map(lambda m: ("json", m)),
    ]
    body = weighted([*[tool_calls] * 6, *others])
    encoded = st.tuples(body, st.booleans()).map(lambda pair: _encode(*pair))
    no_headers: dict[str, str] = {}
    garbage = st.binary(max_size=200).map(lambda raw: ("bytes", raw, no_headers))
    return weighted([*[encoded] * 9, garbage])


def _encode(kind_message: tuple[str, Any], modern: bool) -> tuple[str, bytes, dict[str, str]]:
    kind, message = kind_message
    headers: dict[str, str] = {}
    if modern and isinstance(message, dict):
        kind = f"{kind}, {MODERN}"
        headers["MCP-Protocol-Version"] = MODERN
        if _header_value(message.get("method")):
            headers["Mcp-Method"] = message["method"]
        params = message.get("params")
        if isinstance(params, dict):
            message = {**message, "params": {**params, "_meta": ENVELOPE}}
            name = params.get("name")
            if _header_value(name):
                headers["Mcp-Name"] = name
    return kind, json.dumps(message).encode(), headers


def _header_value(value: object) -> TypeGuard[str]:
    """Whether an HTTP client can send `value` as a header (printable ASCII, no surrounding whitespace)."""
    return isinstance(value, str) and value.isascii() and value.isprintable() and value == value.strip()


def judge(tally: Tally, kind: str, message: bytes, response: httpx2.Response) -> None:
    """Count one answer by outcome; anything that is not a clean JSON-RPC answer is a failure."""
    if response.status_code >= 500:
        tally.fail("5xx", message.decode(errors="replace"), f"{response.status_code} {response.text}")
        return
    if response.status_code == 202 and not response.content:
        tally.outcomes["accepted, nothing to answer"] += 1
        return
    try:
        replies = answers(response)
    except ValueError:
        tally.fail("not JSON", message.decode(errors="replace"), f"{response.status_code} {response.text}")
        return
    for reply in replies:
        error = reply.get("error") if isinstance(reply, dict) else None
        result = reply.get("result") if isinstance(reply, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str):
            if error["code"] in (0, -32603):  # an exception nobody handled, or an internal error
                tally.fail(f"error {error['code']}", message.decode(errors="replace"), json.dumps(reply))
            else:
                tally.outcomes[f"JSON-RPC error {error['code']}"] += 1
        elif isinstance(result, dict):
            is_tool = "content" in result
            tally.outcomes["isError result" if result.get("isError") else ("tool result" if is_tool else "result")] += 1
        else:
            tally.fail("not JSON-RPC", message.decode(errors="replace"), json.dumps(reply))


def fuzz(gateway: Gateway, count: int) -> Tally:
    """Send `count` generated messages one after another; every one must be answered in time."""
    tally = Tally()
    legacy = {"mcp-session-id": gateway.session, "MCP-Protocol-Version": LEGACY}
    with httpx2.Client(timeout=DEADLINE_S) as http:

        @settings(
            max_examples=count,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(messages(gateway.handle))
        def send(generated: tuple[str, bytes, dict[str, str]]) -> None:
            kind, body, headers = generated
            tally.outcomes["sent"] += 1
            tally.outcomes[f"sent as {kind}"] += 1
            try:
                response = post(http, gateway.url, body, headers or legacy)
            except httpx2.TimeoutException:
                tally.fail("hang", body.decode(errors="replace"), f"no answer within {DEADLINE_S} s")
            except httpx2.HTTPError as exc:
                tally.fail("connection", body.decode(errors="replace"), repr(exc))
            else:
                judge(tally, kind, body, response)

        send()
    return tally


def healthy(gateway: Gateway) -> None:
    """The gateway still runs, reports ok, and finds and calls a tool for a new client."""
    assert gateway.process.poll() is None
    with httpx2.Client(timeout=LIMIT_S) as http:
        assert http.get(gateway.url.removesuffix("/mcp") + "/healthz").json()["status"] == "ok"
        headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "tool_call"}
        arguments = {"name": "fragile__echo", "arguments": {"text": "still here"}}
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "tool_call", "arguments": arguments, "_meta": ENVELOPE},
        }
        reply = answers(post(http, gateway.url, json.dumps(call).encode(), headers))[0]
    assert reply["result"]["content"][0]["text"] == "still here"


@pytest.mark.parametrize(
    "count", [pytest.param(300, id="sample"), pytest.param(10_000, id="full", marks=pytest.mark.slow)]
)
def test_generated_messages_are_all_answered_cleanly_and_the_gateway_stays_healthy(
    gateway: Gateway, count: int, capsys: pytest.CaptureFixture[str]
) -> None:
    tally = fuzz(gateway, count)
    with capsys.disabled():
        print(f"\nfuzz: {json.dumps(dict(sorted(tally.outcomes.items())), indent=1)}")
    assert tally.outcomes["sent"] == count
    assert not tally.failures, "\n".join(tally.failures)
    healthy(gateway)
