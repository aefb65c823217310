"""Which config values `toolscout serve` hides in its logs: credentials, not every ``${VAR}``."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from tests.gateway.conftest import LIMIT_S, gateway_log, http_gateway, write_config

pytestmark = pytest.mark.anyio

PRINT_ENV_AND_FAIL = (
    "import os, sys; names = ('BRANCH', 'API_TOKEN', 'GITHUB_TOKEN', 'PLAIN'); "
    "print(*(f'{name}={os.environ[name]}' for name in names), file=sys.stderr); sys.exit(1)"
)


async def test_secret_values_are_hidden_and_plain_variables_stay_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRANCH", "main")
    monkeypatch.setenv("API_TOKEN", "tok-from-env-4821")
    monkeypatch.setenv("DEPLOY_KEY", "deploykey-7719")
    env = {
        "BRANCH": "${BRANCH}",
        "API_TOKEN": "${API_TOKEN}",
        "GITHUB_TOKEN": "ghp_literal_5530",
        "PLAIN": "${DEPLOY_KEY}",
    }
    server = {"command": sys.executable, "args": ["-c", PRINT_ENV_AND_FAIL], "env": env}
    config = write_config(tmp_path / "gw.json", {"domain": server})
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config):
            pass
    log = "\n".join(str(record) for record in gateway_log(config))
    assert "BRANCH=main" in log and "do***" not in log and "'domain'" in log
    for secret in ("tok-from-env-4821", "ghp_literal_5530", "deploykey-7719"):
        assert secret not in log
    assert "API_TOKEN=***" in log and "GITHUB_TOKEN=***" in log and "PLAIN=***" in log
