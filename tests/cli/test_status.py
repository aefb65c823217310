from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

from click.testing import CliRunner

from toolscout.cli import main

SERVERS = Path(__file__).parents[1] / "gateway" / "servers"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_without_a_running_gateway_status_probes_each_upstream_once(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    servers = {
        "paged": {"command": sys.executable, "args": [str(SERVERS / "paged.py")]},
        "ghost": {"command": str(tmp_path / "missing")},
    }
    config.write_text(json.dumps({"mcpServers": servers, "toolscout": {"port": free_port()}}))
    result = CliRunner().invoke(main, ["status", str(config)])
    assert result.exit_code == 1, result.output
    assert "no gateway answers" in result.output
    assert "paged" in result.output and "6 tools" in result.output
    assert "ghost" in result.output and "failed" in result.output


def test_status_needs_a_config_or_a_url() -> None:
    result = CliRunner().invoke(main, ["status"])
    assert result.exit_code == 2
    assert "give CONFIG or --url" in result.output
