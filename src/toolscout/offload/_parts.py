"""Split a tool result into the parts offloading stores: text, JSON, and binary (images, audio, blobs).

Accepted results: a string; bytes; any JSON value; a pydantic model (dumped in its JSON
form); an MCP ``CallToolResult`` as a dict (``content`` blocks, ``structuredContent``,
``isError``); or a bare list of MCP content blocks. The core imports no MCP package: blocks
are recognised by their wire shape.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import cast

from .._types import JsonObject
from ._store import OutputKind

__all__ = ["MAX_PARTS", "Part", "model_text", "plain_result", "split_parts", "whole_part"]

MAX_PARTS = 8
"""A result with more parts than this is stored whole, as one JSON part."""

_BLOCK_TYPES = frozenset({"text", "image", "audio", "resource", "resource_link"})
_SURROGATE = re.compile("[\ud800-\udfff]")
_RESULT_KEYS = frozenset({"content", "structuredContent", "isError", "_meta", "meta", "resultType"})


@dataclass(frozen=True, slots=True, kw_only=True)
class Part:
    """One piece of a result: its text (text and JSON) or bytes (binary)."""

    kind: OutputKind
    """Text, JSON or binary."""
    content_type: str
    """MIME type (as claimed by the result, else inferred)."""
    text: str = ""
    """The text of a text or JSON part, exactly as the tool produced it when it produced text."""
    data: bytes = b""
    """The bytes of a binary part."""
    value: object = None
    """The parsed value of a JSON part."""
    label: str = ""
    """Where the part came from, e.g. ``content[2]`` or ``structuredContent``."""

    @property
    def body(self) -> bytes:
        """What is stored: UTF-8 text, or the bytes."""
        return self.data if self.kind == "binary" else self.text.encode("utf-8")


def plain_result(result: object) -> object:
    """`result` with pydantic models dumped to their JSON form (MCP types use camelCase aliases)."""
    dump = getattr(result, "model_dump", None)
    if callable(dump) and not isinstance(result, type):
        return dump(mode="json", by_alias=True, exclude_none=True)
    return result


def model_text(result: object) -> str:
    """The text a model receives for `result` (as `ToolOutcome.to_text` renders it)."""
    if isinstance(result, str):
        return result
    if isinstance(result, bytes | bytearray):
        return base64.b64encode(result).decode("ascii")
    return json.dumps(result, ensure_ascii=False, default=str)


def split_parts(result: object) -> list[Part]:
    """The parts of a plain result (see `plain_result`), in order; at most `MAX_PARTS`."""
    if isinstance(result, str):
        return [_text_part(result, "text/plain", "result")]
    if isinstance(result, bytes | bytearray):
        return [Part(kind="binary", content_type="application/octet-stream", data=bytes(result), label="result")]
    blocks = _mcp_blocks(result)
    if blocks is None:
        return [whole_part(result)]
    parts = _block_parts(blocks)
    if isinstance(result, dict) and "structuredContent" in result:
        structured = result["structuredContent"]
        if not (len(parts) == 1 and _repeats(structured, parts[0])):
            parts.append(_json_part(structured, "structuredContent"))
    if len(parts) > MAX_PARTS:
        return [whole_part(result)]
    return parts


def whole_part(result: object) -> Part:
    """The whole plain result as one part: a string as text, anything else as JSON."""
    if isinstance(result, str):
        return _text_part(result, "text/plain", "result")
    return _json_part(result, "result")


def _repeats(structured: object, part: Part) -> bool:
    """True when `structured` says what `part` says: the same value, or it wrapped in a one-key object.

    Servers commonly send their text both ways (``{"content": text}``, ``{"result": value}``).
    """
    same = (part.text, part.value) if part.kind == "json" else (part.text,)
    if any(structured == item for item in same):
        return True
    return (
        isinstance(structured, dict)
        and len(structured) == 1
        and any(next(iter(structured.values())) == item for item in same)
    )


def _mcp_blocks(result: object) -> list[JsonObject] | None:
    """The content blocks if `result` is an MCP tool result or a list of blocks, else None."""
    content = result
    if isinstance(result, dict):
        if not set(result) <= _RESULT_KEYS or "content" not in result:
            return None
        content = result["content"]
    if not isinstance(content, list) or not content:
        return None
    if all(isinstance(block, dict) and block.get("type") in _BLOCK_TYPES for block in content):
        return cast(list[JsonObject], content)
    return None


def _block_parts(blocks: list[JsonObject]) -> list[Part]:
    parts: list[Part] = []
    texts: list[str] = []
    first_text = 0

    def flush() -> None:
        if texts:
            parts.append(_text_part("\n".join(texts), "text/plain", f"content[{first_text}]"))
            texts.clear()

    for index, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            if not texts:
                first_text = index
            texts.append(cast(str, block["text"]))
            continue
        flush()
        label = f"content[{index}]"
        mime = block.get("mimeType")
        resource = block.get("resource")
        if kind in ("image", "audio") and isinstance(block.get("data"), str):
            default = "image/png" if kind == "image" else "audio/wav"
            parts.append(_binary(cast(str, block["data"]), str(mime or default), label))
        elif kind == "resource" and isinstance(resource, dict):
            mime = resource.get("mimeType")
            where = f"{label} {resource.get('uri', '')}".strip()
            if isinstance(resource.get("text"), str):
                parts.append(_text_part(cast(str, resource["text"]), str(mime or "text/plain"), where))
            elif isinstance(resource.get("blob"), str):
                parts.append(_binary(cast(str, resource["blob"]), str(mime or "application/octet-stream"), where))
            else:
                parts.append(_json_part(block, label))
        else:
            parts.append(_json_part(block, label))
    flush()
    return parts


def _text_part(text: str, content_type: str, label: str) -> Part:
    text = _valid_utf8(text)
    claims_json = content_type == "application/json" or content_type.endswith("+json")
    if claims_json or text.lstrip()[:1] in ("{", "["):
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            return Part(kind="text", content_type=content_type, text=text, label=label)
        return Part(kind="json", content_type="application/json", text=text, value=value, label=label)
    return Part(kind="text", content_type=content_type, text=text, label=label)


def _json_part(value: object, label: str) -> Part:
    text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    return Part(kind="json", content_type="application/json", text=_valid_utf8(text), value=value, label=label)


def _binary(encoded: str, content_type: str, label: str) -> Part:
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        data = encoded.encode("utf-8", "replace")
    return Part(kind="binary", content_type=content_type, data=data, label=label)


def _valid_utf8(text: str) -> str:
    """`text` with lone surrogates (which UTF-8 cannot hold) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")
