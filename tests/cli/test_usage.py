"""`toolscout usage list|export|forget`, run as the installed script on a real SQLite usage store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolscout.learning import UsagePair
from toolscout.learning._internal import SqliteUsageStore

pytestmark = pytest.mark.slow


def usage(*args: str) -> tuple[int, str, str]:
    """`toolscout usage ...` as a real subprocess: exit code, stdout, stderr."""
    command = [str(Path(sys.executable).with_name("toolscout")), "usage", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def store_file(tmp_path: Path) -> Path:
    path = tmp_path / "usage.db"
    now = time.time()
    with SqliteUsageStore(path) as store:
        store.record(
            [
                UsagePair("team-a", "open a ticket", "github__create_issue", "s1", now, missed=True),
                UsagePair("team-a", "create a github issue", "github__create_issue", "s1", now),
                UsagePair("team-a", "tell the channel", "slack__post", "s2", now),
                UsagePair("team-b", "what's the weather", "weather__get", "s3", now),
            ]
        )
    return path


def test_list_prints_the_pairs_of_a_scope_and_a_tool(store_file: Path) -> None:
    code, out, err = usage("list", "--store", str(store_file), "--scope", "team-a", "--tool", "github__create_issue")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    assert [(row[0], row[1], row[3], json.loads(row[4])) for row in rows] == [
        ("team-a", "github__create_issue", "missed", "open a ticket"),
        ("team-a", "github__create_issue", "found", "create a github issue"),
    ]
    assert "2 pairs" in err


def test_export_writes_json_lines_of_every_scope(store_file: Path) -> None:
    code, out, err = usage("export", "--store", str(store_file))
    assert code == 0, err
    exported = [json.loads(line) for line in out.splitlines()]
    assert [(row["scope"], row["request"]) for row in exported] == [
        ("team-a", "open a ticket"),
        ("team-a", "create a github issue"),
        ("team-a", "tell the channel"),
        ("team-b", "what's the weather"),
    ]
    assert set(exported[0]) == {"scope", "request", "tool", "session", "at", "missed", "first"}


def test_forget_a_tool_then_a_scope_then_all(store_file: Path) -> None:
    assert usage("forget", "--store", str(store_file), "--scope", "team-a", "--tool", "slack__post")[1] == (
        "forgot 1 pairs\n"
    )
    assert usage("forget", "--store", str(store_file), "--scope", "team-a")[1] == "forgot 2 pairs\n"
    with SqliteUsageStore(store_file) as store:
        assert store.scopes() == ("team-b",)
    assert usage("forget", "--store", str(store_file), "--all")[1] == "forgot 1 pairs\n"
    assert usage("export", "--store", str(store_file))[1] == ""


def test_forget_needs_a_scope_or_all(store_file: Path) -> None:
    code, _, err = usage("forget", "--store", str(store_file))
    assert code == 2 and "give --scope SCOPE or --all" in err
    with SqliteUsageStore(store_file) as store:
        assert len(store.pairs("team-a")) == 3


def test_the_store_comes_from_a_config_file_relative_to_it(store_file: Path, tmp_path: Path) -> None:
    config = tmp_path / "gateway.json"
    config.write_text(
        json.dumps({"mcpServers": {"w": {"command": "true"}}, "toolscout": {"learning": {"store": "usage.db"}}})
    )
    code, out, err = usage("list", str(config), "--scope", "team-b")
    assert code == 0, err
    assert out.split("\t")[1] == "weather__get"


def test_a_config_naming_no_store_reads_the_session_stores_default_file(store_file: Path, tmp_path: Path) -> None:
    config = tmp_path / "elsewhere" / "gateway.json"
    config.parent.mkdir()
    config.write_text(json.dumps({"mcpServers": {"w": {"command": "true"}}}))
    store_file.rename(tmp_path / "sessions.sqlite3")
    command = [str(Path(sys.executable).with_name("toolscout")), "usage", "list", str(config)]
    env = {**os.environ, "TOOLSCOUT_DATA_DIR": str(tmp_path)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 4


def test_a_bad_scheme_or_no_source_is_a_clear_error(tmp_path: Path) -> None:
    code, _, err = usage("list", "--store", "ftp://host/x")
    assert code == 1 and "unknown store scheme 'ftp'" in err and "Traceback" not in err
    code, _, err = usage("list")
    assert code == 2 and "give CONFIG or --store" in err


def test_forget_a_tool_in_every_scope_leaves_the_other_tools(store_file: Path) -> None:
    with SqliteUsageStore(store_file) as store:
        store.record([UsagePair("team-b", "file a bug", "github__create_issue", "s4", time.time())])
    assert usage("forget", "--store", str(store_file), "--all", "--tool", "github__create_issue")[1] == (
        "forgot 3 pairs\n"
    )
    code, out, err = usage("list", "--store", str(store_file))
    assert code == 0, err
    assert [tuple(line.split("\t")[:2]) for line in out.splitlines()] == [
        ("team-a", "slack__post"),
        ("team-b", "weather__get"),
    ]


def test_the_configs_retention_hides_older_pairs_from_every_command(store_file: Path, tmp_path: Path) -> None:
    with SqliteUsageStore(store_file) as store:
        store.record([UsagePair("team-b", "an old question", "weather__get", "s0", time.time() - 3 * 86_400)])
    config = tmp_path / "gateway.json"
    learning = {"store": "usage.db", "ttl_days": 1}
    config.write_text(json.dumps({"mcpServers": {"w": {"command": "true"}}, "toolscout": {"learning": learning}}))
    for command in ("list", "export"):
        code, out, err = usage(command, str(config), "--scope", "team-b")
        assert code == 0, err
        assert "what's the weather" in out and "an old question" not in out, command
    assert "an old question" in usage("list", "--store", str(store_file), "--scope", "team-b")[1]  # 90 days
