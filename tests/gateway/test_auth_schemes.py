"""A built-in auth scheme is one module of the `_schemes` package: found there, it registers itself."""

from __future__ import annotations

import json
import os
import pkgutil
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import toolscout
from toolscout.gateway._identity import _schemes
from toolscout.gateway._identity._grants import registered_schemes

SCHEMES = _schemes.__name__

NEW_SCHEME = '''"""API keys in a header: a scheme added as one module."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from .._grants import Credentials, Grant, SchemeSettings, register_authenticator


class HeaderKeySettings(BaseModel, SchemeSettings):
    """API keys in a header."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    header: str = "x-api-key"
    keys: dict[str, str]

    def secrets(self) -> list[str]:
        return list(self.keys)


class HeaderKeys:
    challenge: dict[str, str] = {}
    routes = ()

    def __init__(self, settings: HeaderKeySettings) -> None:
        self._settings = settings

    async def authenticate(self, credentials: Credentials) -> Grant | None:
        return None


register_authenticator("headerkeys", HeaderKeys, settings=HeaderKeySettings, rank=50)
'''

PROBE = """
import json
from toolscout import ConfigError
from toolscout.gateway import GatewayConfig

def auth(section):
    config = {"mcpServers": {"a": {"command": "x"}}, "toolscout": {"auth": section}}
    return GatewayConfig.from_mapping(config).settings.auth

found = auth({"headerkeys": {"keys": {"k-123": "a"}}})
try:
    auth({"headerkeys": {"keys": {}, "heder": "x"}})
except ConfigError as exc:
    error = str(exc)
print(json.dumps({"sections": [key for key, _ in found.sections()], "secrets": found.secrets(), "error": error}))
"""


def test_every_module_of_the_schemes_package_registers_a_scheme() -> None:
    modules = {f"{SCHEMES}.{module.name}" for module in pkgutil.iter_modules(_schemes.__path__)}
    registered = {
        home
        for scheme in registered_schemes()
        for home in (scheme.settings.__module__, getattr(scheme.factory, "__module__", ""))
        if home.startswith(f"{SCHEMES}.")
    }

    assert len(modules) >= 2
    assert registered == modules


def _unmeasured(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` without coverage's subprocess settings: the copy's files are not the package's source, and
    measured they would count as thousands of uncovered lines of it."""
    return {key: value for key, value in environ.items() if not key.startswith("COVERAGE_PROCESS_")}


def test_a_scheme_module_dropped_into_the_package_is_a_section_of_auth(tmp_path: Path) -> None:
    source = Path(toolscout.__file__).parent
    copy = tmp_path / "toolscout"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "data"))
    (copy / "data").symlink_to(source / "data")
    (copy / "gateway" / "_identity" / "_schemes" / "_headerkeys.py").write_text(NEW_SCHEME, encoding="utf-8")

    run = subprocess.run(
        [sys.executable, "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env={**_unmeasured(os.environ), "PYTHONPATH": str(tmp_path)},
    )

    assert run.returncode == 0, run.stderr[-3000:]
    answer = json.loads(run.stdout)
    assert answer["sections"] == ["headerkeys"]
    assert answer["secrets"] == ["k-123"], "the new scheme's secrets are never logged"
    assert "toolscout.auth.headerkeys.heder" in answer["error"] and "did you mean 'header'?" in answer["error"]
