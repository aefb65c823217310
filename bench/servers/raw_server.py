"""A raw JSON-RPC MCP server over stdio (one JSON message a line) with switches for `hostile_cases.py`.

    python raw_server.py [--resources N --pages P] [--big-resource MB] [--updates-hz HZ --updates-for S]
                         [--subscribe-delay S] [--stats FILE]

Tools: ``echo(text)`` answers the text; ``slow(s, until)`` answers after ``s`` seconds, or once the file
``until`` exists if sooner; ``ask(s)`` asks the client
for a sampling message and answers once it is answered or ``s`` seconds passed. ``resources/list`` answers
``P`` pages of ``N`` resources (``res://item/<page>/<n>``); ``resources/read`` of ``res://big`` answers
``MB`` MiB of text. After a ``resources/subscribe`` (answered ``--subscribe-delay`` seconds late) the server
sends ``notifications/resources/updated`` for that URI ``HZ`` times a second for ``S`` seconds. ``--stats FILE``
keeps a JSON object there: subscribes and unsubscribes received, updates sent.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

parser = argparse.ArgumentParser()
parser.add_argument("--name", default="raw")
parser.add_argument("--resources", type=int, default=3)
parser.add_argument("--pages", type=int, default=1)
parser.add_argument("--big-resource", type=float, default=0)
parser.add_argument("--updates-hz", type=float, default=0)
parser.add_argument("--updates-for", type=float, default=10)
parser.add_argument("--subscribe-delay", type=float, default=0)
parser.add_argument("--stats", type=Path)
options = parser.parse_args()

OUT = sys.stdout.buffer
WRITE = threading.Lock()
STATS = {"subscribe": 0, "unsubscribe": 0, "updates_sent": 0}
ASKED: dict[int, threading.Event] = {}
NEXT_ID = [1_000_000]


def send(message: dict[str, Any]) -> None:
    data = json.dumps(message).encode() + b"\n"
    with WRITE:
        OUT.write(data)
        OUT.flush()


def answer(mid: object, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": mid, "result": result})


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}]}


def write_stats(path: Path) -> None:
    """Replace the stats file whole, so a reader never sees it half written."""
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(STATS))
    os.replace(partial, path)


def count(key: str, by: int = 1) -> None:
    with WRITE:
        STATS[key] += by
        if options.stats is not None:
            write_stats(options.stats)


def tool(name: str, description: str, **properties: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {key: {"type": kind} for key, kind in properties.items()}}
    return {"name": name, "description": description, "inputSchema": schema}


TOOLS = [
    tool("echo", "Answer the text unchanged.", text="string"),
    tool("slow", "Answer after s seconds, or once the file until exists.", s="number", until="string"),
    tool("ask", "Ask the client for a sampling message, answer when it does or after s seconds.", s="number"),
]


def call(mid: object, params: dict[str, Any]) -> None:
    name, arguments = params.get("name"), params.get("arguments") or {}
    if name == "echo":
        answer(mid, text(str(arguments.get("text", ""))))
    elif name == "slow":
        until = Path(arguments["until"]) if arguments.get("until") else None
        end = time.monotonic() + min(float(arguments.get("s", 1)), 120)
        while time.monotonic() < end and not (until is not None and until.exists()):
            time.sleep(0.1)
        answer(mid, text("slept"))
    elif name == "ask":
        with WRITE:
            NEXT_ID[0] += 1
            rid = NEXT_ID[0]
        ASKED[rid] = threading.Event()
        message = {"role": "user", "content": {"type": "text", "text": "say something"}}
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "method": "sampling/createMessage",
                "params": {"messages": [message], "maxTokens": 5},
            }
        )
        got = ASKED[rid].wait(min(float(arguments.get("s", 10)), 120))
        answer(mid, text("answered" if got else "not answered"))
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32602, "message": f"unknown tool {name}"}})


def updates(uri: str) -> None:
    """Send the updates of `uri` in bursts every 5 ms (one sleep per update cannot reach 20,000 a second)."""
    burst = max(1, round(options.updates_hz / 200))
    data = (
        json.dumps({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}) + "\n"
    ) * burst
    sent, end = 0, time.monotonic() + options.updates_for
    while time.monotonic() < end:
        with WRITE:
            OUT.write(data.encode())
            OUT.flush()
        sent += burst
        time.sleep(0.005)
    count("updates_sent", sent)


def subscribe(mid: object, uri: str) -> None:
    time.sleep(options.subscribe_delay)
    count("subscribe")
    answer(mid, {})
    if options.updates_hz:
        updates(uri)


def handle(message: dict[str, Any]) -> None:
    method, mid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method is None:
        if mid in ASKED:
            ASKED[mid].set()
    elif method == "initialize":
        capabilities = {"tools": {}, "resources": {"subscribe": True, "listChanged": True}}
        version = params.get("protocolVersion", "2025-06-18")
        answer(
            mid,
            {
                "protocolVersion": version,
                "capabilities": capabilities,
                "serverInfo": {"name": options.name, "version": "1"},
            },
        )
    elif method == "ping":
        answer(mid, {})
    elif method == "tools/list":
        answer(mid, {"tools": TOOLS})
    elif method == "resources/list":
        page = int(params.get("cursor") or 0)
        items = [{"uri": f"res://item/{page}/{n}", "name": f"item {page}/{n}"} for n in range(options.resources)]
        answer(mid, {"resources": items, **({"nextCursor": str(page + 1)} if page + 1 < options.pages else {})})
    elif method == "resources/templates/list":
        answer(mid, {"resourceTemplates": []})
    elif method == "resources/read":
        uri = params.get("uri", "")
        size = int(options.big_resource * (1 << 20)) if uri == "res://big" else 0
        answer(mid, {"contents": [{"uri": uri, "text": "x" * size if size else f"contents of {uri}"}]})
    elif method == "resources/subscribe":
        threading.Thread(target=subscribe, args=(mid, params.get("uri", "")), daemon=True).start()
    elif method == "resources/unsubscribe":
        count("unsubscribe")
        answer(mid, {})
    elif method == "tools/call":
        threading.Thread(target=call, args=(mid, params), daemon=True).start()
    elif method == "logging/setLevel":
        answer(mid, {})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"method not found: {method}"}})


def main() -> None:
    if options.stats is not None:
        write_stats(options.stats)
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            handle(message)


if __name__ == "__main__":
    main()
