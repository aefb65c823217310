from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from toolscout import Catalog
from toolscout.cli import main

SERVERS = Path(__file__).parents[1] / "gateway" / "servers"
PAGED = {"command": sys.executable, "args": [str(SERVERS / "paged.py")]}
BROKEN = {"command": sys.executable, "args": [str(SERVERS / "broken_listing.py")]}
MISSING = {"command": "/nonexistent/mcp-server"}


def dump(tmp_path: Path, servers: dict[str, object], *options: str) -> tuple[int, str, Path]:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    output = tmp_path / "catalog.json"
    result = CliRunner().invoke(main, ["catalog", "dump", str(config), "-o", str(output), *options])
    return result.exit_code, result.output, output


def test_dump_writes_a_catalog_and_reports_each_server(tmp_path: Path) -> None:
    code, out, output = dump(tmp_path, {"paged": PAGED, "broken": BROKEN})
    assert code == 0, out
    assert "  paged      6 tools\n" in out
    assert "  broken     4 tools  (1 schema normalized; left out: broken, (unnamed))\n" in out
    assert f"wrote 10 tools from 2 of 2 servers to {output}" in out
    assert len(Catalog.from_file(output)) == 10


def test_one_failing_server_is_reported_and_the_rest_is_written(tmp_path: Path) -> None:
    code, out, output = dump(tmp_path, {"paged": PAGED, "missing": MISSING})
    assert code == 0, out
    assert "missing  FAILED  upstream 'missing': cannot start '/nonexistent/mcp-server'" in out
    assert "wrote 6 tools from 1 of 2 servers" in out
    assert output.exists()


def test_strict_fails_and_writes_nothing_when_a_server_fails(tmp_path: Path) -> None:
    code, out, output = dump(tmp_path, {"paged": PAGED, "missing": MISSING}, "--strict")
    assert code == 1
    assert "--strict" in out
    assert not output.exists()


def test_strict_fails_when_a_tool_was_left_out(tmp_path: Path) -> None:
    code, _, output = dump(tmp_path, {"broken": BROKEN}, "--strict")
    assert code == 1
    assert not output.exists()


def test_it_fails_and_writes_nothing_when_every_server_fails(tmp_path: Path) -> None:
    code, out, output = dump(tmp_path, {"missing": MISSING})
    assert code == 1
    assert "every server failed" in out
    assert not output.exists()


def test_an_invalid_config_is_one_line_naming_the_key(tmp_path: Path) -> None:
    code, out, output = dump(tmp_path, {"paged": {**PAGED, "comand": "x"}})
    assert code == 1
    assert "Error: mcpServers.paged.comand: unknown setting; did you mean 'command'?" in out
    assert "Traceback" not in out
    assert not output.exists()


def test_catalog_dump_is_listed_in_help() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert "catalog" in result.output
    assert "dump" in CliRunner().invoke(main, ["catalog", "--help"]).output
