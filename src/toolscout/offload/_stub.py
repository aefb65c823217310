"""Decide whether a result is offloaded; if so, store its parts and build the stub the model gets instead."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from .._errors import StoreError
from .._texts import Offload
from .._tokens import TokenCounter
from .._types import JsonObject
from ._measure import count_tokens, fit_prefix, over_budget
from ._parts import Part, model_text, plain_result, split_parts, whole_part
from ._shape import json_shape
from ._store import OffloadStore, OutputMeta
from ._tools import QUERY, READ, SEARCH

__all__ = ["offload_result"]

logger = logging.getLogger("toolscout.offload")

_SHAPE_SHARE = 0.6


@dataclass(frozen=True, slots=True, kw_only=True)
class _Kept:
    part: Part
    tokens: int
    meta: OutputMeta | None
    refused: str | None


def offload_result(
    result: object,
    *,
    session_id: str,
    tool: str,
    budget: int,
    preview_tokens: int,
    store: OffloadStore,
    counter: TokenCounter,
) -> JsonObject | None:
    """The stub replacing `result`, or None when `result` costs at most `budget` tokens.

    Small text parts of a mixed result stay inline; other parts are stored. A part the store
    refuses (too large for the session, disk error) is described with its preview only.
    The stub itself costs at most `budget` tokens.
    """
    plain = plain_result(result)
    text = model_text(plain)
    if not over_budget(text, budget, counter):
        return None
    parts = split_parts(plain)
    allowance = preview_tokens // 2 if len(parts) > 1 else -1
    kept: list[_Kept] = []
    for part in parts:
        item = _keep(part, session_id=session_id, tool=tool, store=store, counter=counter, inline_limit=allowance)
        if item.meta is None and item.refused is None:
            allowance -= item.tokens
        kept.append(item)
    header: JsonObject = {
        "offloaded": True,
        "tool": tool,
        "message": Offload.stored(count_tokens(text, counter), budget, READ, SEARCH, QUERY),
    }
    if isinstance(plain, dict) and plain.get("isError") is True:
        header["tool_reported_error"] = True
    share = preview_tokens
    while True:
        stub = {**header, "parts": _describe(kept, share, counter)}
        if counter.count(json.dumps(stub, ensure_ascii=False)) <= budget:
            return stub
        if share == 0:
            break
        share //= 2
    # Many parts under a small budget: describe the whole result as one stored JSON part instead.
    single = _keep(whole_part(plain), session_id=session_id, tool=tool, store=store, counter=counter, inline_limit=-1)
    return {**header, "parts": _describe([single], 0, counter)}


def _keep(
    part: Part, *, session_id: str, tool: str, store: OffloadStore, counter: TokenCounter, inline_limit: int
) -> _Kept:
    tokens = count_tokens(part.text, counter) if part.kind != "binary" else 0
    if part.kind != "binary" and tokens <= inline_limit:
        return _Kept(part=part, tokens=tokens, meta=None, refused=None)
    try:
        meta = store.put(session_id, part.body, kind=part.kind, content_type=part.content_type, tool=tool)
    except StoreError as exc:
        logger.warning("could not store an output of %s: %s", tool, exc)
        return _Kept(part=part, tokens=tokens, meta=None, refused=str(exc))
    return _Kept(part=part, tokens=tokens, meta=meta, refused=None)


def _describe(kept: list[_Kept], budget: int, counter: TokenCounter) -> list[JsonObject]:
    previews = [item for item in kept if item.part.kind != "binary" and (item.meta is not None or item.refused)]
    each = budget // max(1, len(previews))
    described: list[JsonObject] = []
    for item in kept:
        part = item.part
        entry: JsonObject = {}
        if item.meta is not None:
            entry["handle"] = item.meta.handle
        entry["content_type"] = part.content_type
        if len(kept) > 1:
            entry["from"] = part.label
        if item.meta is None and item.refused is None:
            entry["text"] = part.text
            described.append(entry)
            continue
        entry["bytes"] = len(part.body)
        if part.kind == "binary":
            entry["note"] = Offload.BINARY_PART
        else:
            entry.update(_text_facts(part, item.tokens, each, counter))
        if item.refused is not None:
            entry["stored"] = False
            entry["note"] = Offload.not_stored(item.refused)
            entry.pop("next", None)
        described.append(entry)
    return described


def _text_facts(part: Part, tokens: int, budget: int, counter: TokenCounter) -> JsonObject:
    text = part.text
    facts: JsonObject = {"lines": text.count("\n") + (0 if text.endswith("\n") else 1), "tokens": tokens}
    head_budget = budget
    if part.kind == "json" and budget > 0:
        shape = json_shape(part.value, max_tokens=int(budget * _SHAPE_SHARE), counter=counter)
        facts["shape"] = shape
        head_budget = budget - counter.count(json.dumps(shape, ensure_ascii=False, default=str))
    if head_budget <= 0:
        return facts
    end = fit_prefix(text, head_budget, counter)
    facts["preview"] = text[:end]
    if end < len(text):
        ends_line = text[:end].endswith("\n")
        facts["next"] = {"start_line": text.count("\n", 0, end) + 1} if ends_line else {"offset": end}
    return facts
