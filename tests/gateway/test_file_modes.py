"""What `toolscout serve` says about a config file others may write, and the mode of the store it creates."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.gateway.conftest import LIMIT_S, gateway_log, http_client, http_gateway, slow_server, write_config

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The umask most systems start with (files 0644 unless made private), inherited by the gateway."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def permission_warnings(config: Path) -> list[str]:
    return [
        record["message"]
        for record in gateway_log(config)
        if record["level"] == "warning" and "writable" in record["message"]
    ]


@pytest.mark.parametrize("loose", [0o666, 0o620])
async def test_a_config_others_may_write_gets_one_warning_naming_it_and_the_fix(tmp_path: Path, loose: int) -> None:
    config = write_config(tmp_path / "gw.json", {"ping": slow_server(tmp_path / "state", 0)})
    config.chmod(loose)
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url) as client:
            await client.list_tools()
    (warning,) = permission_warnings(config)
    assert str(config) in warning and f"chmod 600 {config}" in warning


async def test_a_private_config_gets_no_warning_and_the_store_it_creates_is_private(tmp_path: Path) -> None:
    config = write_config(tmp_path / "gw.json", {"ping": slow_server(tmp_path / "state", 0)}, style="reveal")
    config.chmod(0o600)
    with anyio.fail_after(LIMIT_S):
        async with http_gateway(config) as url, http_client(url, session="s") as client:
            await client.call_tool("tool_search", {"query": "ping"})
            files = sorted(tmp_path.glob("sessions.sqlite3*"))
            modes = {path.name: oct(mode(path)) for path in files}
    assert permission_warnings(config) == []
    assert "sessions.sqlite3" in modes and "sessions.sqlite3-wal" in modes
    assert set(modes.values()) == {"0o600"}, modes
