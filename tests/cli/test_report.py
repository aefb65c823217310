"""`toolscout report` over an activity file written by a real `ActivityLog`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from toolscout import ScoutSettings, ToolScout
from toolscout.cli import main
from toolscout.observe import ActivityLog

TOOLS = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]


def crm_down(call: object) -> object:
    raise ConnectionError("the CRM is down")


def write_log(tmp_path: Path) -> tuple[Path, Path]:
    file, catalog = tmp_path / "activity.jsonl", tmp_path / "catalog.json"
    catalog.write_text(json.dumps(TOOLS))
    log = ActivityLog(file=file)
    session = ToolScout(TOOLS, settings=ScoutSettings(mode="on"), executor=crm_down).session("r")
    for query in ("zzqx", "zzqx", "crm__op_7"):
        log.observe(session.dispatch_sync("tool_search", {"query": query}), session="r")
    log.observe(session.dispatch_sync("tool_call", {"name": "crm__op_7"}), session="r")
    log.close()
    with file.open("a") as out:
        out.write("not an event\n")
    return file, catalog


def test_the_text_report_lists_zero_result_queries_loaded_tools_and_skipped_lines(tmp_path: Path) -> None:
    file, catalog = write_log(tmp_path)
    result = CliRunner().invoke(main, ["report", str(file), "--catalog", str(catalog)])
    assert result.exit_code == 0, result.output
    assert "4 events, 3 searches (66.7% found nothing)" in result.output
    assert "    2  zzqx" in result.output
    assert "crm__op_7" in result.output
    assert "Tools never found (" in result.output
    assert "1 lines were not activity events" in result.output


def test_the_json_report_has_counts_per_section(tmp_path: Path) -> None:
    file, catalog = write_log(tmp_path)
    result = CliRunner().invoke(main, ["report", str(file), "--json", "--catalog", str(catalog)])
    report = json.loads(result.output)
    assert "crm__op_7" not in report["never_found"] and "crm__op_39" in report["never_found"]
    assert report["zero_result_queries"] == [{"query": "zzqx", "count": 2}]
    assert report["upstreams"] == [{"upstream": "local", "calls": 1, "errors": 1, "error_rate": 1.0}]
