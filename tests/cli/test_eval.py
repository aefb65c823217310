from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from toolscout import ScoutSettings, ToolScout
from toolscout.cli import main
from toolscout.observe import ActivityLog

JsonlWriter = Callable[[list[dict[str, object]]], Path]

LABELLED: list[dict[str, object]] = [
    {"id": "w", "query": "weather forecast for Paris", "gold": ["get_weather"]},
    {"id": "m", "query": "send an email to my boss", "gold": ["send_email"]},
    {"id": "i", "query": "open a github issue about the crash", "gold": ["create_issue"]},
    {"id": "c", "query": "convert 100 dollars to euros", "gold": ["convert_currency"]},
]


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["eval", *args])
    return result.exit_code, result.stdout, result.stderr


def test_eval_json_has_exactly_the_contract_keys(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    code, out, _ = _run(str(catalog_file), str(write_jsonl(LABELLED)), "--mode", "lexical", "--json")
    assert code == 0
    report = json.loads(out)
    assert {"n", "recall", "mrr", "ndcg", "latency_ms", "build_s"} <= set(report)
    assert report["n"] == 4
    assert set(report["recall"]) == {"1", "5", "10"}
    assert set(report["latency_ms"]) == {"p50", "p95"}
    assert report["recall"]["5"] == 1.0
    assert report["mrr"] == 1.0
    assert report["ndcg"] == 1.0
    assert report["mode"] == "lexical"
    assert report["build_s"] >= 0


def test_eval_k_option_sets_the_recall_cutoffs(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    code, out, _ = _run(str(catalog_file), str(write_jsonl(LABELLED)), "--k", "3,1", "--mode", "lexical", "--json")
    assert code == 0
    report = json.loads(out)
    assert list(report["recall"]) == ["1", "3"]
    assert report["k"] == 3


def test_eval_rejects_a_malformed_k_list(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    queries = str(write_jsonl(LABELLED))
    assert _run(str(catalog_file), queries, "--k", "1,five")[0] == 2
    assert _run(str(catalog_file), queries, "--k", "0")[0] == 2


def test_eval_json_stdout_stays_pure_json_while_the_progress_bar_writes_to_stderr(
    catalog_file: Path, write_jsonl: JsonlWriter
) -> None:
    many = [{**record, "id": f"{record['id']}{n}"} for n in range(20) for record in LABELLED]
    code, out, err = _run(str(catalog_file), str(write_jsonl(many)), "--mode", "lexical", "--json")
    assert code == 0
    assert json.loads(out)["n"] == 80
    assert "Searching" in err


def test_eval_prints_a_readable_report_without_json(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    code, out, _ = _run(str(catalog_file), str(write_jsonl(LABELLED)), "--mode", "lexical")
    assert code == 0
    labels = [line.split()[0] for line in out.splitlines()]
    assert labels == ["queries", "Recall@1", "Recall@5", "Recall@10", "MRR@10", "nDCG@10", "latency", "index"]


def test_eval_aliases_score_a_renamed_tool_on_its_original_name(
    catalog_file: Path, write_jsonl: JsonlWriter, tmp_path: Path
) -> None:
    queries = write_jsonl([{"id": 1, "query": "weather forecast for Paris", "gold": ["weather"]}])
    aliases = tmp_path / "aliases.json"
    aliases.write_text(json.dumps({"get_weather": "weather"}), encoding="utf-8")
    code, out, _ = _run(str(catalog_file), str(queries), "--mode", "lexical", "--json")
    assert json.loads(out)["recall"]["1"] == 0.0
    code, out, _ = _run(str(catalog_file), str(queries), "--aliases", str(aliases), "--mode", "lexical", "--json")
    assert code == 0
    assert json.loads(out)["recall"]["1"] == 1.0


def test_eval_bad_alias_file_is_a_one_line_error(catalog_file: Path, write_jsonl: JsonlWriter, tmp_path: Path) -> None:
    aliases = tmp_path / "aliases.json"
    aliases.write_text('["not", "a", "map"]', encoding="utf-8")
    code, _, err = _run(str(catalog_file), str(write_jsonl(LABELLED)), "--aliases", str(aliases))
    assert code == 1
    assert "alias file must be a JSON object" in err


def test_eval_query_line_without_gold_names_the_line(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    code, out, err = _run(str(catalog_file), str(write_jsonl([*LABELLED, {"id": "x", "query": "q"}])), "--json")
    assert code == 1
    assert out == ""
    assert "line 5" in err
    assert len(err.strip().splitlines()) == 1


def test_eval_missing_files_are_one_line_errors(catalog_file: Path, write_jsonl: JsonlWriter, tmp_path: Path) -> None:
    code, _, err = _run(str(catalog_file), str(tmp_path / "absent.jsonl"))
    assert (code, err.startswith("Error: "), "Traceback" in err) == (1, True, False)
    code, _, err = _run(str(tmp_path / "absent.json"), str(write_jsonl(LABELLED)))
    assert (code, err.startswith("Error: cannot read catalog file")) == (1, True)


def test_eval_invalid_regex_query_is_a_one_line_error(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    queries = write_jsonl([{"id": 1, "query": "(unclosed", "gold": ["get_weather"]}])
    code, out, err = _run(str(catalog_file), str(queries), "--mode", "regex", "--json")
    assert (code, out) == (1, "")
    assert len(err.strip().splitlines()) == 1


def test_eval_installed_script_prints_the_json_report(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    script = Path(sys.executable).with_name("toolscout")
    completed = subprocess.run(
        [str(script), "eval", str(catalog_file), str(write_jsonl(LABELLED)), "--mode", "lexical", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["n"] == 4
    assert report["recall"]["1"] == 1.0


def test_eval_counts_queries_no_tool_answers_separately(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    queries = write_jsonl([*LABELLED, {"id": "none", "query": "zzqx vvbn", "gold": []}])
    code, out, _ = _run(str(catalog_file), str(queries), "--mode", "lexical", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["n"] == 4
    assert report["no_gold"] == {"n": 1, "zero_hits": 1.0}


def test_eval_sample_runs_the_packaged_catalog_and_queries() -> None:
    code, out, err = _run("sample", "sample", "--mode", "lexical", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["n"] > 0
    assert report["no_gold"]["n"] > 0


def test_eval_history_replays_use_and_reports_seen_and_never_seen(catalog_file: Path, write_jsonl: JsonlWriter) -> None:
    lines: list[dict[str, object]] = [
        {"id": "a", "query": "tell the crew the standup moved", "gold": ["send_email"]},
        {"id": "b", "query": "tell the crew that the standup moved", "gold": ["send_email"]},
        {"id": "w", "query": "weather forecast for Paris", "gold": ["get_weather"]},
        {"id": "i", "query": "open a github issue about the crash", "gold": ["create_issue"]},
    ]
    path = str(write_jsonl(lines))
    code, out, _ = _run(str(catalog_file), path, "--mode", "lexical", "--history", "0.5", "--seed", "3", "--json")
    assert code == 0
    found = json.loads(out)
    assert found["history"] == 2
    reports = found["reports"]
    # Seed 3 replays i and a: b's tool was learned from its twin a, w's never appeared.
    assert (reports["seen"]["off"]["n"], reports["never"]["off"]["n"]) == (1, 1)
    assert (reports["seen"]["off"]["recall"]["1"], reports["seen"]["on"]["recall"]["1"]) == (0.0, 1.0)
    assert reports["never"]["off"]["recall"] == reports["never"]["on"]["recall"]
    code, out, _ = _run(str(catalog_file), path, "--mode", "lexical", "--history", "1")
    assert code != 0 and "--history" in out + _


def test_eval_history_log_replays_a_real_activity_log(
    tmp_path: Path, catalog_file: Path, write_jsonl: JsonlWriter
) -> None:
    log_path = tmp_path / "activity.jsonl"
    log = ActivityLog(file=log_path)
    scout = ToolScout(catalog_file, executor=lambda call: "sent", activity=log, settings=ScoutSettings(style="bridge"))
    session = scout.session("agent-1")
    session.dispatch_sync("tool_search", {"query": "tell the crew the standup moved"})
    called = session.dispatch_sync("tool_call", {"name": "send_email", "arguments": {"to": "crew@example.com"}})
    assert called.error is None
    other = scout.session("agent-2")  # a search with no call after it teaches nothing
    other.dispatch_sync("tool_search", {"query": "weather forecast for Paris"})
    log.close()
    scout.close()
    with log_path.open("a", encoding="utf-8") as lines:
        lines.write("not an event\n")
    labelled: list[dict[str, object]] = [
        {"id": "b", "query": "tell the crew that the standup moved", "gold": ["send_email"]},
        {"id": "w", "query": "weather forecast for Paris", "gold": ["get_weather"]},
    ]
    path = str(write_jsonl(labelled))
    code, out, err = _run(str(catalog_file), path, "--mode", "lexical", "--history-log", str(log_path), "--json")
    assert code == 0, out + err
    found = json.loads(out)
    assert (found["history"], found["history_log"]) == (0, {"events": 3, "calls": 1})
    reports = found["reports"]
    # Every labelled request is measured; b's tool was learned from the log's session, w's never called there.
    assert (reports["seen"]["off"]["n"], reports["never"]["off"]["n"]) == (1, 1)
    assert (reports["seen"]["off"]["recall"]["1"], reports["seen"]["on"]["recall"]["1"]) == (0.0, 1.0)
    assert reports["never"]["off"]["recall"] == reports["never"]["on"]["recall"]


def test_eval_history_log_names_a_missing_file(catalog_file: Path, write_jsonl: JsonlWriter, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    code, out, err = _run(str(catalog_file), str(write_jsonl(LABELLED)), "--history-log", str(missing))
    assert code != 0 and "nowhere.jsonl" in out + err


def test_eval_history_log_credits_stateless_gateway_requests_by_principal(
    tmp_path: Path, catalog_file: Path, write_jsonl: JsonlWriter
) -> None:
    # A 2026-07-28 client without a session: each request is its own gateway session, credited by its principal.
    # The gateway names tools under their upstream ("mail__send_email"); the catalog here has them bare.
    search = {"kind": "search", "tool": "tool_search", "ok": True, "query": "tell the crew the standup moved"}
    call = {"kind": "call", "tool": "mail__send_email", "upstream": "mail", "ok": True}
    now = time.time()
    lines = [
        {"level": "info", "activity": {**search, "time": now - 60, "session": "http:local:request:a1"}},
        {"level": "info", "activity": {**call, "time": now - 55, "session": "http:local:request:b2"}},
    ]
    log_path = tmp_path / "gateway.log"
    log_path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    labelled: list[dict[str, object]] = [
        {"id": "b", "query": "tell the crew that the standup moved", "gold": ["send_email"]}
    ]
    path = str(write_jsonl(labelled))
    code, out, err = _run(str(catalog_file), path, "--mode", "lexical", "--history-log", str(log_path), "--json")
    assert code == 0, out + err
    found = json.loads(out)
    assert found["history_log"] == {"events": 2, "calls": 1}
