"""Run one jq query in a child process, so a runaway query can be stopped and cannot touch the parent.

Started by `toolscout.offload._query` as ``python -I <this file>`` with an empty environment.
Reads one JSON header line from stdin (``expression``, ``max_chars``, ``memory_mb``,
``cpu_s``), then the input text; writes one JSON answer to stdout. Imports only the
standard library and `jq`.
"""

from __future__ import annotations

import json
import math
import os
import sys

_NICENESS = 19


def _limit(memory_mb: int, cpu_s: int) -> None:
    if hasattr(os, "nice"):
        # The lowest CPU priority: a runaway query uses what the gateway and its clients leave idle.
        os.nice(_NICENESS)
    try:
        import resource
    except ImportError:  # not POSIX: the parent's timeout still applies
        return
    for kind, value in ((resource.RLIMIT_AS, memory_mb << 20), (resource.RLIMIT_CPU, cpu_s)):
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            continue


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_finite(item) for item in value]
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    return value


def _run(header: dict[str, object], text: str) -> dict[str, object]:
    import jq

    max_chars = int(header["max_chars"])  # type: ignore[call-overload]
    try:
        program = jq.compile(str(header["expression"]))
    except ValueError as exc:
        return {"error": "compile", "message": str(exc)}
    results: list[str] = []
    used = 0
    try:
        for value in program.input_text(text):
            encoded = json.dumps(_finite(value), ensure_ascii=False, separators=(",", ":"))
            if used + len(encoded) > max_chars:
                return {"results": results, "truncated": True, "next_chars": len(encoded), "next_head": encoded[:400]}
            results.append(encoded)
            used += len(encoded)
    except ValueError as exc:
        message = str(exc)
        kind = "parse" if message.startswith("parse error") else "runtime"
        return {"error": kind, "message": message, "results": results}
    return {"results": results, "truncated": False}


def main() -> None:
    """Answer the one query on stdin."""
    header = json.loads(sys.stdin.buffer.readline())
    _limit(int(header["memory_mb"]), int(header["cpu_s"]))
    try:
        answer = _run(header, sys.stdin.buffer.read().decode("utf-8"))
    except MemoryError:
        answer = {"error": "memory", "message": "the query needed more memory than allowed"}
    sys.stdout.write(json.dumps(answer, ensure_ascii=False))


if __name__ == "__main__":
    main()
