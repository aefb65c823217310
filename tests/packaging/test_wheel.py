"""The built wheel installs in a clean venv and runs what the README promises, with the core install alone."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.gateway.conftest import tools_once

ROOT = Path(__file__).parents[2]
SERVERS = ROOT / "tests" / "gateway" / "servers"
LIMIT_S = 900

pytestmark = pytest.mark.anyio


def run(*command: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, cwd=cwd, timeout=LIMIT_S)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, ROOT)
    (built,) = out.glob("toolscout-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv with only the wheel and what it declares (from the package index)."""
    env = tmp_path_factory.mktemp("venv") / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    run(env / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel)
    yield env


def test_the_wheel_carries_the_package_data(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for data in ("sample_catalog.json", "sample_queries.jsonl", "ui/index.html", "ui/app.js", "ui/app.css"):
        assert f"toolscout/data/{data}" in names
    assert any(name.endswith("licenses/LICENSE") for name in names)


def test_the_readme_library_example_runs_on_the_plain_install(installed: Path, tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"## Library in 15 lines\n\n```python\n(.*?)```", readme, re.S)
    assert example is not None
    script = tmp_path / "example.py"
    script.write_text(example.group(1), encoding="utf-8")
    out = run(installed / "bin" / "python", script, cwd=tmp_path)
    assert out.splitlines() == ["('tool_search', 'tool_describe', 'tool_call')", "get_weather", "Oslo: 21°C, clear"]


def test_the_cli_searches_the_sample_catalog_and_knows_its_version(installed: Path) -> None:
    toolscout = installed / "bin" / "toolscout"
    from toolscout import __version__

    assert run(toolscout, "--version").strip() == f"toolscout, version {__version__}"
    found = json.loads(run(toolscout, "search", "sample", "send a slack message", "--json"))
    assert found["mode"] == "lexical"  # no embedding backend in the plain install
    assert found["hits"][0]["name"] == "slack__post_message"


async def test_the_installed_gateway_answers_an_mcp_client(installed: Path, tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    upstream = {"command": sys.executable, "args": [str(SERVERS / "paged.py")]}
    config.write_text(json.dumps({"mcpServers": {"paged": upstream}, "toolscout": {"store": "memory"}}))
    params = StdioServerParameters(command=str(installed / "bin" / "toolscout"), args=["serve", str(config)])
    with (tmp_path / "gateway.log").open("w") as log:
        async with Client(stdio_client(params, errlog=log)) as client:
            listed = await tools_once(client, lambda names: "paged__alpha" in names)
    assert "paged__alpha" in listed


def test_the_semantic_extra_gives_the_cli_hybrid_search_without_torch(wheel: Path, tmp_path: Path) -> None:
    env = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    run(env / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", f"{wheel}[semantic]")
    clean = {key: value for key, value in os.environ.items() if not key.startswith("TOOLSCOUT_")}
    clean["TOOLSCOUT_CACHE_DIR"] = str(tmp_path / "cache")

    done = subprocess.run(
        [env / "bin" / "toolscout", "search", "sample", "tell the team in slack", "--json"],
        capture_output=True,
        text=True,
        env=clean,
        timeout=LIMIT_S,
    )

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mode"] == "hybrid"
    assert (
        run(env / "bin" / "python", "-c", "import importlib.util; print(importlib.util.find_spec('torch'))") == "None\n"
    )


def test_uvx_and_pipx_run_the_cli_from_the_wheel(wheel: Path, tmp_path: Path) -> None:
    from toolscout import __version__

    isolated = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "PIPX_HOME": str(tmp_path / "pipx")}
    for command in (
        [Path(sys.executable).with_name("uvx"), "--from", wheel, "toolscout", "--version"],
        [sys.executable, "-m", "pipx", "run", "--spec", wheel, "toolscout", "--version"],
    ):
        done = subprocess.run(
            [str(part) for part in command], capture_output=True, text=True, env=isolated, timeout=LIMIT_S
        )
        assert done.returncode == 0, f"{command}\n{done.stderr}"
        assert done.stdout.strip().endswith(f"toolscout, version {__version__}"), done.stdout


async def test_uvx_serves_the_gateway_to_an_mcp_client(wheel: Path, tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    upstream = {"command": sys.executable, "args": [str(SERVERS / "paged.py")]}
    config.write_text(json.dumps({"mcpServers": {"paged": upstream}, "toolscout": {"store": "memory"}}))
    uvx = Path(sys.executable).with_name("uvx")
    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    params = StdioServerParameters(
        command=str(uvx), args=["--from", str(wheel), "toolscout", "serve", str(config)], env=env
    )
    with (tmp_path / "gateway.log").open("w") as log:
        async with Client(stdio_client(params, errlog=log)) as client:
            listed = await tools_once(client, lambda names: "paged__alpha" in names)
    assert "paged__alpha" in listed
