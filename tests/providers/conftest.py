"""Shared fixtures: a local HTTP server replaying provider responses, a test catalog, SDK-type checks."""

from __future__ import annotations

import json
import threading
import types
import typing
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import typing_extensions
from pydantic import BaseModel

from toolscout import ScoutSettings, ToolCall, ToolScout, ToolSpec

Reply = dict[str, object] | Callable[[dict[str, object]], dict[str, object]]


@dataclass
class ReplayServer:
    """Answers POSTs with queued provider responses, by endpoint, and records every request body."""

    url: str = ""
    queues: dict[str, deque[Reply]] = field(default_factory=dict)
    received: list[tuple[str, dict[str, object], dict[str, str]]] = field(default_factory=list)

    def queue(self, endpoint: str, *replies: Reply) -> None:
        self.queues.setdefault(endpoint, deque()).extend(replies)

    def sent(self, endpoint: str) -> list[dict[str, object]]:
        """The JSON bodies the client posted to `endpoint`, in order."""
        return [body for path, body, _ in self.received if path.endswith(endpoint)]

    def headers(self, endpoint: str) -> list[dict[str, str]]:
        return [headers for path, _, headers in self.received if path.endswith(endpoint)]

    def reply(self, path: str, body: dict[str, object], headers: dict[str, str]) -> tuple[int, dict[str, object]]:
        self.received.append((path, body, headers))
        for endpoint, replies in self.queues.items():
            if path.endswith(endpoint) and replies:
                reply = replies.popleft()
                return 200, reply(body) if callable(reply) else reply
        return 500, {"error": {"message": f"replay server: nothing queued for {path}", "type": "server_error"}}

    # Builders of real response shapes -------------------------------------------------------

    def anthropic(self, *content: dict[str, object], stop_reason: str = "tool_use") -> None:
        self.queue(
            "/v1/messages",
            {
                "id": f"msg_{len(self.received):04d}",
                "type": "message",
                "role": "assistant",
                "model": "claude-opus-4-8",
                "content": list(content),
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 20},
            },
        )

    def chat(self, *, content: str | None = None, tool_calls: list[dict[str, object]] | None = None) -> None:
        message: dict[str, object] = {"role": "assistant", "content": content, "refusal": None}
        if tool_calls:
            message["tool_calls"] = tool_calls
        self.queue(
            "/chat/completions",
            {
                "id": "chatcmpl-replay",
                "object": "chat.completion",
                "created": 1_760_000_000,
                "model": "gpt-4.1",
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if tool_calls else "stop",
                        "logprobs": None,
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            },
        )

    def responses(self, *output: dict[str, object]) -> None:
        self.queue(
            "/responses",
            {
                "id": "resp_replay",
                "object": "response",
                "created_at": 1_760_000_000,
                "status": "completed",
                "model": "gpt-5.4",
                "output": list(output),
                "parallel_tool_calls": True,
                "tool_choice": "auto",
                "tools": [],
                "error": None,
                "incomplete_details": None,
                "instructions": None,
                "metadata": {},
                "temperature": 1.0,
                "top_p": 1.0,
                "usage": {
                    "input_tokens": 100,
                    "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": 20,
                    "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": 120,
                },
            },
        )

    def gemini(self, *parts: dict[str, object]) -> None:
        self.queue(
            ":generateContent",
            {
                "candidates": [
                    {"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP", "index": 0}
                ],
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
                "modelVersion": "gemini-2.5-flash",
            },
        )


