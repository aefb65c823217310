"""Answer a call of an offload tool: find the session's output, then read, search or query it."""

from __future__ import annotations

import anyio
import anyio.to_thread

from .._errors import StoreError
from .._texts import Offload
from .._tokens import TokenCounter
from .._types import JsonObject
from ..dispatch import ToolCall, ToolError
from ._document import Document, DocumentCache
from ._grep import search_document
from ._query import run_query
from ._read import read_chars, read_lines
from ._settings import OffloadSettings
from ._store import OffloadStore, OutputMeta, OutputMissing
from ._tools import QUERY, READ

__all__ = ["answer_call"]


async def answer_call(
    call: ToolCall,
    *,
    store: OffloadStore,
    cache: DocumentCache,
    counter: TokenCounter,
    settings: OffloadSettings,
    jq_workers: anyio.CapacityLimiter | None = None,
) -> JsonObject | ToolError:
    """The answer to one offload-tool call (arguments already validated against the tool's schema)."""
    arguments = call.arguments
    loaded = await anyio.to_thread.run_sync(_load, store, cache, call.session_id, arguments.get("handle"), call.name)
    if isinstance(loaded, ToolError):
        return loaded
    meta, document = loaded
    answer: JsonObject | ToolError
    if call.name == QUERY:
        answer = await run_query(
            document.data,
            str(arguments["expression"]),
            counter=counter,
            max_tokens=settings.read_tokens,
            timeout_s=settings.jq_timeout_s,
            memory_mb=settings.jq_memory_mb,
            workers=jq_workers,
            queue_s=settings.jq_queue_s,
        )
    elif call.name == READ:
        answer = await anyio.to_thread.run_sync(_read, document, arguments, counter, settings)
    else:
        answer = await anyio.to_thread.run_sync(_search, document, arguments, counter, settings)
    if isinstance(answer, ToolError):
        return answer
    return {"handle": meta.handle, **answer}


def _load(
    store: OffloadStore, cache: DocumentCache, session_id: str, handle: object, tool: str
) -> tuple[OutputMeta, Document] | ToolError:
    try:
        meta = store.meta(session_id, handle if isinstance(handle, str) else "")
        if meta.kind == "binary":
            return ToolError(
                code="invalid_request",
                message=Offload.binary(meta.handle, meta.content_type, meta.size),
                hint=Offload.BINARY_HINT,
                tool=tool,
            )
        document = cache.get((session_id, meta.handle))
        if document is None:
            data = store.read(session_id, meta.handle)
            data.decode("utf-8")
            document = Document(data)
            cache.put((session_id, meta.handle), document)
    except OutputMissing as exc:
        return _missing(exc, tool)
    except (StoreError, UnicodeDecodeError) as exc:
        return ToolError(
            code="output_not_found",
            message=Offload.unreadable(str(exc)),
            hint=Offload.CALL_AGAIN,
            tool=tool,
        )
    return meta, document


def _missing(exc: OutputMissing, tool: str) -> ToolError:
    if exc.reason == "expired":
        return ToolError(
            code="output_expired",
            message=Offload.EXPIRED,
            hint=Offload.EXPIRED_HINT,
            tool=tool,
        )
    if exc.reason == "invalid":
        message = "That is not an output handle; handles look like out_ followed by 20 hex digits."
    else:
        message = "No output with this handle exists in this session."
    return ToolError(
        code="output_not_found",
        message=message,
        hint=Offload.HANDLE_HINT,
        tool=tool,
    )


def _read(
    document: Document, arguments: JsonObject, counter: TokenCounter, settings: OffloadSettings
) -> JsonObject | ToolError:
    offset, start_line = _int(arguments.get("offset")), _int(arguments.get("start_line"))
    if offset is not None and (start_line is not None or arguments.get("lines") is not None):
        return ToolError(
            code="invalid_request",
            message=Offload.LINES_OR_CHARS,
            hint=Offload.LINES_OR_CHARS_HINT,
            tool=READ,
        )
    if offset is not None:
        return read_chars(
            document,
            offset=offset,
            length=_int(arguments.get("length")),
            max_tokens=settings.read_tokens,
            counter=counter,
        )
    return read_lines(
        document,
        start_line=start_line or 1,
        lines=_int(arguments.get("lines")),
        max_tokens=settings.read_tokens,
        counter=counter,
    )


def _search(
    document: Document, arguments: JsonObject, counter: TokenCounter, settings: OffloadSettings
) -> JsonObject | ToolError:
    context = _int(arguments.get("context"))
    return search_document(
        document,
        str(arguments["pattern"]),
        regex=arguments.get("regex") is True,
        case_sensitive=arguments.get("case_sensitive") is True,
        context=2 if context is None else context,
        start_line=_int(arguments.get("start_line")) or 1,
        offset=_int(arguments.get("offset")),
        max_matches=settings.max_matches,
        max_tokens=settings.read_tokens,
        counter=counter,
    )


def _int(value: object) -> int | None:
    """An integer argument (JSON Schema also calls 3.0 an integer), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None
