from __future__ import annotations

import json
import logging

from toolscout.gateway._logs import JsonFormatter


def test_json_lines_carry_the_message_and_every_extra_field() -> None:
    record = logging.LogRecord("toolscout.gateway", logging.INFO, __file__, 1, "call tool=%s", ("git__git_log",), None)
    record.__dict__.update({"event": "tool_call", "latency_ms": 1.25})
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "call tool=git__git_log"
    assert line["level"] == "info" and line["logger"] == "toolscout.gateway"
    assert line["event"] == "tool_call" and line["latency_ms"] == 1.25
    assert "args" not in line and "msg" not in line
