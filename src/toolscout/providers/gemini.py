"""Gemini ``generateContent``: ``functionDeclarations``; client-side styles only.

``generateContent`` has no deferred loading (Gemini's Tool Retrieval is an Interactions-API
preview), so only the bridge and reveal styles render here. Schemas go out unchanged as
``parametersJsonSchema`` (JSON Schema, not the OpenAPI subset of ``parameters``). Vertex AI
accepts at most 128 function declarations per request; `render` refuses to exceed the cap.
"""

from __future__ import annotations

from typing import Required, TypedDict

from .._errors import ConfigError
from .._scout import ScoutSession
from .._types import JsonObject
from ..catalog import ToolSpec
from ..dispatch import ToolOutcome
from ._calls import ProviderCall, Rendering, parsed_call, presented
from ._frame import client_frame
from ._json import as_json, dicts, text_of
from ._names import GEMINI_NAMES, NameMap
from ._registry import Adapter
from ._surface import ProviderStyle, surface_guidance

__all__ = [
    "VERTEX_MAX_DECLARATIONS",
    "FunctionDeclaration",
    "FunctionResponse",
    "FunctionResponsePart",
    "GeminiFields",
    "GeminiTool",
    "SystemInstruction",
    "TextPart",
    "answer_text",
    "format_result",
    "parse_calls",
    "render",
]

VERTEX_MAX_DECLARATIONS = 128
"""Vertex AI's cap on function declarations per request."""


class FunctionDeclaration(TypedDict, total=False):
    """A function declaration (``FunctionDeclaration``, REST field names)."""

    name: Required[str]
    description: str
    parametersJsonSchema: JsonObject


class GeminiTool(TypedDict):
    """A ``Tool`` holding function declarations."""

    functionDeclarations: list[FunctionDeclaration]


class TextPart(TypedDict):
    """A text part."""

    text: str


class SystemInstruction(TypedDict):
    """The ``systemInstruction`` content."""

    parts: list[TextPart]


class GeminiFields(TypedDict, total=False):
    """The request fields toolscout sets: ``tools`` and ``systemInstruction``."""

    tools: list[GeminiTool]
    systemInstruction: SystemInstruction


class FunctionResponse(TypedDict, total=False):
    """A ``functionResponse``: ``{"output": ...}`` on success, ``{"error": ...}`` on failure."""

    name: Required[str]
    response: Required[JsonObject]
    id: str


class FunctionResponsePart(TypedDict):
    """A part carrying a ``functionResponse``."""

    functionResponse: FunctionResponse


def render(
    session: ScoutSession,
    *,
    style: ProviderStyle | None = None,
    max_declarations: int | None = VERTEX_MAX_DECLARATIONS,
) -> Rendering[GeminiFields]:
    """Render this turn's ``tools`` and ``systemInstruction`` for ``generateContent``.

    Args:
        session: The toolscout session.
        style: ``bridge`` or ``reveal`` (default: the ToolScout's configured style).
        max_declarations: The most function declarations one request may carry (Vertex AI: 128;
            None for no cap).

    Raises:
        ConfigError: `style` is ``native``, differs from the ToolScout's configured style, or the
            declarations exceed `max_declarations`.
    """
    frame = client_frame(
        session,
        style,
        GEMINI_NAMES,
        no_native="Gemini generateContent has no native tool search (Tool Retrieval is only in the Interactions API); "
        "render 'bridge' or 'reveal'",
    )
    surface, names = frame.surface, frame.names
    declarations = [declaration(tool, names) for tool in (*surface.fixed, *surface.loaded)]
    if max_declarations is not None and len(declarations) > max_declarations:
        raise ConfigError(
            f"{len(declarations)} function declarations exceed the cap of {max_declarations} per request "
            f"({len(surface.fixed)} always sent, {len(surface.loaded)} discovered). Turn tool search on "
            "(ScoutSettings(mode='on')), use the bridge style, which sends no discovered tools, pin fewer tools, "
            "or pass max_declarations=None on the Gemini API, which has no such cap",
            key="max_declarations",
        )
    guidance = surface_guidance(surface, session, names, hosted=False)
    fields: GeminiFields = {}
    if declarations:
        fields["tools"] = [{"functionDeclarations": declarations}]
    if guidance:
        fields["systemInstruction"] = {"parts": [{"text": guidance}]}
    return frame.rendering("gemini", fields, guidance)


def declaration(tool: ToolSpec, names: NameMap) -> FunctionDeclaration:
    """One tool as a Gemini function declaration."""
    return {
        "name": names.to_provider(tool.name),
        "description": tool.description,
        "parametersJsonSchema": tool.parameters,
    }


def parse_calls(response: object, names: NameMap) -> list[ProviderCall]:
    """The ``functionCall`` parts of a ``generateContent`` response (its first candidate)."""
    calls: list[ProviderCall] = []
    for part in _parts(response):
        call = as_json(part.get("functionCall"))
        if isinstance(call, dict):
            calls.append(parsed_call(call.get("name"), call.get("args"), call.get("id"), names))
    return calls


def format_result(outcome: ToolOutcome, call: ProviderCall, rendering: Rendering[GeminiFields]) -> FunctionResponsePart:
    """The ``functionResponse`` part answering `call`."""
    content = presented(outcome, rendering.names)
    response: JsonObject = content if outcome.is_error and isinstance(content, dict) else {"output": content}
    result: FunctionResponse = {"name": call.provider_name, "response": response}
    if call.call_id is not None:
        result["id"] = call.call_id
    return {"functionResponse": result}


def answer_text(response: object) -> str:
    """The text parts of a ``generateContent`` response's first candidate (thoughts left out), joined."""
    return "".join(text for part in _parts(response) if not part.get("thought") and (text := text_of(part.get("text"))))


def _parts(response: object) -> list[JsonObject]:
    candidates = dicts(response, "candidates")
    if not candidates:
        return []
    return dicts(candidates[0].get("content"), "parts")


ADAPTER = Adapter(
    name="gemini",
    names=GEMINI_NAMES,
    renderer=render,
    parse_calls=parse_calls,
    format_result=format_result,
    answer_text=answer_text,
)
"""The Gemini ``generateContent`` adapter (registered as ``gemini``)."""
