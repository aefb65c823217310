"""A plug-in package installed by pip into its own venv: ``toolscout serve`` there uses it with no file of ours.

The test writes the package (a ``pyproject.toml``, a module and a language file), and pip installs it from
that folder, offline (``--no-index --no-build-isolation``), into a new venv. Its build backend is the
package's own (``backend-path``), so the install needs no build tool of any kind; the venv reaches
toolscout and its dependencies through a ``.pth`` file naming the folders this interpreter imports them
from, and gets the ``toolscout`` command the way pip writes a console script. The package registers an
engine with settings of its own, a reranker, an embedding backend, an API-key authenticator with its own
``auth`` section, and Italian.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from tests.gateway.conftest import LIMIT_S, SERVERS, http_gateway, payload, write_config

pytestmark = pytest.mark.slow

PYPROJECT = """\
[build-system]
requires = []
build-backend = "probe_backend"
backend-path = ["."]

[project]
name = "ts-probe"
version = "0.1"

[project.entry-points."toolscout.plugins"]
probe = "ts_probe"
"""

BACKEND = '''\
"""A PEP 517 backend that zips the package and its metadata into a wheel (no build tool needed)."""

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
    name, version = project["name"].replace("-", "_"), project["version"]
    info = f"{name}-{version}.dist-info"
    groups = project.get("entry-points", {})
    points = "".join(
        f"[{group}]\\n" + "".join(f"{key} = {value}\\n" for key, value in items.items())
        for group, items in groups.items()
    )
    files = {path.as_posix(): path.read_bytes() for path in sorted(Path(name).rglob("*")) if path.is_file()}
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\\nName: {project['name']}\\nVersion: {version}\\n".encode()
    wheel_info = "Wheel-Version: 1.0\\nGenerator: probe_backend\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    files[f"{info}/WHEEL"] = wheel_info.encode()
    files[f"{info}/entry_points.txt"] = points.encode()
    record = "".join(
        f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},{len(data)}\\n"
        for path, data in files.items()
    )
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\\n").encode()
    wheel = f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel
'''

PLUGIN = '''\
"""A toolscout plug-in: an engine with settings, a reranker, an embedder, an API-key scheme and Italian."""

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from toolscout import Scope
from toolscout.gateway import Grant, Refusal, register_authenticator
from toolscout.search import SearchHit, SearchResult, load_language, register_engine, register_language
from toolscout.search import register_reranker
from toolscout.search.embeddings import register_embedder


class OrderSettings(BaseModel):
    """How the name-order engine orders the tools."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    order: Literal["forward", "reverse"] = "forward"


class NameOrder:
    """Every tool, by name: an engine no built-in one could be mistaken for."""

    def __init__(self, catalog, reverse):
        self.fingerprint = catalog.fingerprint
        self._names = sorted((tool.name for tool in catalog), reverse=reverse)

    def search(self, query, *, limit=5, mode="lexical", allowed=None):
        names = [name for name in self._names if allowed is None or name in allowed]
        hits = tuple(SearchHit(name=name, score=1.0) for name in names[:limit])
        return SearchResult(query=query, mode=mode, hits=hits, total=len(names))


def name_order(options):
    return lambda catalog: NameOrder(catalog, reverse=options.settings.order == "reverse")


class Promote:
    """Scores the tools whose name holds the configured word first."""

    def __init__(self, settings):
        self._word = settings.model

    def rerank(self, query, candidates):
        return [1.0 if self._word in tool.name else 0.0 for tool in candidates]


def no_embedder(settings):
    raise ImportError("the probe embedder embeds nothing")


class KeySettings(BaseModel):
    """API keys in a request header, each reaching the servers it lists."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    header: str = "x-api-key"
    keys: dict[str, list[str]]

    def secrets(self):
        return list(self.keys)


class HeaderKeys:
    challenge = {}
    routes = ()

    def __init__(self, settings):
        self._settings = settings

    async def authenticate(self, credentials):
        key = credentials.headers.get(self._settings.header)
        if key is None:
            return None
        servers = self._settings.keys.get(key)
        if servers is None:
            return Refusal(description="unknown API key")
        label = f"apikey-{sorted(self._settings.keys).index(key)}"
        return Grant(label=label, scope=Scope.select(servers=servers), servers=tuple(servers))


register_engine("name-order", name_order, settings=OrderSettings)
register_reranker("promote", Promote)
register_embedder("probe-embedder", no_embedder, local=False)
register_authenticator("apikeys", HeaderKeys, settings=KeySettings, rank=5)
register_language(load_language(Path(__file__).with_name("it.toml")))
'''

ITALIAN = """\
code = "it"
name = "Italian"
stemmer = "italian"
function_words = "il lo la i gli le un una di del della che e per con su al alla"

[lexicon]
delete = ["eliminare", "cancellare"]
"""


def write_package(folder: Path) -> Path:
    """The plug-in package's source folder, as its author would have it."""
    package = folder / "ts_probe"
    package.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (folder / "probe_backend.py").write_text(BACKEND, encoding="utf-8")
    (package / "__init__.py").write_text(PLUGIN, encoding="utf-8")
    (package / "it.toml").write_text(ITALIAN, encoding="utf-8")
    return folder


