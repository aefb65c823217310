"""Context offloading: tokens the model receives with and without it, and read/search/jq latency on 10 MB.

Part 1 scripts a session of tool calls with large outputs (100 KB to 2 MB: a server log, an API
listing in JSON, a source file, a page snapshot, a CSV export) and the offload-tool calls a
model makes to answer one question about each. It counts, with the default token counter,
the tokens of every tool result the model receives, with offloading (stub + the answers it
reads) and without (the whole output), checks that the answers it read hold the right
answer, and counts the bytes it actually read.

Part 2 times read, search and jq on a 10 MB output through `ScoutSession.dispatch`, next to
the plain-Python way of doing the same on the text held in memory, in the same run.

    .venv/bin/python bench/offload.py   # -> bench/results/offload.{json,md}
"""

from __future__ import annotations

import json
import platform
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from offload_data import big_outputs, tasks

from toolscout import ScoutSettings, ToolScout, ToolSpec, default_token_counter
from toolscout._tokens import TokenCounter, schema_tokens
from toolscout.offload import Offloader, OffloadSettings
from toolscout.offload._internal import FileOffloadStore, offload_tools

RESULTS = Path(__file__).resolve().parent / "results"
WARM_RUNS = 15
JQ_RUNS = 5


# ---------------------------------------------------------------- part 1


def tokens_of(value: object, counter: TokenCounter) -> int:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return sum(counter.count(text[start : start + 200_000]) for start in range(0, len(text), 200_000))


def read_bytes(answer: dict[str, object]) -> int:
    if "text" in answer:
        return len(str(answer["text"]).encode())
    if "matches" in answer:
        return sum(len(json.dumps(match, ensure_ascii=False).encode()) for match in answer["matches"])  # type: ignore[attr-defined]
    return len(json.dumps(answer.get("results"), ensure_ascii=False).encode())


def offloading_scout(
    specs: list[ToolSpec], outputs: Mapping[str, object], counter: TokenCounter, folder: Path
) -> ToolScout:
    """A scout whose tools return `outputs` by name, offloading into `folder` with the default settings."""
    offloader = Offloader(OffloadSettings(), store=FileOffloadStore(folder), token_counter=counter)
    return ToolScout(
        specs,
        settings=ScoutSettings(mode="off"),
        executor=lambda call: outputs[call.name],
        token_counter=counter,
        offload=offloader,
    )


def session_tokens(counter: TokenCounter, folder: Path) -> dict[str, object]:
    scripted = tasks()
    outputs = {task.tool: task.output for task in scripted}
    specs = [
        ToolSpec(name=task.tool, namespace=task.tool.split("__")[0], description=task.question) for task in scripted
    ]
    scout = offloading_scout(specs, outputs, counter, folder)
    session = scout.session("bench")
    rows, requests = [], 0
    for task in scripted:
        output_text = task.output if isinstance(task.output, str) else json.dumps(task.output, ensure_ascii=False)
        stub = session.dispatch_sync(task.tool, {})
        handle = stub.content["parts"][0]["handle"]  # type: ignore[index]
        answers: list[object] = []
        for tool, arguments in task.calls(handle):
            if arguments.get("start_line") == "FROM_SEARCH":
                arguments = {**arguments, "start_line": answers[-1]["matches"][0]["line"]}  # type: ignore[index]
            answer = session.dispatch_sync(tool, arguments)
            assert not answer.is_error, answer.content
            answers.append(answer.content)
        requests += 1 + len(answers)
        with_tokens = tokens_of(stub.to_text(), counter) + sum(tokens_of(answer, counter) for answer in answers)
        rows.append(
            {
                "tool": task.tool,
                "question": task.question,
                "output_bytes": len(output_text.encode()),
                "without_tokens": tokens_of(output_text, counter),
                "stub_tokens": tokens_of(stub.to_text(), counter),
                "offload_calls": len(answers),
                "with_tokens": with_tokens,
                "bytes_read": sum(read_bytes(answer) for answer in answers),  # type: ignore[arg-type]
                "answered": task.answered(answers),
            }
        )
    scout.close()
    without = sum(int(row["without_tokens"]) for row in rows)
    with_results = sum(int(row["with_tokens"]) for row in rows)
    definitions = sum(schema_tokens(tool.to_definition(), counter) for tool in offload_tools())
    with_total = with_results + definitions * (requests + 1)
    return {
        "rows": rows,
        "without_tokens": without,
        "with_result_tokens": with_results,
        "offload_tool_definition_tokens": definitions,
        "model_requests_with_offloading": requests + 1,
        "with_total_tokens": with_total,
        "saving_results": round(1 - with_results / without, 4),
        "saving_total": round(1 - with_total / without, 4),
        "output_bytes": sum(int(row["output_bytes"]) for row in rows),
        "bytes_read": sum(int(row["bytes_read"]) for row in rows),
        "all_answered": all(row["answered"] for row in rows),
    }


