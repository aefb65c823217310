from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolscout.cli import main

SERVERS = Path(__file__).parents[1] / "gateway" / "servers"
pytestmark = pytest.mark.anyio


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


def run_status(*args: str) -> tuple[int, str, str]:
    """`toolscout status` as a real subprocess: exit code, stdout, stderr."""
    import subprocess

    command = [str(Path(sys.executable).with_name("toolscout")), "status", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_a_url_that_is_not_a_gateway_is_one_line_and_exit_1(tmp_path: Path) -> None:
    import subprocess
    import time
    import urllib.request

    port = free_port()
    (tmp_path / "healthz").write_text("<html>not a gateway</html>")
    web = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=tmp_path)
    try:
        for _ in range(200):  # bounded wait for the port
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)
        code, out, err = run_status("--url", f"http://127.0.0.1:{port}/mcp")
    finally:
        web.terminate()
        web.wait()
    assert code == 1
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "not a toolscout gateway" in err


def test_a_malformed_url_is_one_line_and_exit_1() -> None:
    code, _, err = run_status("--url", "htp:/nowhere")
    assert code == 1
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


async def test_a_rejected_token_and_another_gateway_are_one_line_and_exit_1(tmp_path: Path) -> None:
    import anyio

    from tests.gateway.conftest import http_gateway, write_config

    paged = {"command": sys.executable, "args": [str(SERVERS / "paged.py")]}
    auth = {"tokens": {"ci": {"token": "a-good-token-0123456789"}}}
    served = write_config(tmp_path / "served.json", {"paged": paged}, auth=auth)
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = write_config(other / "other.json", {"other": paged})
    async with http_gateway(served) as url:
        good = await anyio.to_thread.run_sync(run_status, "--url", url, "--token", "a-good-token-0123456789")
        bad = await anyio.to_thread.run_sync(run_status, "--url", url, "--token", "a-wrong-token-9876543210")
        port = url.rsplit(":", 1)[1].split("/")[0]
        config = json.loads(elsewhere.read_text())
        config["toolscout"]["port"] = int(port)
        elsewhere.write_text(json.dumps(config))
        wrong = await anyio.to_thread.run_sync(run_status, str(elsewhere), "--token", "a-good-token-0123456789")
    assert good[0] == 0 and "paged" in good[1]
    assert bad[0] == 1 and "token" in bad[2] and len(bad[2].strip().splitlines()) == 1
    assert wrong[0] == 1 and "other" in wrong[2] and "paged" in wrong[2]


def test_an_error_naming_the_gateway_url_shows_no_credentials_of_it() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens once closed
    result = CliRunner().invoke(main, ["status", "--url", f"http://ops:pa55-w0rd-9c1e@127.0.0.1:{port}/healthz?k=v1"])
    assert result.exit_code == 1
    assert f"no gateway answers at http://***@127.0.0.1:{port}/healthz?k=***" in result.output
    assert "pa55-w0rd-9c1e" not in result.output