def chat_call(call_id: str, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    server = ReplayServer()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            headers = {key.lower(): value for key, value in self.headers.items()}
            status, reply = server.reply(self.path, body, headers)
            data = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield server
    httpd.shutdown()
    httpd.server_close()
    thread.join()


TOOLS = [
    ToolSpec(
        name="terminal",
        description="Run a shell command in the workspace.",
        parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    ),
    ToolSpec(
        name="weather.forecast",
        namespace="weather",
        description="Weather forecast for a city, for the next days.",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    ),
    ToolSpec(
        name="github__create_issue",
        namespace="github",
        description="Open a new issue in a GitHub repository.",
        parameters={
            "type": "object",
            "properties": {"repo": {"type": "string"}, "title": {"type": "string"}},
            "required": ["repo", "title"],
        },
    ),
    ToolSpec(name="github__list_issues", namespace="github", description="List the issues of a GitHub repository."),
    ToolSpec(name="github__close_issue", namespace="github", description="Close an issue in a GitHub repository."),
    ToolSpec(name="jira__create_ticket", namespace="jira", description="Create a Jira ticket in a project."),
    ToolSpec(name="jira__assign_ticket", namespace="jira", description="Assign a Jira ticket to a person."),
    ToolSpec(name="slack__post_message", namespace="slack", description="Post a message to a Slack channel."),
    ToolSpec(name="calendar__create_event", namespace="calendar", description="Create a calendar event."),
    ToolSpec(name="convert_currency", description="Convert an amount of money between currencies."),
]


def run_tool(call: ToolCall) -> object:
    if call.name == "weather.forecast":
        return f"{call.arguments['city']}: sunny, 21 °C"
    return {"ran": call.name, "arguments": call.arguments}


@pytest.fixture
def tools() -> list[ToolSpec]:
    return list(TOOLS)


@pytest.fixture
def make_scout() -> Callable[..., ToolScout]:
    def make(style: str = "bridge", **settings: object) -> ToolScout:
        return ToolScout(
            TOOLS,
            core=["terminal"],
            settings=ScoutSettings(mode="on", style=style, **settings),  # type: ignore[arg-type]
            executor=run_tool,
        )

    return make


def conforms(kind: object, payload: object) -> bool:
    """True when `payload` matches the SDK's request type `kind` exactly: required keys present,
    no unknown keys, every value of the declared type (pydantic would silently drop unknown keys)."""
    kind = _strip(kind)
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if kind in (object, typing.Any):
        return True
    if kind is type(None):
        return payload is None
    if origin in (typing.Union, types.UnionType):
        return any(conforms(arg, payload) for arg in args)
    if origin is typing.Literal:
        return payload in args
    if typing_extensions.is_typeddict(kind):
        if not isinstance(payload, dict):
            return False
        hints = typing_extensions.get_type_hints(kind)
        required: frozenset[str] = getattr(kind, "__required_keys__", frozenset())
        return required <= payload.keys() <= hints.keys() and all(
            conforms(hints[key], value) for key, value in payload.items()
        )
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return False  # response models: a request must use the Param types
    if origin is not None and isinstance(origin, type) and issubclass(origin, Mapping):
        return isinstance(payload, dict) and all(conforms(args[-1], value) for value in payload.values())
    if origin is not None and (
        (isinstance(origin, type) and issubclass(origin, Iterable)) or "Sequence" in getattr(origin, "__name__", "")
    ):
        return isinstance(payload, list) and all(conforms(args[0], item) for item in payload)
    if kind is float:
        return isinstance(payload, int | float) and not isinstance(payload, bool)
    if isinstance(kind, type):
        return isinstance(payload, kind) and (kind is bool or not isinstance(payload, bool))
    raise TypeError(f"conforms() does not know {kind!r}")


def _strip(kind: object) -> object:
    """Drop Required / NotRequired / Annotated wrappers and resolve type aliases."""
    while True:
        origin = typing.get_origin(kind)
        if origin in (
            typing.Required,
            typing.NotRequired,
            typing.Annotated,
            typing_extensions.Required,
            typing_extensions.NotRequired,
            typing_extensions.Annotated,
        ):
            kind = typing.get_args(kind)[0]
        elif isinstance(kind, typing.TypeAliasType if hasattr(typing, "TypeAliasType") else ()):
            kind = kind.__value__
        else:
            return kind


@pytest.fixture
def sdk_conforms() -> Callable[[object, object], bool]:
    return conforms