def make_venv(folder: Path) -> Path:
    """A new venv that imports toolscout and its dependencies from where this interpreter does; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=LIMIT_S)
    python = folder / "bin" / "python"
    probe = "import json, sys, sysconfig; print(json.dumps([sysconfig.get_paths()['purelib'], sys.path]))"
    site, theirs = json.loads(subprocess.check_output([python, "-c", probe], text=True))
    here = [entry for entry in sys.path if entry and Path(entry).is_dir() and entry not in theirs]
    (Path(site) / "toolscout_under_test.pth").write_text("\n".join(here) + "\n", encoding="utf-8")
    script = next(
        point for point in importlib.metadata.entry_points(group="console_scripts") if point.name == "toolscout"
    )
    command = folder / "bin" / "toolscout"
    command.write_text(
        f"#!{python}\nimport sys\nfrom {script.module} import {script.attr}\nsys.exit({script.attr}())\n",
        encoding="utf-8",
    )
    command.chmod(0o755)
    return python


@asynccontextmanager
async def keyed_client(url: str, headers: dict[str, str]) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(LIMIT_S)) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def venv_with_plugin(tmp_path: Path) -> Path:
    """A fresh venv under `tmp_path` with the plug-in package pip-installed from its source (no network)."""
    python = make_venv(tmp_path / "venv")
    installed = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-build-isolation",
            "--no-deps",
            str(write_package(tmp_path / "src")),
        ],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python


@pytest.mark.anyio
async def test_toolscout_serve_in_a_venv_uses_the_engine_reranker_and_auth_scheme_an_installed_package_brings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = venv_with_plugin(tmp_path)
    monkeypatch.delenv("TOOLSCOUT_SEARCH_MODE")  # the tests' lexical default would override the config
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the venv alone decides what is imported
    servers = {
        "fruit": {"command": str(python), "args": [str(SERVERS / "named.py"), "apples", "melons", "pears"]},
        "veg": {"command": str(python), "args": [str(SERVERS / "named.py"), "carrots"]},
    }
    config = write_config(
        tmp_path / "gw.yaml",
        servers,
        search_mode="name-order",
        search_engines={"name-order": {"order": "reverse"}},
        search_rerank={"reranker": "promote", "model": "apples", "budget_ms": None},
        search_min_confidence=0,
        embeddings={"backend": "probe-embedder"},
        auth={"apikeys": {"header": "x-probe-key", "keys": {"k-fruit": ["fruit"]}}},
    )

    with anyio.fail_after(LIMIT_S * 2):
        async with http_gateway(config, command=str(python.with_name("toolscout"))) as url:
            async with keyed_client(url, {"x-probe-key": "k-fruit"}) as client:
                answer = payload(await client.call_tool("tool_search", {"query": "saved recipes", "limit": 5}))
            async with httpx2.AsyncClient(timeout=httpx2.Timeout(LIMIT_S)) as http:
                ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
                stranger = await http.post(url, json=ping, headers={"x-probe-key": "k-guess"})
                nobody = await http.post(url, json=ping)

    # the engine's own setting (reverse), the reranker (apples first), the scheme's grant (fruit only)
    assert [tool["name"] for tool in answer["tools"]] == ["fruit__apples", "fruit__pears", "fruit__melons"]
    assert (stranger.status_code, nobody.status_code) == (401, 401)
    assert "unknown API key" in stranger.headers.get("www-authenticate", "")
    italian = subprocess.run(
        [
            python,
            "-c",
            "from toolscout import ToolScout, ToolSpec; from toolscout.search.languages import get_language;"
            "ToolScout([ToolSpec(name='a', description='b')]); print(get_language('it').name)",
        ],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    assert italian.stdout.strip() == "Italian", italian.stderr


def test_a_misspelt_plugin_section_is_refused_naming_the_key_and_the_close_one(tmp_path: Path) -> None:
    python = venv_with_plugin(tmp_path)
    servers = {"fruit": {"command": "x"}}
    cases = {
        "apikey": {"auth": {"apikey": {"keys": {}}}},
        "keys": {"auth": {"apikeys": {"keys": {"k": ["fruit"]}, "heder": "x"}}},
        "order": {"search_engines": {"name-order": {"order": "sideways"}}},
    }
    for name, settings in cases.items():
        (tmp_path / f"{name}.json").write_text(json.dumps({"mcpServers": servers, "toolscout": settings}))
    script = (
        "import sys\nfrom toolscout import ConfigError\nfrom toolscout.gateway import load_config\n"
        "for path in sys.argv[1:]:\n"
        "    try:\n        load_config(path)\n    except ConfigError as error:\n        print(error)\n"
    )
    done = subprocess.run(
        [python, "-c", script, *(str(tmp_path / f"{name}.json") for name in cases)],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    lines = done.stdout.splitlines()
    assert len(lines) == 3, done.stdout + done.stderr
    assert lines[0].startswith("toolscout.auth.apikey: unknown setting; did you mean 'apikeys'?")
    assert lines[1].startswith("toolscout.auth.apikeys.heder: unknown setting; did you mean 'header'?")
    assert lines[2].startswith("toolscout.search_engines.name-order.order: must be one of 'forward' or 'reverse'")
