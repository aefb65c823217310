"""What a new user meets on the command line (issue 37 §4), through the real `toolscout` executable."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
TOOLSCOUT = str(Path(sys.executable).with_name("toolscout"))
TIME = ROOT / ".mcp-servers" / "pyvenv" / "bin" / "mcp-server-time"


def toolscout(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real `toolscout` executable; its exit code, stdout and stderr."""
    return subprocess.run([TOOLSCOUT, *args], capture_output=True, text=True, timeout=120, cwd=cwd, input=stdin)


def test_a_missing_cwd_is_named_as_the_folder_not_as_a_missing_command(tmp_path: Path) -> None:
    servers = {"time": {"cwd": "nowhere", "command": str(TIME)}}
    config = tmp_path / "gw.json"
    config.write_text(json.dumps({"mcpServers": servers, "toolscout": {"port": 1}}))
    done = toolscout("status", str(config))
    assert done.returncode == 1
    assert f"cwd {str(tmp_path / 'nowhere')!r} is not a folder" in done.stdout, done.stdout
    assert "No such file or directory" not in done.stdout


@pytest.mark.parametrize("command", ["inspect", "search"])
def test_a_gateway_config_given_as_a_catalog_points_to_catalog_dump(command: str) -> None:
    config = ROOT / "examples" / "mcp_servers.json"
    done = toolscout(command, str(config), *(["github issue"] if command == "search" else []))
    assert done.returncode != 0
    assert "gateway config" in done.stderr and f"toolscout catalog dump {config} -o catalog.json" in done.stderr
    assert "has no 'name'" not in done.stderr


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (
            {"mcpServers": {"time": {"comand": str(TIME)}}},
            "mcpServers.time.comand: unknown setting; did you mean 'command'?",
        ),
        ({"mcpServer": {"time": {"command": str(TIME)}}}, "mcpServer: unknown setting; did you mean 'mcpServers'?"),
        (
            {"mcpServers": {"time": {"command": str(TIME), "arg": []}}},
            "mcpServers.time.arg: unknown setting; did you mean 'args'?",
        ),
        (
            {"mcpServers": {"time": {"command": str(TIME)}}, "toolscout": {"stlye": "bridge"}},
            "toolscout.stlye: unknown setting; did you mean 'style'?",
        ),
    ],
)
def test_a_misspelt_config_key_gets_did_you_mean_in_one_style(tmp_path: Path, document: object, expected: str) -> None:
    config = tmp_path / "gw.json"
    config.write_text(json.dumps(document))
    done = toolscout("serve", str(config), stdin="")
    assert done.returncode != 0
    assert expected in done.stderr, done.stderr


