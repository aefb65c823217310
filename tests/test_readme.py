"""The README's commands and library example are real: the example runs and prints what it claims,
and the main job's gateway serves the real servers it names."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from subprocess import PIPE

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.gateway.conftest import tools_once

ROOT = Path(__file__).parents[1]
README = ROOT / "README.md"
LIMIT_S = 120


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def test_readme_opens_with_the_setup_and_test_commands():
    first, second = _blocks("bash")[:2]
    assert first.startswith("bash scripts/setup.sh && .venv/bin/toolscout ")
    assert second.strip() == "bash scripts/test.sh"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in ci


def test_library_example_runs_and_prints_its_commented_output():
    code = _blocks("python")[0]
    assert len(code.strip().splitlines()) <= 16
    expected = [line.split("# ", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip().splitlines() == expected


def test_the_library_example_passes_mypy_strict(tmp_path):
    pytest.importorskip("mypy")
    example = tmp_path / "example.py"
    example.write_text(_blocks("python")[0], encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(example)],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout


def test_install_names_every_extra_the_readme_relies_on():
    install = README.read_text(encoding="utf-8").split("## Install", 1)[1].split("\n## ", 1)[0]
    assert "'.[tokens]'" in install  # exact token counts (o200k_base via bpe-openai)
    assert "'.[semantic]'" in install


EXIT_RUNS = 30
EXIT_RUNS_AT_ONCE = 3


def test_the_library_example_exits_cleanly_while_embeddings_load_in_the_background(tmp_path):
    """A short script exits at once, with hybrid search on and a fresh cache: the embedder is still
    loading (building its int8 model) on its background thread when the interpreter exits."""
    pytest.importorskip("onnxruntime")
    code = _blocks("python")[0]
    unset = ("TOOLSCOUT_SEARCH_MODE", "ORT_DISABLE_TELEMETRY", "CI")  # as a user runs it: hybrid, defaults
    env = {key: value for key, value in os.environ.items() if key not in unset}
    temp = tmp_path / "tmp"
    temp.mkdir()
    failures: list[str] = []
    for batch in range(0, EXIT_RUNS, EXIT_RUNS_AT_ONCE):
        runs = []
        for run in range(batch, min(batch + EXIT_RUNS_AT_ONCE, EXIT_RUNS)):
            fresh = {**env, "TOOLSCOUT_CACHE_DIR": str(tmp_path / f"cache-{run}"), "TMPDIR": str(temp)}
            runs.append(subprocess.Popen([sys.executable, "-c", code], env=fresh, stdout=PIPE, stderr=PIPE, text=True))
        for process in runs:
            stdout, stderr = process.communicate(timeout=LIMIT_S)
            if process.returncode != 0 or "get_weather" not in stdout:
                failures.append(f"exit {process.returncode}: {stderr[-300:]!r}")
    assert failures == []
    assert list(temp.iterdir()) == []  # nothing left in the temp folder (onnxruntime's telemetry is off)


@pytest.mark.anyio
async def test_the_main_job_serves_the_real_servers_behind_a_searchable_gateway(tmp_path):
    command = shlex.split(_blocks("bash")[0].split("&&", 1)[1])
    assert command[0] == ".venv/bin/toolscout"
    command[0] = str(Path(sys.executable).with_name("toolscout"))
    env = {**__import__("os").environ, "TOOLSCOUT_DATA_DIR": str(tmp_path)}
    with (tmp_path / "gateway.log").open("wb") as log:
        process = await anyio.open_process(
            [*command, "--port", "0"], cwd=ROOT, stdout=subprocess.PIPE, stderr=log, env=env
        )
    try:
        assert process.stdout is not None
        received = b""
        with anyio.fail_after(LIMIT_S):
            while b"\n" not in received:
                received += await process.stdout.receive()
        url = received.decode().splitlines()[0].strip()
        async with (
            httpx2.AsyncClient(timeout=httpx2.Timeout(LIMIT_S)) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            listed = await tools_once(client, lambda names: {"tool_search", "tool_describe", "tool_call"} <= names)
            assert len(listed) < 10
            with anyio.fail_after(LIMIT_S):  # upstreams attach in the background; search until time has
                while True:
                    found = await client.call_tool("tool_search", {"query": "current time in a timezone"})
                    text = found.content[0].text
                    if "time__get_current_time" in text or '"servers_not_ready"' not in text:
                        break
                    await anyio.sleep(0.2)
            assert "time__get_current_time" in text
    finally:
        process.terminate()
        with anyio.move_on_after(LIMIT_S):
            await process.wait()
        await process.aclose()
