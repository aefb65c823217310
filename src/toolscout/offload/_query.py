"""jq queries over a stored JSON output, run in a short-lived child process with a time and memory limit.

Workers are a bounded pool: a query takes one of the `workers` slots (waiting at most `queue_s`
for one, then answered "busy, retry"), so a burst of queries cannot take the machine's memory.
The child (`_jq_worker.py`) gets an empty environment (so ``$ENV`` reveals nothing), only the
output's text on stdin, and no module search path it could use: programs that import or
include jq modules are refused before anything runs.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import re
import sys
import tempfile
from pathlib import Path

import anyio

from .._clipping import clip
from .._texts import Offload
from .._tokens import TokenCounter
from .._types import JsonObject
from ..dispatch import ToolError
from ._measure import fit_prefix

__all__ = ["MAX_EXPRESSION_LENGTH", "run_query"]

MAX_EXPRESSION_LENGTH = 2_000
"""Longest accepted jq expression, in characters."""

_WORKER = Path(__file__).with_name("_jq_worker.py")
_MODULE_DIRECTIVE = re.compile(r"\A(?:\s|#[^\n]*(?:\n|\Z))*(?:import|include|module)\b")
_MODULE_BUILTINS = re.compile(r"(?<![\w$])(?:modulemeta|get_search_list)(?!\w)")
_TOOL = "output_query"
# An empty environment, except what Python itself needs to start on Windows.
_ENV = {"SYSTEMROOT": os.environ["SYSTEMROOT"]} if os.name == "nt" and "SYSTEMROOT" in os.environ else {}


async def run_query(
    data: bytes,
    expression: str,
    *,
    counter: TokenCounter,
    max_tokens: int,
    timeout_s: float,
    memory_mb: int,
    workers: anyio.CapacityLimiter | None = None,
    queue_s: float = 0.0,
) -> JsonObject | ToolError:
    """Run `expression` over the JSON text `data`; the answer holds at most `max_tokens` tokens of results.

    Several JSON values one after another (JSON Lines) are a stream of inputs, as with the jq CLI.
    With `workers`, the query runs only while holding one of its slots, waiting at most `queue_s`.
    """
    problem = _check(expression)
    if problem is not None:
        return _error(problem, Offload.FIX_EXPRESSION)
    if importlib.util.find_spec("jq") is None:
        return _error(Offload.NO_JQ, Offload.NO_JQ_HINT)
    if workers is None:
        return await _run(
            data, expression, counter=counter, max_tokens=max_tokens, timeout_s=timeout_s, memory_mb=memory_mb
        )
    acquired = False
    with anyio.move_on_after(queue_s):
        await workers.acquire()
        acquired = True
    if not acquired:
        return ToolError(
            code="busy",
            message=Offload.busy(int(workers.total_tokens), queue_s),
            hint=Offload.BUSY_HINT,
            tool=_TOOL,
        )
    try:
        return await _run(
            data, expression, counter=counter, max_tokens=max_tokens, timeout_s=timeout_s, memory_mb=memory_mb
        )
    finally:
        workers.release()


async def _run(
    data: bytes, expression: str, *, counter: TokenCounter, max_tokens: int, timeout_s: float, memory_mb: int
) -> JsonObject | ToolError:
    header = {
        "expression": expression,
        "max_chars": max_tokens * 8,
        "memory_mb": memory_mb,
        "cpu_s": math.ceil(timeout_s) + 1,
    }
    payload = json.dumps(header).encode() + b"\n" + data
    done = None
    with anyio.move_on_after(timeout_s):
        done = await anyio.run_process(
            [sys.executable, "-I", str(_WORKER)], input=payload, check=False, env=_ENV, cwd=tempfile.gettempdir()
        )
    if done is None:
        return _error(Offload.query_timeout(timeout_s), Offload.NARROW)
    try:
        answer = json.loads(done.stdout)
    except ValueError:
        return _error(Offload.OUT_OF_MEMORY, Offload.NARROW)
    return _answer(answer, counter=counter, max_tokens=max_tokens)


def _check(expression: str) -> str | None:
    if not expression.strip():
        return Offload.EMPTY_EXPRESSION
    if len(expression) > MAX_EXPRESSION_LENGTH:
        return Offload.expression_too_long(len(expression), MAX_EXPRESSION_LENGTH)
    if _MODULE_DIRECTIVE.match(expression) or _MODULE_BUILTINS.search(expression):
        return Offload.NO_MODULES
    return None


def _answer(answer: JsonObject, *, counter: TokenCounter, max_tokens: int) -> JsonObject | ToolError:
    kind = answer.get("error")
    if kind == "compile":
        return _error(Offload.invalid_expression(_first_lines(answer)), Offload.FIX_SYNTAX)
    if kind == "parse":
        return _error(Offload.not_json(_first_lines(answer)), Offload.NOT_JSON_HINT)
    if kind == "memory":
        return _error(Offload.MEMORY_LIMIT, Offload.NARROW)
    if kind == "runtime":
        return _error(Offload.jq_error(_first_lines(answer)), Offload.CHECK_SHAPE)
    texts = answer.get("results")
    if not isinstance(texts, list):
        return _error(Offload.NO_ANSWER, Offload.NARROW)
    results: list[object] = []
    used = 0
    truncated = bool(answer.get("truncated"))
    for text in texts:
        cost = counter.count(str(text))
        if used + cost > max_tokens:
            truncated = True
            break
        results.append(json.loads(str(text)))
        used += cost
    out: JsonObject = {"results": results, "count": len(results), "truncated": truncated}
    if truncated:
        if not results:
            first = str(texts[0]) if texts else str(answer.get("next_head", ""))
            head = first[: fit_prefix(first, min(max_tokens // 2, 200), counter, prefer_line_end=False)]
            out["first_result_head"] = head
            out["first_result_chars"] = len(first) if texts else answer.get("next_chars")
        out["hint"] = f"Only the first {len(results)} results fit. {Offload.NARROW}"
    return out


def _first_lines(answer: JsonObject) -> str:
    message = str(answer.get("message", "")).strip()
    return clip(" ".join(line.strip() for line in message.splitlines()[:3] if line.strip()), 400)


def _error(message: str, hint: str) -> ToolError:
    return ToolError(code="query_failed", message=message, hint=hint, tool=_TOOL)
