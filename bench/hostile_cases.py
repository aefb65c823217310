"""Issue 41's abuse cases against ``toolscout serve --transport http``: what one client or upstream costs another.

Each case starts a gateway of its own, then a victim client makes ordinary calls for `QUIET_S` seconds
(its quiet p50), then again while the abuse runs (its p50 under abuse); every victim call that fails, is
cancelled, times out or finds its session gone counts as a failure. The gateway's RSS is sampled every
50 ms: growth is the peak during the abuse less the RSS just before it. The abusers run in processes of
their own (``--role``) at niceness 10 (on a deployment they are other machines; here they share the victim's
cores), so their client-side work cannot slow the victim's. Each case also checks what
its defect broke (``checks``: the value and whether it is what the bar asks). Loops are bounded in count
and time; everything stays on 127.0.0.1.

- ``oversize``: another client of a shared stdio server reads a 20 MiB resource again and again (over
  ``upstream_max_message_bytes``); is the server given up, do the calls of a client of that server fail?
  The victim whose p50 is the row's calls another upstream (a stdio pipe is one line after another: a
  caller of the same server waits for the 20 MiB ahead of its answer, so that client's p50 is a fact of
  the row, its failures count).
- ``exchanges``: one token leaves 1,030 2026-07-28 calls at ``input_required``; the other token's call on
  another server, in flight all that time, must still be answered.
- ``sessions``: one token opens sessions with ``"initiali\\u007ae"`` for 6 s; sessions opened vs
  ``new_sessions_per_minute``.
- ``session_ids``: one token makes 10,050 calls, each under a new ``Toolscout-Session``; does the victim's
  idle conversation keep its offloaded output and revealed tools?
- ``jwks_drip`` / ``jwks_huge``: the issuer's key server starts answering one byte every 1.5 s / a 256 MiB
  body; the victim's valid token must keep working.
- ``resources``: another client pages through ``resources/list`` with an upstream listing 500,000 resources.
- ``subscriber``: one subscriber stops reading its stream while its URI updates as fast as the gateway
  takes it (2 KB updates; the server tries 20,000 a second); the other subscriber must keep getting them.
- ``subscribe_lock``: one client subscribes to a server that answers after 12 s; the victim subscribes
  to a healthy one. Then a client subscribes to up to 2,000 URIs and ends its session: are they released?
- ``listen``: one token holds 4,096 ``subscriptions/listen`` streams; can the other token listen?
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx2
from gateway_clients import ROOT, TOOLSCOUT

RAW = [sys.executable, str(ROOT / "bench" / "servers" / "raw_server.py")]
ECHO = [sys.executable, str(ROOT / "bench" / "servers" / "echo_server.py")]
JWKS = [sys.executable, str(ROOT / "bench" / "servers" / "jwks_server.py")]
LEGACY, MODERN = "2025-11-25", "2026-07-28"
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
VICTIM, ATTACKER = "bench-victim-token-0123456789", "bench-attacker-token-0123456"
TOKENS = {"tokens": {"victim": {"token": VICTIM}, "attacker": {"token": ATTACKER}}}
QUIET_S = 4.0
DEFAULTS = {"store": "memory", "offload": False, "search_mode": "lexical"}  # no embedding work in the background
PAUSE_S = 0.02  # between two victim calls: the victim is an ordinary client, not a load generator


# --- processes --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gateway:
    url: str
    pid: int
    folder: Path

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")

    def health(self) -> dict[str, Any]:
        return dict(httpx2.get(f"{self.base}/healthz", timeout=10).json())


def stop(process: subprocess.Popen[Any]) -> None:
    """End one process this module started, by its pid."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@contextmanager
def printing_url(command: list[str], log: Path, limit_s: float = 120) -> Iterator[tuple[str, subprocess.Popen[Any]]]:
    """Run `command` until the block ends; yields the URL it prints as its first line."""
    env = {**os.environ, "TOOLSCOUT_CACHE_DIR": str(log.parent / "cache"), "TOOLSCOUT_DATA_DIR": str(log.parent)}
    with log.open("ab") as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, env=env)
    try:
        assert process.stdout is not None
        out, ready, line = process.stdout, threading.Event(), []

        def first_line() -> None:
            line.append(out.readline())
            ready.set()

        threading.Thread(target=first_line, daemon=True).start()
        if not ready.wait(limit_s) or not line[0]:
            raise RuntimeError(f"{command[1]} did not start: {log.read_text(errors='replace')[-1500:]}")
        yield line[0].decode().split()[0], process
    finally:
        stop(process)


@contextmanager
def gateway(folder: Path, servers: dict[str, list[str]], **settings: Any) -> Iterator[Gateway]:
    """``toolscout serve`` over `servers` (name -> command) with ``toolscout`` `settings`."""
    entries = {name: {"command": command[0], "args": command[1:]} for name, command in servers.items()}
    config = folder / "gateway.json"
    config.write_text(json.dumps({"mcpServers": entries, "toolscout": {**DEFAULTS, **settings}}))
    command = [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", "0", "--wait-for-upstreams"]
    with printing_url(command, folder / "gateway.log") as (url, process):
        settle(process.pid)
        try:
            yield Gateway(url, process.pid, folder)
        finally:  # a case that failed half-way leaves no abuser running
            while Role.started:
                stop(Role.started.pop().process)


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int, limit_s: float = 20) -> None:
    """Wait until the gateway has done its start-up work: under 0.05 s of CPU in each of two half seconds."""
    end, calm, last = time.monotonic() + limit_s, 0, cpu_s(pid)
    while calm < 2 and time.monotonic() < end:
        time.sleep(0.5)
        now = cpu_s(pid)
        calm, last = (calm + 1 if now - last < 0.05 else 0), now


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")) / 1024


