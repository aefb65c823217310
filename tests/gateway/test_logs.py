from __future__ import annotations

import json
import logging

import pytest

from toolscout.gateway._http._logs import JsonFormatter, configure_logging


def test_json_lines_carry_the_message_and_every_extra_field() -> None:
    record = logging.LogRecord("toolscout.gateway", logging.INFO, __file__, 1, "call tool=%s", ("git__git_log",), None)
    record.__dict__.update({"event": "tool_call", "latency_ms": 1.25})
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "call tool=git__git_log"
    assert line["level"] == "info" and line["logger"] == "toolscout.gateway"
    assert line["event"] == "tool_call" and line["latency_ms"] == 1.25
    assert "args" not in line and "msg" not in line


def test_text_log_lines_escape_newlines_and_terminal_escapes_from_upstreams(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    configure_logging(verbose=False, style="text")  # writes to sys.stderr, which capsys holds
    try:
        forged = "forged\n12:00:00 ERROR toolscout: \x1b[31mowned\x1b[0m"
        logging.getLogger("toolscout.gateway").warning("upstream %r: left out tool %s: bad", "evil", forged)
    finally:
        root.handlers[:], root.level = handlers, level
    written = capsys.readouterr().err
    assert written.count("\n") == 1 and "\x1b" not in written
    assert "forged\\n12:00:00 ERROR toolscout: \\x1b[31mowned" in written