def _read_until(stream: IO[bytes], wanted: bytes, limit_s: float = 60) -> bytes:
    """Bytes of `stream` until `wanted` appears (or `limit_s` passes, or it ends)."""
    seen = b""
    deadline = time.monotonic() + limit_s
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], 0.5)
        if ready:
            chunk = os.read(stream.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
    return seen


def test_serve_in_a_terminal_says_it_waits_for_a_client_and_explains_typed_input(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    config.write_text(json.dumps({"mcpServers": {"time": {"command": str(TIME)}}}))
    main, terminal = pty.openpty()
    process = subprocess.Popen(
        [TOOLSCOUT, "serve", str(config)], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    os.close(terminal)
    try:
        assert process.stderr is not None
        said = _read_until(process.stderr, b"--transport http")
        assert b"waiting for an MCP client" in said, said
        os.write(main, b"hello\n")
        said = _read_until(process.stderr, b"not an MCP message")
        assert b"not an MCP message" in said, said
    finally:
        process.terminate()
        process.wait(timeout=60)
        os.close(main)


def test_serve_from_a_pipe_prints_nothing_before_the_client_speaks(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    config.write_text(json.dumps({"mcpServers": {"time": {"command": str(TIME)}}}))
    done = toolscout("serve", str(config), stdin="")
    assert "waiting for an MCP client" not in done.stderr


def _serve_stderr(config: Path, *flags: str, until: bytes) -> str:
    """What `toolscout serve CONFIG` (stdio, no client yet) wrote to stderr by the time `until` appeared."""
    process = subprocess.Popen(
        [TOOLSCOUT, "serve", str(config), *flags], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert process.stderr is not None
        said = _read_until(process.stderr, until)
        said += _read_until(process.stderr, b"\0", limit_s=3)  # whatever follows it at once
    finally:
        process.terminate()
        process.wait(timeout=60)
    return said.decode()


def test_the_readme_servers_normalized_schemas_are_one_warning_line_with_the_detail_under_verbose(
    tmp_path: Path,
) -> None:
    gitlab = ROOT / ".mcp-servers" / "gitlab" / "node_modules" / ".bin" / "mcp-server-gitlab"
    if not gitlab.exists():
        pytest.skip("the gitlab MCP server is missing: run scripts/setup.sh")
    config = tmp_path / "gw.json"
    servers = {"gitlab": {"command": str(gitlab), "env": {"GITLAB_PERSONAL_ACCESS_TOKEN": "unset"}}}
    config.write_text(json.dumps({"mcpServers": servers}))
    quiet = _serve_stderr(config, until=b"normalized")
    lines = [line for line in quiet.splitlines() if "normalized" in line]
    assert len(lines) == 1, quiet
    assert "9 tools" in lines[0] and "-v" in lines[0]
    verbose = _serve_stderr(config, "-v", until=b"normalized")
    assert len([line for line in verbose.splitlines() if "normalized" in line]) == 1 + 9, verbose


@pytest.mark.parametrize(("style", "bridge"), [("bridge", 3), ("reveal", 1)])
def test_render_counts_the_tools_held_back_for_search(style: str, bridge: int) -> None:
    done = toolscout("render", "sample", "--provider", "openai-chat", "--style", style)
    assert done.returncode == 0, done.stderr
    header = [line for line in done.stdout.splitlines() if "declared" in line][0]
    assert f"({bridge} of them toolscout's bridge tools)" in header and "131 held back for search" in header, header
    assert "0 deferred" not in header


def test_render_native_counts_the_tools_the_provider_defers() -> None:
    done = toolscout("render", "sample", "--provider", "anthropic", "--style", "native")
    assert done.returncode == 0, done.stderr
    header = [line for line in done.stdout.splitlines() if "declared" in line][0]
    assert "131 deferred to the provider" in header and "held back" not in header, header


def test_status_url_shows_the_failed_upstreams_stderr_as_status_config_does(tmp_path: Path) -> None:
    failing = tmp_path / "failing.py"
    failing.write_text("import sys\nprint('fatal: SLACK_BOT_TOKEN is not set', file=sys.stderr)\nsys.exit(1)\n")
    config = tmp_path / "gw.json"
    config.write_text(json.dumps({"mcpServers": {"bad": {"command": sys.executable, "args": [str(failing)]}}}))
    command = [TOOLSCOUT, "serve", str(config), "--transport", "http", "--port", "0", "--wait-for-upstreams"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        try:
            assert process.stdout is not None
            url = process.stdout.readline().decode().strip()
            done = toolscout("status", "--url", url)
        finally:
            process.terminate()
            process.wait(timeout=60)
    assert done.returncode == 1
    assert "its stderr ends with: fatal: SLACK_BOT_TOKEN is not set" in done.stdout, done.stdout


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_search_request_is_refused_not_answered_with_zero_score_hits(query: str) -> None:
    done = toolscout("search", "sample", query)
    assert done.returncode == 2
    assert "QUERY is empty" in done.stderr
    assert "0.000" not in done.stdout


def test_serve_help_names_every_config_format() -> None:
    done = toolscout("serve", "--help")
    assert "TOML" in done.stdout and "YAML" in done.stdout


def test_a_first_hybrid_search_on_an_empty_cache_says_it_is_embedding(tmp_path: Path) -> None:
    pytest.importorskip("onnxruntime", reason="hybrid search needs toolscout[semantic]")
    environment = {**os.environ, "TOOLSCOUT_CACHE_DIR": str(tmp_path / "cache"), "TOOLSCOUT_SEARCH_MODE": "hybrid"}
    done = subprocess.run(
        [TOOLSCOUT, "search", "sample", "current time in Tokyo"],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    assert "building the hybrid index of 133 tools" in done.stderr, done.stderr