class Rss:
    """The gateway's RSS just before the block and its peak during it (sampled every 50 ms)."""

    def __init__(self, pid: int) -> None:
        self.pid, self.before, self.peak = pid, 0.0, 0.0
        self._done = threading.Event()

    def __enter__(self) -> Rss:
        self.before = self.peak = rss_mb(self.pid)
        threading.Thread(target=self._watch, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()

    def _watch(self) -> None:
        while not self._done.wait(0.05):
            with suppress(OSError, StopIteration):
                self.peak = max(self.peak, rss_mb(self.pid))


class Role:
    """An abuser (or a passive helper) in a process of its own: ``hostile_cases.py --role NAME ARGS``.

    It prints ``ready ...`` once set up, then its outcome as JSON on its last line when done or on SIGTERM.
    """

    started: ClassVar[list[Role]] = []

    def __init__(self, name: str, **args: Any) -> None:
        command = [sys.executable, __file__, "--role", name, json.dumps(args)]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        Role.started.append(self)
        assert self.process.stdout is not None
        self.ready = self.process.stdout.readline().strip()

    def running(self) -> bool:
        return self.process.poll() is None

    def result(self, limit_s: float = 60, *, terminate: bool = False) -> dict[str, Any]:
        if terminate and self.running():
            self.process.send_signal(signal.SIGTERM)
        try:
            out, _ = self.process.communicate(timeout=limit_s)
        except subprocess.TimeoutExpired:
            stop(self.process)
            return {"error": f"no outcome within {limit_s} s"}
        lines = out.strip().splitlines()
        return dict(json.loads(lines[-1])) if lines else {"error": f"exited {self.process.returncode}"}


# --- clients ----------------------------------------------------------------------------------------


def messages(response: httpx2.Response) -> list[dict[str, Any]]:
    """Every JSON-RPC message of a JSON or SSE answer."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return [
            json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()
        ]
    try:
        body = response.json() if response.content else []
    except ValueError:  # a plain-text refusal (a proxy's or a limiter's)
        return []
    return body if isinstance(body, list) else [body]


def pick(response: httpx2.Response, mid: object) -> dict[str, Any]:
    for message in messages(response):
        if message.get("id") == mid:
            return message
    return {"http_status": response.status_code, "text": response.text[:200]}


class Client:
    """A 2025-11-25 session over plain HTTP (``Authorization`` and ``Toolscout-Session`` when given)."""

    def __init__(self, url: str, *, token: str | None = None, session: str | None = None, timeout: float = 15) -> None:
        self.url, self.next_id = url, 1
        self.http = httpx2.Client(timeout=timeout)
        self.headers = dict(ACCEPT)
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        if session:
            self.headers["Toolscout-Session"] = session
        hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
        answer = self.http.post(
            url, json={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}, headers=self.headers
        )
        if answer.status_code != 200:
            raise RuntimeError(f"initialize: {answer.status_code} {answer.text[:200]}")
        self.sid = answer.headers["mcp-session-id"]
        self.headers |= {"mcp-session-id": self.sid, "mcp-protocol-version": LEGACY}
        self.http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=self.headers)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        mid, self.next_id = self.next_id, self.next_id + 1
        body = {"jsonrpc": "2.0", "id": mid, "method": method, **({"params": params} if params is not None else {})}
        return pick(self.http.post(self.url, json=body, headers=self.headers), mid)

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def close(self) -> None:
        with suppress(httpx2.HTTPError):
            self.http.delete(self.url, headers=self.headers)
        self.http.close()


def modern(
    http: httpx2.Client,
    url: str,
    method: str,
    params: dict[str, Any],
    *,
    token: str,
    session: str | None = None,
    sampling: bool = False,
    mid: int = 1,
) -> dict[str, Any]:
    """One 2026-07-28 request (no handshake, no MCP session); its JSON-RPC answer."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}} if sampling else {},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    }
    headers = {**ACCEPT, "MCP-Protocol-Version": MODERN, "Mcp-Method": method, "Authorization": f"Bearer {token}"}
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    if session:
        headers["Toolscout-Session"] = session
    body = {"jsonrpc": "2.0", "id": mid, "method": method, "params": {**params, "_meta": meta}}
    return pick(http.post(url, json=body, headers=headers), mid)


def failure(answer: dict[str, Any], expected: str | None = None) -> str | None:
    """Why `answer` is not a good one (None when it is): HTTP status, JSON-RPC error, tool error, wrong text."""
    if "http_status" in answer:
        return f"HTTP {answer['http_status']}: {answer['text'][:160]}"
    if "error" in answer:
        return f"error {json.dumps(answer['error'])[:200]}"
    result = answer.get("result", {})
    if result.get("isError"):
        text = str((result.get("content") or [{}])[0].get("text", ""))
        try:
            error = json.loads(text)["error"]
            return f"tool error {error['code']}: {error['message'][:160]}"
        except (ValueError, KeyError, TypeError):
            return f"tool error: {text[:200]}"
    if expected is not None and expected not in json.dumps(result):
        return f"unexpected answer {json.dumps(result)[:160]}"
    return None


@dataclass
class Victim:
    """The victim's latencies (ms) by phase, and its failures with a few examples."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {"quiet": [], "abuse": []})
    failures: int = 0
    examples: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.failures += 1
        if len(self.examples) < 4:
            self.examples.append(what[:240])

    def once(self, phase: str, call: Callable[[], str | None]) -> None:
        """Time one call; `call` returns why it failed, or None. A call that raises fails too."""
        started = time.perf_counter()
        try:
            why = call()
        except Exception as exc:  # a timeout or a dropped connection: a failure to count
            why = f"{type(exc).__name__}: {exc}"
        self.latencies[phase].append((time.perf_counter() - started) * 1000)
        if why is not None:
            self.fail(f"{phase}: {why}")

    def loop(
        self, phase: str, call: Callable[[], str | None], *, seconds: float, until: Callable[[], bool] | None = None
    ) -> None:
        """Call for `seconds` (or until `until()` is true, at most `seconds`), at most 1,000 calls.

        The quiet phase starts with one untimed call (the first call of a connection warms the gateway up).
        """
        if phase == "quiet":
            with suppress(Exception):
                call()
        end = time.monotonic() + seconds
        for _ in range(1_000):
            if time.monotonic() >= end or (until is not None and until()):
                return
            self.once(phase, call)
            time.sleep(PAUSE_S)


def echo_call(client: Client, name: str) -> Callable[[], str | None]:
    return lambda: failure(client.call(name, {"text": "hello"}), "hello")


def outcome(victim: Victim, rss: Rss, checks: dict[str, tuple[Any, bool]], **facts: Any) -> dict[str, Any]:
    """The case's row: victim p50 quiet and under abuse, their ratio, RSS growth, failures, checks."""
    quiet, abuse = (
        statistics.median(victim.latencies[phase]) if victim.latencies[phase] else 0.0 for phase in ("quiet", "abuse")
    )
    return {
        "victim_p50_quiet_ms": round(quiet, 1),
        "victim_p50_abuse_ms": round(abuse, 1),
        "ratio": round(abuse / quiet, 2) if quiet else None,
        "victim_calls": {phase: len(values) for phase, values in victim.latencies.items()},
        "victim_failures": victim.failures,
        "failure_examples": victim.examples,
        "rss_before_mb": round(rss.before, 1),
        "rss_peak_mb": round(rss.peak, 1),
        "rss_growth_mb": round(rss.peak - rss.before, 1),
        "checks": {name: {"value": value, "ok": ok} for name, (value, ok) in checks.items()},
        **facts,
    }


# --- the cases --------------------------------------------------------------------------------------


def oversize_case(folder: Path) -> dict[str, Any]:
    """1. Another client reads a 20 MiB resource of a shared stdio server (over the 16 MiB cap) until it is given up."""
    servers = {"fs": [*RAW, "--name", "fs", "--big-resource", "20"], "b": [*RAW, "--name", "b"]}
    with gateway(folder, servers, mode="off", restart_backoff_s=0.2, max_restarts=4) as gw:
        client, shared = Client(gw.url), Client(gw.url)
        victim, same = Victim(), Victim()  # the victim calls server b; `same`, beside it, calls fs as the abuser does

        def beside(phase: str, seconds: float, until: Callable[[], bool] | None = None) -> threading.Thread:
            call = echo_call(shared, "fs__echo")
            loop = threading.Thread(target=same.loop, args=(phase, call), kwargs={"seconds": seconds, "until": until})
            loop.start()
            return loop

        quiet = beside("quiet", QUIET_S)
        victim.loop("quiet", echo_call(client, "b__echo"), seconds=QUIET_S)
        quiet.join()
        with Rss(gw.pid) as rss:
            attacker = Role("oversize", url=gw.url, reads=8, seconds=40)
            running = beside("abuse", 45, until=lambda: not attacker.running())
            victim.loop("abuse", echo_call(client, "b__echo"), seconds=45, until=lambda: not attacker.running())
            running.join()
            attack = attacker.result()
        time.sleep(1)
        after = failure(shared.call("fs__echo", {"text": "hello"}), "hello")
        gave_up = next(up for up in gw.health()["upstreams"] if up["name"] == "fs").get("gave_up")
    checks = {
        "server given up": (gave_up, not gave_up),
        "its client's call after the abuse": (after or "ok", after is None),
    }
    victim.failures += same.failures
    victim.examples += same.examples
    fs = outcome(same, rss, {})
    same_server = {key: fs[key] for key in ("victim_p50_quiet_ms", "victim_p50_abuse_ms", "ratio", "victim_calls")}
    return outcome(victim, rss, checks, attack=attack, same_server_client=same_server)


def exchanges_case(folder: Path) -> dict[str, Any]:
    """2. One token leaves 1,030 2026-07-28 calls at input_required while the other's long call runs."""
    servers = {"a": [*RAW, "--name", "a"], "b": [*RAW, "--name", "b"]}
    with gateway(folder, servers, mode="off", auth=TOKENS, call_timeout_s=120) as gw, httpx2.Client(timeout=15) as http:
        victim = Victim()

        def short() -> str | None:
            call = {"name": "b__echo", "arguments": {"text": "hello"}}
            return failure(modern(http, gw.url, "tools/call", call, token=VICTIM), "hello")

        victim.loop("quiet", short, seconds=QUIET_S)
        done, long = folder / "flood-done", {}

        def long_call() -> None:  # answered once the flood is over (the file `done` exists), at most 60 s
            started = time.monotonic()
            call = {"name": "b__slow", "arguments": {"s": 60, "until": str(done)}}
            with httpx2.Client(timeout=90) as own:
                try:
                    long["why"] = failure(modern(own, gw.url, "tools/call", call, token=VICTIM), "slept")
                except Exception as exc:  # the call was dropped
                    long["why"] = f"{type(exc).__name__}: {exc}"
            long["after_s"] = round(time.monotonic() - started, 1)

        with Rss(gw.pid) as rss:
            waiting = threading.Thread(target=long_call)
            waiting.start()
            time.sleep(0.5)
            attacker = Role("exchanges", url=gw.url, calls=1_030, seconds=40)
            victim.loop("abuse", short, seconds=45, until=lambda: not attacker.running())
            attack = attacker.result()
            done.touch()
            waiting.join(90)
    why = long.get("why", "no answer")
    checks = {"victim's long call": (why or f"answered after {long['after_s']} s", why is None)}
    short = f"{attack.get('calls')} of 1,030" if attack.get("calls", 0) < 1_030 else None
    return outcome(victim, rss, checks, attack=attack, flood_short=short)


def sessions_case(folder: Path, per_minute: int = 60) -> dict[str, Any]:
    """4. One token opens sessions with ``"initiali\\u007ae"`` for 6 s (``new_sessions_per_minute`` 60)."""
    settings = {"mode": "off", "auth": TOKENS, "new_sessions_per_minute": per_minute}
    with gateway(folder, {"echo": ECHO}, **settings) as gw:
        client = Client(gw.url, token=VICTIM)
        victim = Victim()
        victim.loop("quiet", echo_call(client, "echo__echo"), seconds=QUIET_S)
        with Rss(gw.pid) as rss:
            attacker = Role("sessions", url=gw.url, seconds=6, most=3_000)
            victim.loop("abuse", echo_call(client, "echo__echo"), seconds=10, until=lambda: not attacker.running())
            attack = attacker.result()
    opened = attack.get("opened", 0)
    allowed = per_minute + per_minute * 6 // 60 + 1  # the bucket, and what refills during the 6 s
    return outcome(
        victim, rss, {"sessions opened (allowed)": (f"{opened} ({allowed})", opened <= allowed)}, attack=attack
    )


def session_ids_case(folder: Path) -> dict[str, Any]:
    """5. One token makes 10,050 calls, each under a new ``Toolscout-Session``, the victim's conversation idle."""
    settings = {"mode": "on", "style": "reveal", "auth": TOKENS, "offload": {"enabled": True}}
    with gateway(folder, {"raw": [*RAW, "--name", "raw"]}, **settings) as gw:
        conversation = Client(gw.url, token=VICTIM, session="victim-conversation-1")
        conversation.call("tool_search", {"query": "echo the text"})
        stub = conversation.call("tool_call", {"name": "raw__echo", "arguments": {"text": "word " * 40_000}})
        handle = json.loads(stub["result"]["content"][0]["text"])["parts"][0]["handle"]

        def revealed() -> list[str]:
            listed = conversation.request("tools/list").get("result", {}).get("tools", [])
            return sorted(tool["name"] for tool in listed if tool["name"].startswith("raw__"))

        shown = revealed()
        client = Client(gw.url, token=VICTIM)  # the victim's ordinary calls: another session of the same token
        victim = Victim()

        def search() -> str | None:
            return failure(client.call("tool_search", {"query": "echo the text"}))

        victim.loop("quiet", search, seconds=QUIET_S)
        with Rss(gw.pid) as rss:
            attacker = Role("session_ids", url=gw.url, calls=10_050, seconds=45)
            victim.loop("abuse", search, seconds=50, until=lambda: not attacker.running())
            attack = attacker.result()
        read = failure(conversation.call("output_read", {"handle": handle}), "word word")
        after = revealed()
    checks = {
        "victim's offloaded output": (read or "still there", read is None),
        "victim's revealed tools": (f"{shown} -> {after}", bool(shown) and after == shown),
    }
    short = f"{attack.get('calls')} of 10,050" if attack.get("calls", 0) < 10_050 else None
    return outcome(victim, rss, checks, attack=attack, flood_short=short)


@contextmanager
def issuer(folder: Path) -> Iterator[tuple[str, Callable[[], str]]]:
    """A key server of our own on loopback; yields its URL and a function making a valid token."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa
    from jwt.algorithms import RSAAlgorithm

    keys = folder / "keys"
    keys.mkdir()
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = json.loads(RSAAlgorithm.to_jwk(private.public_key()))
    (keys / "jwks.json").write_text(json.dumps({"keys": [{**public, "kid": "k1", "use": "sig", "alg": "RS256"}]}))
    with printing_url([*JWKS, str(keys)], folder / "jwks.log") as (url, _):

        def token() -> str:
            now = int(time.time())
            claims = {"iss": f"{url}/", "aud": f"{url}/mcp", "sub": "victim", "iat": now, "exp": now + 600}
            return jwt.encode(claims, private, algorithm="RS256", headers={"kid": "k1"})

        yield url, token


def jwks_case(folder: Path, mode: str, timeout_s: float) -> dict[str, Any]:
    """6. The issuer's key server turns hostile (`mode`) while the victim's token is valid and its keys known."""
    with issuer(folder) as (url, token):
        oauth = {
            "issuer": f"{url}/",
            "jwks_uri": f"{url}/jwks.json",
            "resource": f"{url}/mcp",
            "grants": {"all": {}},
            "jwks_timeout_s": timeout_s,
            "jwks_max_age_s": 5,
            "jwks_refetch_min_s": 2,
        }
        with gateway(folder, {"echo": ECHO}, mode="off", auth={"oauth": oauth}) as gw:
            client = Client(gw.url, token=token(), timeout=8)
            victim = Victim()
            victim.loop("quiet", echo_call(client, "echo__echo"), seconds=3)
            with Rss(gw.pid) as rss:
                (folder / "keys" / "mode").write_text(mode)
                victim.loop("abuse", echo_call(client, "echo__echo"), seconds=14)
                (folder / "keys" / "mode").write_text("normal")
            fetches = len((folder / "keys" / "fetches.log").read_text().splitlines())
    return outcome(victim, rss, {}, key_fetches=fetches)


def resources_case(folder: Path) -> dict[str, Any]:
    """7. Another client pages through the resources of an upstream with 500,000 of them (50 pages of 10,000)."""
    servers = {"big": [*RAW, "--name", "big", "--resources", "10000", "--pages", "50"], "b": [*RAW, "--name", "b"]}
    with gateway(folder, servers, mode="off", call_timeout_s=300) as gw:
        client = Client(gw.url)
        victim = Victim()
        victim.loop("quiet", echo_call(client, "b__echo"), seconds=QUIET_S)
        with Rss(gw.pid) as rss:
            lister = Role("lister", url=gw.url, seconds=45)
            victim.loop("abuse", echo_call(client, "b__echo"), seconds=50, until=lambda: not lister.running())
            listing = lister.result()
    return outcome(victim, rss, {}, listing=listing)


def subscriber_case(folder: Path, flood_s: float = 10) -> dict[str, Any]:
    """8. One subscriber stops reading its stream while its URI updates as fast as the gateway takes them."""
    stats = folder / "a.json"
    busy = [*RAW, "--name", "a", "--updates-hz", "20000", "--updates-for", str(flood_s), "--stats", str(stats)]
    uri = "toolscout://a/res://item/0/0?pad=" + "x" * 2_000  # 2 KB an update: the stalled stream fills in a second
    with gateway(folder, {"a": busy, "b": [*RAW, "--name", "b"]}, mode="off") as gw:
        stalled, reading, client = Client(gw.url), Client(gw.url), Client(gw.url)
        reader = Role("reader", url=gw.url, sid=reading.sid, seconds=40)
        staller = Role("staller", url=gw.url, sid=stalled.sid, seconds=40)
        victim = Victim()
        victim.loop("quiet", echo_call(client, "b__echo"), seconds=QUIET_S)
        with Rss(gw.pid) as rss:
            stalled.request("resources/subscribe", {"uri": uri})  # first in the list of subscribers
            started = time.time()
            subscribed = failure(reading.request("resources/subscribe", {"uri": uri}))
            victim.loop("abuse", echo_call(client, "b__echo"), seconds=flood_s + 1)
        got = reader.result(terminate=True)
        staller.result(terminate=True)
        sent = json.loads(stats.read_text())["updates_sent"]
    per_second = {int(second): count for second, count in got.get("per_second", {}).items()}
    windows = [
        sum(per_second.get(int(started) + s, 0) for s in range(start, start + 2))
        for start in range(1, int(flood_s) - 1, 2)
    ]
    checks = {
        "reading subscriber's updates per 2 s": (windows, bool(windows) and min(windows) > 0),
        "its subscribe": (subscribed or "ok", subscribed is None),
    }
    return outcome(victim, rss, checks, updates_sent=sent, updates_received=got.get("received"))


def subscribe_lock_case(folder: Path, delay_s: float = 12) -> dict[str, Any]:
    """9. One client subscribes to a server answering in 12 s, the victim to a healthy one; then 2,000 subscriptions."""
    stats = folder / "c.json"
    servers = {
        "slow": [*RAW, "--name", "slow", "--subscribe-delay", str(delay_s)],
        "a": [*RAW, "--name", "a"],
        "c": [*RAW, "--name", "c", "--stats", str(stats)],
    }
    with gateway(folder, servers, mode="off") as gw:
        client, other = Client(gw.url), Client(gw.url, timeout=60)
        victim = Victim()
        count = iter(range(10_000))

        def subscribe() -> str | None:
            uri = f"toolscout://a/res://item/0/0?n={next(count)}"
            return failure(client.request("resources/subscribe", {"uri": uri})) or failure(
                client.request("resources/unsubscribe", {"uri": uri})
            )

        victim.loop("quiet", subscribe, seconds=QUIET_S)
        with Rss(gw.pid) as rss:
            slow = threading.Thread(
                target=other.request, args=("resources/subscribe", {"uri": "toolscout://slow/res://item/0/0"})
            )
            slow.start()
            time.sleep(0.5)
            victim.loop("abuse", subscribe, seconds=delay_s - 2)
            slow.join(30)
            many = Client(gw.url)
            accepted, end = 0, time.monotonic() + 12
            for n in range(2_000):
                if time.monotonic() > end:
                    break
                accepted += (
                    failure(many.request("resources/subscribe", {"uri": f"toolscout://c/res://item/0/0?n={n}"})) is None
                )
            many.close()
            released = released_upstream(stats, accepted)
    checks = {"subscriptions released when their session ended": (f"{released} of {accepted}", released >= accepted)}
    return outcome(victim, rss, checks, subscriptions_accepted=accepted)


def released_upstream(stats: Path, accepted: int, limit_s: float = 20) -> int:
    """The unsubscribes the server counted, once all `accepted` arrived or none arrived for 2 s (at most `limit_s`)."""
    end, last, still = time.monotonic() + limit_s, -1, time.monotonic()
    while time.monotonic() < end:
        released = int(json.loads(stats.read_text())["unsubscribe"])
        if released >= accepted or time.monotonic() - still > 2:
            return released
        if released != last:
            last, still = released, time.monotonic()
        time.sleep(0.2)
    return released


def listen_case(folder: Path, streams: int = 4_096) -> dict[str, Any]:
    """10. One token holds 4,096 ``subscriptions/listen`` streams; another token listens."""
    with gateway(folder, {"echo": ECHO}, mode="off", auth=TOKENS) as gw:
        client = Client(gw.url, token=VICTIM)
        victim = Victim()
        victim.loop("quiet", echo_call(client, "echo__echo"), seconds=QUIET_S)
        listened = listen(gw.url, VICTIM)
        with Rss(gw.pid) as rss:
            holder = Role("listeners", url=gw.url, streams=streams, seconds=45)
            victim.loop("abuse", echo_call(client, "echo__echo"), seconds=4)
            during = listen(gw.url, VICTIM)
            held = holder.result(terminate=True)
    checks = {"victim's listen while they are held": (during or "open", during is None)}
    return outcome(victim, rss, checks, streams_held=holder.ready, attack=held, victim_listen_quiet=listened or "open")


def listen_body(mid: int = 1) -> dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    return {
        "jsonrpc": "2.0",
        "id": mid,
        "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": True}, "_meta": meta},
    }


def listen(url: str, token: str) -> str | None:
    """Why a ``subscriptions/listen`` of `token` was refused (None: its stream opened and stayed open 2 s)."""
    headers = {
        **ACCEPT,
        "MCP-Protocol-Version": MODERN,
        "Mcp-Method": "subscriptions/listen",
        "Authorization": f"Bearer {token}",
    }
    first = b""
    try:
        with (
            httpx2.Client(timeout=httpx2.Timeout(10, read=2)) as http,
            http.stream("POST", url, json=listen_body(), headers=headers) as answer,
        ):
            if answer.status_code != 200:
                return f"HTTP {answer.status_code}"
            for chunk in answer.iter_bytes():
                first += chunk
                if b'"error"' in first:
                    return first.decode(errors="replace")[:200]
                if len(first) > 4096:
                    break
    except httpx2.ReadTimeout:
        return None
    return None if b'"error"' not in first else first.decode(errors="replace")[:200]


CASES: dict[str, Callable[[Path], dict[str, Any]]] = {
    "oversize": oversize_case,
    "exchanges": exchanges_case,
    "sessions": sessions_case,
    "session_ids": session_ids_case,
    "jwks_drip": lambda folder: jwks_case(folder, "drip:1.5", 2),
    "jwks_huge": lambda folder: jwks_case(folder, "huge:256", 5),
    "resources": resources_case,
    "subscriber": subscriber_case,
    "subscribe_lock": subscribe_lock_case,
    "listen": listen_case,
}
LABELS = {
    "oversize": "1. oversize answers from a shared stdio server (victim on another)",
    "exchanges": "2. 1,030 2026-07-28 calls left at input_required",
    "sessions": '4. sessions opened with "initiali\\u007ae"',
    "session_ids": "5. 10,050 new Toolscout-Session ids",
    "jwks_drip": "6. key server drips one byte every 1.5 s",
    "jwks_huge": "6. key server answers 256 MiB",
    "resources": "7. resources/list of 500,000 resources",
    "subscriber": "8. a subscriber stops reading (2 KB updates, flat out)",
    "subscribe_lock": "9. a subscribe to a server answering in 12 s",
    "listen": "10. one token holds 4,096 listen streams",
}


RATIO_BAR, RSS_BAR_MB = 2.0, 200.0


def verdict(row: dict[str, Any]) -> list[str]:
    """What in `row` misses issue 41's bar (empty: it passes)."""
    if "error" in row:
        return ["the case failed to run"]
    missed = []
    if row["ratio"] is None or row["ratio"] > RATIO_BAR:
        missed.append(f"p50 ratio {row['ratio']} > {RATIO_BAR}")
    if row["rss_growth_mb"] > RSS_BAR_MB:
        missed.append(f"RSS +{row['rss_growth_mb']} MB > {RSS_BAR_MB:.0f}")
    if row["victim_failures"]:
        missed.append(f"{row['victim_failures']} victim failures")
    missed += [f"{name}: {str(check['value'])[:120]}" for name, check in row["checks"].items() if not check["ok"]]
    return missed


def cases_markdown(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The table of the cases in `after` (cells: baseline / this tree), then what missed the bar and why."""
    lines = [
        "Issue 41's abuse cases (victim: an ordinary client of another token or session; bar: p50 under abuse "
        f"<= {RATIO_BAR:.0f}x quiet, gateway RSS growth <= {RSS_BAR_MB:.0f} MB, no victim call failed, every check "
        "holds). " + ("Each cell: baseline / this tree." if before else "This tree only."),
        "",
        "| case | victim p50 quiet, ms | under abuse, ms | ratio | RSS growth, MB | victim failures | checks | bar |",
        "|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for name, label in LABELS.items():
        if name not in after:
            continue
        rows = [side.get(name, {"error": "not run"}) for side in ((before, after) if before else (after,))]

        def cell(key: str, rows: list[dict[str, Any]] = rows) -> str:
            return " / ".join("-" if "error" in row else str(row[key]) for row in rows)

        checks = " / ".join(
            "-" if "error" in row else f"{sum(c['ok'] for c in row['checks'].values())} of {len(row['checks'])}"
            for row in rows
        )
        bars = " / ".join(
            "FAIL" if verdict(row) else "inconclusive" if row.get("flood_short") else "pass" for row in rows
        )
        keys = ("victim_p50_quiet_ms", "victim_p50_abuse_ms", "ratio", "rss_growth_mb", "victim_failures")
        lines.append(f"| {label} | " + " | ".join(cell(key) for key in keys) + f" | {checks} | {bars} |")
        for side, row in zip(("before", "after") if before else ("after",), rows, strict=True):
            if "error" in row:
                notes.append(f"- {name}, {side}: {row['error']}")
                continue
            missed = verdict(row)
            if missed:
                notes.append(f"- {name}, {side}: " + "; ".join(missed))
            notes += [f"  - {side} failure: {example[:160]}" for example in row["failure_examples"][:1]]
            if shared := row.get("same_server_client"):
                notes.append(
                    f"  - {side}: a client of the abused server itself: p50 {shared['victim_p50_quiet_ms']} ms quiet, "
                    f"{shared['victim_p50_abuse_ms']} ms under abuse (ratio {shared['ratio']}; its calls wait for "
                    "the 20 MiB lines ahead of theirs on the pipe)"
                )
            if row.get("flood_short"):
                notes.append(f"  - {side}: the flood fell short ({row['flood_short']} calls): inconclusive")
    return [*lines, "", *notes] if notes else lines


# --- the roles (each in a process of its own) -------------------------------------------------------


def stopped_on_sigterm() -> threading.Event:
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    return stopped


def workers(count: int, work: Callable[[int], None]) -> None:
    with ThreadPoolExecutor(count) as pool:
        for done in [pool.submit(work, n) for n in range(count)]:
            done.result()


def tally(into: dict[str, int], key: str) -> None:
    into[key] = into.get(key, 0) + 1


def role_oversize(url: str, reads: int, seconds: float) -> dict[str, Any]:
    """Read the 20 MiB resource, wait until the server is back (as a retrying client would), again."""
    client, answers, end = Client(url, timeout=60), [], time.monotonic() + seconds
    base, gave_up = url.removesuffix("/mcp"), False
    print("ready", flush=True)
    for _ in range(reads):
        if time.monotonic() > end:
            break
        started = time.monotonic()
        answer = client.request("resources/read", {"uri": "toolscout://fs/res://big"})
        answers.append(f"{(failure(answer) or 'read')[:120]} in {time.monotonic() - started:.1f} s")
        while time.monotonic() < end:
            upstreams = httpx2.get(f"{base}/healthz", timeout=10).json()["upstreams"]
            fs = next(upstream for upstream in upstreams if upstream["name"] == "fs")
            gave_up = bool(fs.get("gave_up"))
            if gave_up or fs["state"] == "connected":
                break
            time.sleep(0.2)
        if gave_up:
            break
    return {"reads": len(answers), "gave_up": gave_up, "answers": answers[:3]}


def role_exchanges(url: str, calls: int, seconds: float) -> dict[str, Any]:
    """`calls` 2026-07-28 calls of a tool that asks for sampling; never answer the question."""
    kinds: dict[str, int] = {}
    sent, end, started = iter(range(calls)), time.monotonic() + seconds, time.monotonic()
    print("ready", flush=True)

    slowest = [0.0]

    def send(_: int) -> None:
        with httpx2.Client(timeout=10) as http:
            for mid in sent:
                if time.monotonic() > end:
                    return
                begun = time.monotonic()
                try:
                    answer = modern(
                        http,
                        url,
                        "tools/call",
                        {"name": "a__ask", "arguments": {"s": 60}},
                        token=ATTACKER,
                        session="attacker",
                        sampling=True,
                        mid=mid,
                    )
                    tally(
                        kinds, answer.get("result", {}).get("resultType") or ("error" if "error" in answer else "other")
                    )
                except httpx2.HTTPError as exc:
                    tally(kinds, type(exc).__name__)
                slowest[0] = max(slowest[0], time.monotonic() - begun)

    workers(4, send)
    elapsed = round(time.monotonic() - started, 1)
    return {"calls": sum(kinds.values()), "s": elapsed, "slowest_s": round(slowest[0], 1), "answers": kinds}


def role_sessions(url: str, seconds: float, most: int) -> dict[str, Any]:
    """Open sessions with the method written ``"initiali\\u007ae"`` from 4 threads."""
    hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).replace(
        '"initialize"', '"initiali\\u007ae"'
    )
    statuses: dict[str, int] = {}
    headers = {**ACCEPT, "Authorization": f"Bearer {ATTACKER}"}
    budget, end = iter(range(most)), time.monotonic() + seconds
    print("ready", flush=True)

    def flood(_: int) -> None:
        with httpx2.Client(timeout=30) as http:
            for _ in budget:
                if time.monotonic() > end:
                    return
                try:
                    answer = http.post(url, content=body.encode(), headers=headers)
                except httpx2.HTTPError as exc:
                    tally(statuses, type(exc).__name__)
                    continue
                tally(statuses, "opened" if answer.headers.get("mcp-session-id") else str(answer.status_code))

    workers(4, flood)
    return {"opened": statuses.get("opened", 0), "answers": statuses}


def role_session_ids(url: str, calls: int, seconds: float) -> dict[str, Any]:
    """`calls` ``tool_search`` calls, each under a new ``Toolscout-Session`` id, from 8 threads."""
    kinds: dict[str, int] = {}
    refused: list[str] = []
    ids, end, started = iter(range(calls)), time.monotonic() + seconds, time.monotonic()
    print("ready", flush=True)

    def send(_: int) -> None:
        client = Client(url, token=ATTACKER, timeout=30)
        for n in ids:
            if time.monotonic() > end:
                return
            client.headers["Toolscout-Session"] = f"junk-{n}"
            try:
                why = failure(client.call("tool_search", {"query": "echo"}))
            except httpx2.HTTPError as exc:
                why = type(exc).__name__
            tally(kinds, "ok" if why is None else "failed")
            if why is not None and not refused:
                refused.append(why[:160])

    workers(8, send)
    elapsed = round(time.monotonic() - started, 1)
    return {"calls": sum(kinds.values()), "s": elapsed, "answers": kinds, "first_refusal": refused[:1]}


def role_lister(url: str, seconds: float, pages: int = 100) -> dict[str, Any]:
    """Page through ``resources/list`` as a client listing everything does (at most `pages` pages)."""
    client = Client(url, timeout=seconds)
    print("ready", flush=True)
    started, entries, cursor, read, first_s = time.monotonic(), 0, None, 0, 0.0
    for read in range(1, pages + 1):
        try:
            answer = client.request("resources/list", {"cursor": cursor} if cursor else None)
        except httpx2.HTTPError as exc:
            return {"error": type(exc).__name__, "pages": read, "s": round(time.monotonic() - started, 1)}
        first_s = first_s or time.monotonic() - started
        result = answer.get("result", {})
        entries += len(result.get("resources", []))
        cursor = result.get("nextCursor")
        if failure(answer) or not cursor:
            break
    return {
        "entries": entries,
        "pages": read,
        "first_page_s": round(first_s, 2),
        "s": round(time.monotonic() - started, 1),
        "error": failure(answer),
    }


class Stopped(Exception):
    """SIGTERM arrived (raised from the handler, so that a blocking read ends too)."""


def role_reader(url: str, sid: str, seconds: float) -> dict[str, Any]:
    """Read session `sid`'s stream, counting resource updates per second (epoch seconds), until SIGTERM."""

    def stop(*_: object) -> None:
        raise Stopped

    signal.signal(signal.SIGTERM, stop)
    signal.alarm(int(seconds))
    signal.signal(signal.SIGALRM, stop)
    per_second: dict[str, int] = {}
    headers = {"Accept": "text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": LEGACY}
    with suppress(Stopped), httpx2.Client(timeout=None) as http, http.stream("GET", url, headers=headers) as stream:
        print("ready", flush=True)
        for line in stream.iter_lines():
            if "resources/updated" in line:
                second = str(int(time.time()))
                per_second[second] = per_second.get(second, 0) + 1
    return {"received": sum(per_second.values()), "per_second": per_second}


def role_staller(url: str, sid: str, seconds: float) -> dict[str, Any]:
    """Open session `sid`'s stream with a tiny receive buffer and never read it."""
    stopped, parts = stopped_on_sigterm(), urlsplit(url)
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((parts.hostname, parts.port))
        request = (
            f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
            f"mcp-session-id: {sid}\r\nmcp-protocol-version: {LEGACY}\r\n\r\n"
        )
        sock.sendall(request.encode())
        print("ready", flush=True)
        stopped.wait(seconds)
    return {}


def role_listeners(url: str, streams: int, seconds: float) -> dict[str, Any]:
    """Open `streams` ``subscriptions/listen`` streams with the attacker's token and hold them."""
    parts = urlsplit(url)
    body = json.dumps(listen_body()).encode()
    request = (
        f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\n"
        f"Mcp-Method: subscriptions/listen\r\nAuthorization: Bearer {ATTACKER}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body

    async def hold() -> dict[str, Any]:
        stopped = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set)
        writers: list[asyncio.StreamWriter] = []
        statuses: dict[str, int] = {}

        async def one() -> None:
            reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
            writers.append(writer)
            writer.write(request)
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            tally(statuses, head.split(b"\r\n")[0].decode())

        started = time.monotonic()
        for start in range(0, streams, 512):
            if time.monotonic() - started > seconds:
                break
            results = await asyncio.gather(*(one() for _ in range(min(512, streams - start))), return_exceptions=True)
            for error in results:
                if isinstance(error, BaseException):
                    tally(statuses, type(error).__name__)
        print(f"ready {len(writers)}", flush=True)
        with suppress(TimeoutError):
            await asyncio.wait_for(stopped.wait(), seconds)
        for writer in writers:
            writer.close()
        return {"opened": len(writers), "s": round(time.monotonic() - started, 1), "answers": statuses}

    return asyncio.run(hold())


ABUSER_NICENESS = 10
"""An abuser runs at this niceness: on a deployment it is another machine, here it shares the victim's 2 cores."""
UNNICED = frozenset({"reader"})  # the reading subscriber is a victim, not an abuser

ROLES: dict[str, Callable[..., dict[str, Any]]] = {
    "oversize": role_oversize,
    "exchanges": role_exchanges,
    "sessions": role_sessions,
    "session_ids": role_session_ids,
    "lister": role_lister,
    "reader": role_reader,
    "staller": role_staller,
    "listeners": role_listeners,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--role", choices=sorted(ROLES), required=True)
    parser.add_argument("args", help="the role's arguments as a JSON object")
    options = parser.parse_args()
    if options.role not in UNNICED:
        os.nice(ABUSER_NICENESS)
    print(json.dumps(ROLES[options.role](**json.loads(options.args))), flush=True)


if __name__ == "__main__":
    main()
