"""A config that lists the gateway as its own upstream is refused with one clear line, not respawned forever."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.gateway.conftest import LIMIT_S, TOOLSCOUT


def serve(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TOOLSCOUT, "serve", str(config), *extra],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_a_stdio_upstream_running_toolscout_serve_on_the_same_config_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    me = {"command": TOOLSCOUT, "args": ["serve", "gw.json"], "cwd": str(tmp_path)}
    config.write_text(json.dumps({"mcpServers": {"me": me}, "toolscout": {"store": "memory"}}))
    done = serve(config)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "mcpServers.me" in done.stderr and "its own upstream" in done.stderr


def test_an_http_upstream_at_the_gateways_own_address_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    servers = {"loop": {"url": "http://localhost:18765/mcp"}}
    config.write_text(json.dumps({"mcpServers": servers, "toolscout": {"port": 18765, "store": "memory"}}))
    done = serve(config, "--transport", "http")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "mcpServers.loop" in done.stderr and "this gateway's own address" in done.stderr
