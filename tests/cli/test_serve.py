from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from toolscout.cli import main


def test_an_invalid_config_stops_serve_before_anything_starts_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}, "toolscout": {"call_timeout_s": 0}}))
    result = CliRunner().invoke(main, ["serve", str(config)])
    assert result.exit_code == 1
    assert "toolscout.call_timeout_s: must be greater than 0" in result.output


def test_a_config_whose_servers_are_all_disabled_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "gw.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "x", "disabled": True}}}))
    result = CliRunner().invoke(main, ["serve", str(config), "--transport", "http"])
    assert result.exit_code == 1
    assert "every server is disabled" in result.output


def test_serve_help_names_both_transports() -> None:
    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    assert "stdio" in result.output and "http" in result.output
