"""The README's commands and library example are real: the example runs and prints what it claims,
and the main job's gateway serves the real servers it names."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

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
