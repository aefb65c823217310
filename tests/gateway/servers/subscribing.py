"""A 2025-era MCP server (raw JSON-RPC over stdio) with subscribable resources and list changes on demand.

    python subscribing.py LOG [--tools N]

Every message received is appended to LOG as one JSON line. Resources: ``res://<anything>``; a
``resources/subscribe`` of a URI containing ``slow`` is answered only after 600 s (the subscription of a
server that takes its time), any other at once. Tools: ``echo(text)``; ``updates(uri, n, then)`` sends ``n``
``notifications/resources/updated`` for ``uri``, then one for ``then`` if given, before answering;
``changed(kind, n)`` sends ``n`` ``notifications/<kind>/list_changed`` (``tools``, ``resources`` or
``prompts``) before answering.
``--tools N`` also lists ``tool_0`` ... ``tool_{N-1}``. Unknown methods (``server/discover`` among them)
answer "method not found", so clients fall back to the 2025-era handshake.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

parser = argparse.ArgumentParser()
parser.add_argument("log", type=Path)
parser.add_argument("--tools", type=int, default=0)
options = parser.parse_args()

_OUT = sys.stdout.buffer
_LOCK = threading.Lock()
_SCHEMA = {
    "type": "object",
    "properties": {name: {} for name in ("text", "uri", "then", "kind", "n")},
}


def send(message: dict[str, Any]) -> None:
    data = json.dumps(message).encode() + b"\n"
    with _LOCK:
        _OUT.write(data)
        _OUT.flush()


def answer(mid: object, result: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": mid, "result": result})


def notify(method: str, params: dict[str, Any] | None = None) -> None:
    send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})


def tools() -> list[dict[str, Any]]:
    names = ["echo", "updates", "changed", *(f"tool_{n}" for n in range(options.tools))]
    return [{"name": name, "description": f"subscribing test: {name}", "inputSchema": _SCHEMA} for name in names]


def call(mid: object, name: str, arguments: dict[str, Any]) -> None:
    if name == "updates":
        for _ in range(int(arguments.get("n", 1))):
            notify("notifications/resources/updated", {"uri": str(arguments["uri"])})
        if "then" in arguments:
            notify("notifications/resources/updated", {"uri": str(arguments["then"])})
    elif name == "changed":
        for _ in range(int(arguments.get("n", 1))):
            notify(f"notifications/{arguments.get('kind', 'tools')}/list_changed")
    answer(mid, {"content": [{"type": "text", "text": str(arguments.get("text", name))}]})


def handle(message: dict[str, Any]) -> None:
    method, mid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if mid is None:
        return
    if method == "initialize":
        capabilities = {
            "tools": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True},
            "prompts": {"listChanged": True},
        }
        info = {"name": "subscribing", "version": "1"}
        answer(
            mid, {"protocolVersion": params.get("protocolVersion"), "capabilities": capabilities, "serverInfo": info}
        )
    elif method == "tools/list":
        answer(mid, {"tools": tools()})
    elif method == "tools/call":
        call(mid, str(params.get("name")), params.get("arguments") or {})
    elif method == "resources/list":
        answer(mid, {"resources": [{"uri": "res://item", "name": "item"}]})
    elif method == "resources/read":
        answer(mid, {"contents": [{"uri": params.get("uri"), "text": "item"}]})
    elif method == "resources/subscribe":
        if "slow" in str(params.get("uri")):
            time.sleep(600)
        answer(mid, {})
    elif method in ("resources/unsubscribe", "ping"):
        answer(mid, {})
    elif method == "prompts/list":
        answer(mid, {"prompts": []})
    else:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": f"method not found: {method}"}})


def main() -> None:
    for line in sys.stdin.buffer:
        message = json.loads(line)
        with options.log.open("a") as log:
            log.write(json.dumps(message) + "\n")
        threading.Thread(target=handle, args=(message,), daemon=True).start()


if __name__ == "__main__":
    main()
