"""Plug-ins from installed packages: the group ``toolscout.plugins``, loaded by the CLI, the gateway and the library.

The plug-in package is installed the way pip leaves one (a module and its ``.dist-info`` with an
``entry_points.txt``) into a folder on the subprocess's path, so the test runs offline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.gateway.conftest import LIMIT_S, SERVERS, payload, stdio_gateway, write_config
from toolscout import Catalog
from toolscout.data import sample_catalog_path

pytestmark = pytest.mark.slow

ENGINE = '''
from toolscout.search import SearchHit, SearchResult, register_engine


class ReversedNames:
    """Every tool, by name from z to a: an engine no built-in one could be mistaken for."""

    def __init__(self, catalog):
        self.fingerprint = catalog.fingerprint
        self._names = sorted((tool.name for tool in catalog), reverse=True)

    def search(self, query, *, limit=5, mode="lexical", allowed=None):
        names = [name for name in self._names if allowed is None or name in allowed]
        hits = tuple(SearchHit(name=name, score=1.0) for name in names[:limit])
        return SearchResult(query=query, mode=mode, hits=hits, total=len(names))


register_engine("reverse-names", lambda options: ReversedNames)
'''

BROKEN = 'raise RuntimeError("the licence server is unreachable")\n'


def install_plugin_package(site: Path) -> None:
    """What ``pip install`` leaves for a package declaring two plug-ins, one of them broken."""
    (site / "ts_probe_engine.py").write_text(ENGINE, encoding="utf-8")
    (site / "ts_probe_broken.py").write_text(BROKEN, encoding="utf-8")
    info = site / "ts_probe_plugins-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ts-probe-plugins\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[toolscout.plugins]\nbroken = ts_probe_broken\nreverse-names = ts_probe_engine\n", encoding="utf-8"
    )


def run(site: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("TOOLSCOUT_SEARCH_MODE", None)
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def expected_names(limit: int) -> list[str]:
    return sorted((tool.name for tool in Catalog.from_file(sample_catalog_path())), reverse=True)[:limit]


def test_an_installed_packages_engine_is_a_search_mode_of_the_cli_and_a_broken_plugin_is_named(tmp_path: Path) -> None:
    install_plugin_package(tmp_path)
    toolscout = str(Path(sys.executable).with_name("toolscout"))

    done = run(
        tmp_path, [toolscout, "search", "sample", "open a ticket", "--mode", "reverse-names", "-n", "3", "--json"]
    )

    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert [hit["name"] for hit in answer["hits"]] == expected_names(3)
    assert "plug-in 'broken' (ts_probe_broken, from ts-probe-plugins) failed to load" in done.stderr
    assert "RuntimeError: the licence server is unreachable" in done.stderr


def test_a_setting_naming_a_plugins_engine_loads_it_in_the_library(tmp_path: Path) -> None:
    install_plugin_package(tmp_path)
    script = (
        "import asyncio, json\n"
        "from toolscout import ScoutSettings, ToolScout\n"
        "from toolscout.data import sample_catalog_path\n"
        "settings = ScoutSettings(search_mode='reverse-names')\n"
        "scout = ToolScout(sample_catalog_path(), settings=settings)\n"
        "print(json.dumps([hit.name for hit in scout.searcher().search('open a ticket', limit=3).hits]))\n"
    )

    done = run(tmp_path, [sys.executable, "-c", script])

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected_names(3)
    assert done.stderr.count("plug-in 'broken'") == 1, "each plug-in loads once"


def test_without_the_plugin_the_setting_names_what_is_registered(tmp_path: Path) -> None:
    done = run(
        tmp_path,
        [sys.executable, "-c", "from toolscout import ScoutSettings; ScoutSettings(search_mode='reverse-names')"],
    )

    assert done.returncode != 0
    assert "reverse-names" in done.stderr and "lexical" in done.stderr


@pytest.mark.anyio
async def test_the_gateway_searches_with_a_plugins_engine_its_config_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install_plugin_package(site)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.delenv("TOOLSCOUT_SEARCH_MODE")  # the tests' lexical default would override the config
    server = {"command": sys.executable, "args": [str(SERVERS / "named.py"), "apples", "melons", "pears"]}
    config = write_config(tmp_path / "gw.json", {"fruit": server}, search_mode="reverse-names")

    with anyio.fail_after(LIMIT_S):
        async with stdio_gateway(config) as client:
            answer = payload(await client.call_tool("tool_search", {"query": "saved recipes", "limit": 3}))

    assert [tool["name"] for tool in answer["tools"]] == ["fruit__pears", "fruit__melons", "fruit__apples"]
    assert "plug-in 'broken' (ts_probe_broken, from ts-probe-plugins) failed to load" in (
        tmp_path / "gateway.log"
    ).read_text(encoding="utf-8")