# ---------------------------------------------------------------- part 2


def median_ms(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return round(statistics.median(times) * 1000, 2)


def latency(counter: TokenCounter, folder: Path) -> dict[str, object]:
    text, listing = big_outputs()
    outputs = {"logs__dump": text, "api__dump": listing}
    specs = [ToolSpec(name=name, description=name) for name in outputs]
    scout = offloading_scout(specs, outputs, counter, folder)
    session = scout.session("latency")
    started = time.perf_counter()
    text_handle = session.dispatch_sync("logs__dump", {}).content["parts"][0]["handle"]  # type: ignore[index]
    offload_text_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    json_handle = session.dispatch_sync("api__dump", {}).content["parts"][0]["handle"]  # type: ignore[index]
    offload_json_ms = (time.perf_counter() - started) * 1000
    total_lines = text.count("\n")
    middle = total_lines // 2

    def call(tool: str, arguments: dict[str, object]) -> object:
        outcome = session.dispatch_sync(tool, arguments)
        assert not outcome.is_error, outcome.content
        return outcome.content

    started = time.perf_counter()
    call("output_read", {"handle": text_handle, "start_line": middle, "lines": 50})
    cold_ms = (time.perf_counter() - started) * 1000
    last = f"req={total_lines - 50} "
    rare = re.compile(last)
    rows = [
        (
            "read 50 lines mid-file",
            lambda: call("output_read", {"handle": text_handle, "start_line": middle, "lines": 50}),
            WARM_RUNS,
            "str.splitlines()[a:b]",
            lambda: text.splitlines(keepends=True)[middle - 1 : middle + 49],
        ),
        (
            "read 4k chars at offset 9,000,000",
            lambda: call("output_read", {"handle": text_handle, "offset": 9_000_000, "length": 4000}),
            WARM_RUNS,
            "str slice",
            lambda: text[9_000_000:9_004_000],
        ),
        (
            "search literal, 1 hit near the end",
            lambda: call("output_search", {"handle": text_handle, "pattern": last}),
            WARM_RUNS,
            "re.search per line",
            lambda: [line for line in text.splitlines() if rare.search(line)],
        ),
        (
            f"search literal ERROR, all {text.count(' ERROR ')} hits in one page",
            lambda: call("output_search", {"handle": text_handle, "pattern": "ERROR", "case_sensitive": True}),
            WARM_RUNS,
            "re.finditer whole text",
            lambda: list(re.finditer("ERROR", text)),
        ),
        (
            "search regex took=99\\dms, first page",
            lambda: call("output_search", {"handle": text_handle, "pattern": r"took=99\dms", "regex": True}),
            WARM_RUNS,
            "re.findall whole text",
            lambda: re.findall(r"took=99\dms", text),
        ),
        (
            "jq: .items | length",
            lambda: call("output_query", {"handle": json_handle, "expression": ".items | length"}),
            JQ_RUNS,
            "json.loads + len",
            lambda: len(json.loads(listing)["items"]),
        ),
        (
            "jq: count of open items with score > 900",
            lambda: call(
                "output_query",
                {
                    "handle": json_handle,
                    "expression": '[.items[] | select(.state == "open" and .score > 900)] | length',
                },
            ),
            JQ_RUNS,
            "json.loads + comprehension",
            lambda: sum(1 for item in json.loads(listing)["items"] if item["state"] == "open" and item["score"] > 900),
        ),
    ]
    measured = []
    for name, run, repeats, baseline_name, baseline in rows:
        ours = median_ms(run, repeats)
        theirs = median_ms(baseline, repeats)
        measured.append(
            {
                "operation": name,
                "toolscout_ms": ours,
                "baseline": baseline_name,
                "baseline_ms": theirs,
                "ratio": round(ours / theirs, 2) if theirs >= 0.05 else None,
            }
        )
    scout.close()
    return {
        "text_bytes": len(text.encode()),
        "json_bytes": len(listing.encode()),
        "offload_text_ms": round(offload_text_ms, 1),
        "offload_json_ms": round(offload_json_ms, 1),
        "first_read_cold_ms": round(cold_ms, 1),
        "operations": measured,
    }


# ---------------------------------------------------------------- report


def markdown(report: dict[str, object]) -> str:
    session = report["session"]
    timing = report["latency"]
    out = [
        "# Context offloading",
        "",
        f"Token counter: `{report['counter']}`. Machine: {report['machine']}. Default settings (budget 4,000 tokens, "
        "preview 500). Rerun: `.venv/bin/python bench/offload.py`.",
        "",
        "## Tokens the model receives, scripted session",
        "",
        "| tool | question | output | without offloading | stub | offload calls | with offloading | saving "
        "| bytes read | answered |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|:-:|",
    ]
    for row in session["rows"]:  # type: ignore[index]
        saving = 1 - row["with_tokens"] / row["without_tokens"]
        out.append(
            f"| `{row['tool']}` | {row['question']} | {row['output_bytes'] / 1000:,.0f} KB "
            f"| {row['without_tokens']:,} | "
            f"{row['stub_tokens']:,} | {row['offload_calls']} | {row['with_tokens']:,} | {saving:.1%} | "
            f"{row['bytes_read']:,} | {'yes' if row['answered'] else 'NO'} |"
        )
    out += [
        f"| **total** | | {session['output_bytes'] / 1000:,.0f} KB | **{session['without_tokens']:,}** | | | "
        f"**{session['with_result_tokens']:,}** | **{session['saving_results']:.1%}** | {session['bytes_read']:,} | |",
        "",
        f"Counting also the offload tools' definitions ({session['offload_tool_definition_tokens']} tokens) in "
        f"every one of the {session['model_requests_with_offloading']} model requests of the offloading session: "
        f"{session['with_total_tokens']:,} tokens, still **{session['saving_total']:.1%}** fewer. The model read "
        f"{session['bytes_read']:,} of {session['output_bytes']:,} bytes "
        f"({session['bytes_read'] / session['output_bytes']:.2%}) to answer every question.",
        "",
        "## Latency on a 10 MB output (median, ms)",
        "",
        f"Offloading the 10 MB text result (measure, store, stub): {timing['offload_text_ms']} ms; the 10 MB JSON "
        f"result: {timing['offload_json_ms']} ms. First read of a stored output (loads and indexes it): "
        f"{timing['first_read_cold_ms']} ms; later calls use the cached index.",
        "",
        "| operation (through `dispatch`) | toolscout | plain Python on the in-memory text | baseline | ratio |",
        "|---|---:|---|---:|---:|",
    ]
    for row in timing["operations"]:  # type: ignore[index]
        ratio = f"{row['ratio']}×" if row["ratio"] is not None else "—"
        operation = str(row["operation"]).replace("|", "\\|")
        out.append(f"| {operation} | {row['toolscout_ms']} | {row['baseline']} | {row['baseline_ms']} | {ratio} |")
    out += [
        "",
        "jq runs in a fresh child process per query (time and memory limits, no environment), so its time includes "
        "starting Python and sending the 10 MB to it; the baselines hold the whole output in the agent's memory.",
        "",
    ]
    return "\n".join(out)


def main() -> None:
    counter = default_token_counter()
    with tempfile.TemporaryDirectory() as folder:
        report = {
            "counter": counter.name,
            "machine": f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
            "session": session_tokens(counter, Path(folder) / "session"),
            "latency": latency(counter, Path(folder) / "latency"),
        }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "offload.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "offload.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
