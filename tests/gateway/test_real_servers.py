"""The real MCP servers scripts/setup.sh installs, dumped through the real CLI in a subprocess."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from tests.conftest import require
from toolscout import Catalog

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "examples" / "mcp_servers.json"
SERVERS = (
    "everything",
    "filesystem",
    "memory",
    "sequential-thinking",
    "github",
    "gitlab",
    "slack",
    "brave-search",
    "google-maps",
    "time",
    "git",
    "fetch",
)


async def test_the_example_config_dumps_over_100_real_tools_that_load_as_a_catalog(tmp_path: Path) -> None:
    require((ROOT / ".mcp-servers" / "pyvenv").is_dir(), "the real MCP servers are missing: run scripts/setup.sh")
    output = tmp_path / "real.json"
    command = [str(Path(sys.executable).with_name("toolscout")), "catalog", "dump", str(CONFIG), "-o", str(output)]
    with anyio.fail_after(300):
        done = await anyio.run_process(command, cwd=tmp_path, check=False)
    report = done.stdout.decode()
    assert done.returncode == 0, report + done.stderr.decode()
    assert "FAILED" not in report, report
    catalog = Catalog.from_file(output)
    assert len(catalog) >= 100, report
    groups = catalog.namespaces()
    assert set(groups) == set(SERVERS), report
    for name in ("time", "git", "everything", "memory", "filesystem", "fetch", "github"):
        assert groups[name], f"{name} listed no tools"
    assert "time__get_current_time" in catalog
    # server-gitlab installed on its own sends no "type": "object": all 9 tools survive, normalized.
    assert "9 schemas normalized" in report
    assert len(groups["gitlab"]) == 9
    assert all(tool.parameters["type"] == "object" for tool in groups["gitlab"])
