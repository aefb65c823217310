"""SIGTERM/SIGINT stop the gateway cleanly: exit 0, upstream processes reaped, temporary folders removed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.gateway.conftest import SERVERS, TOOLSCOUT, write_config

LIMIT_S = 20

pytestmark = pytest.mark.anyio


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat")
    return not (state.exists() and state.read_text().split(") ", 1)[-1].startswith("Z"))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_stops_the_http_gateway_cleanly(tmp_path: Path, signum: signal.Signals) -> None:
    state, scratch = tmp_path / "fragile", tmp_path / "tmp"
    scratch.mkdir()
    state.mkdir()
    fragile = {"command": sys.executable, "args": [str(SERVERS / "fragile.py"), str(state)]}
    config = write_config(tmp_path / "gw.json", {"fragile": fragile}, offload={})
    command = [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", "0"]
    env = {**os.environ, "TMPDIR": str(scratch)}
    with (tmp_path / "gateway.log").open("ab") as log:
        process = await anyio.open_process(command, stdout=subprocess.PIPE, stderr=log, env=env)
    assert process.stdout is not None
    with anyio.fail_after(LIMIT_S):
        await process.stdout.receive()  # the URL line: listening
        while not (state / "pid").exists():
            await anyio.sleep(0.05)
    upstream = int((state / "pid").read_text())
    assert any(scratch.iterdir())  # the offload folder exists while serving
    process.send_signal(signum)
    with anyio.fail_after(LIMIT_S):
        code = await process.wait()
    await process.aclose()
    assert code == 0
    assert not alive(upstream)
    assert list(scratch.iterdir()) == []
