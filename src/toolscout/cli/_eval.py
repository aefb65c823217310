"""`toolscout eval`: retrieval quality and speed of a catalog's index on a labelled query set."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from functools import partial
from pathlib import Path

import click

from .._errors import SearchError
from ..catalog import Catalog
from ..observe._internal import activity_events
from ..search._internal import EvalReport, LabelledQuery, QueryFileError, evaluate, load_labelled_queries
from ._engine import (
    build_for_mode,
    default_mode,
    load_catalog,
    mode_option,
    query_mode,
    sample_or_path,
    settings,
    warnings_on_stderr,
)
from ._replay import replay

__all__ = ["eval_command"]

PROGRESS_THRESHOLD = 50
"""Runs of at least this many queries show a progress bar on stderr."""


def _parse_ks(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        ks = tuple(int(part) for part in value.split(",") if part.strip())
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of integers, e.g. 1,5,10") from None
    if not ks or min(ks) < 1:
        raise click.BadParameter("cutoffs must be positive integers, e.g. 1,5,10")
    return tuple(sorted(set(ks)))


@click.command("eval")
@click.argument("catalog")
@click.argument("queries_file", metavar="QUERIES", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--k", "ks", default="1,5,10", show_default=True, callback=_parse_ks, help="Recall cutoffs.")
@mode_option
@click.option(
    "--aliases",
    "aliases_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSON object mapping catalog names to the names the gold lists use (renamed duplicates).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@click.option(
    "--history",
    type=click.FloatRange(0.0, 1.0, max_open=True),
    default=None,
    help="Learning replay: feed this share of QUERIES (seeded shuffle) as learned use, then report the rest "
    "with learning off and on, split into requests whose tool was seen in the history and the others.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="The replay's shuffle seed (with --history).")
@click.option(
    "--history-log",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Learning replay of an activity log (the gateway's JSON log lines or an ActivityLog file): its searches "
    "and successful calls are fed as learned use, then QUERIES (the part after --history's) is reported with "
    "learning off and on.",
)
def eval_command(
    catalog: str,
    queries_file: Path,
    ks: tuple[int, ...],
    mode: str | None,
    aliases_file: Path | None,
    as_json: bool,
    history: float | None,
    seed: int,
    history_log: Path | None,
) -> None:
    """Measure how well CATALOG's index finds the gold tools of QUERIES.

    QUERIES is a JSONL file of {"id": ..., "query": ..., "gold": [tool names]} lines (an
    empty gold list marks a request no tool answers). `sample` names the packaged samples.
    Reports Recall@k for each cutoff, MRR and nDCG at the largest cutoff, p50/p95 query
    latency and index build time. --json prints {"n", "recall": {"1": ..}, "hit", "mrr", "ndcg",
    "latency_ms": {"p50", "p95"}, "build_s", "k", "mode"}; a progress bar goes to stderr.

    With --history F, the first share F of QUERIES (after a shuffle seeded by --seed) is replayed as use: each
    request searched in a session of its own, then its gold tool's successful call recorded (learning on, in
    memory); the rest is searched in fresh sessions with learning off and on, reported as "seen" (a gold tool
    appeared in the history) and "never" (none did). --json prints {"history", "reports": {"seen": {"off":
    report, "on": report}, "never": ..., "all": ...}}.

    With --history-log LOG, the searches and successful calls of an activity log (`toolscout serve --log-format
    json -v` lines, or an ActivityLog file) are fed first, each in its logged session at its logged time, through
    the same recording path; a tool a logged call taught counts as seen. --json adds {"history_log": {"events",
    "calls"}}: events read, and successful calls that taught a pair.

    \b
    Example:
      toolscout eval tools.json queries.jsonl --k 1,5,10 --json
    """  # noqa: D301 - click needs a real \b (backspace) line to keep the examples unwrapped
    tools = load_catalog(catalog)
    try:
        queries = load_labelled_queries(sample_or_path(queries_file, "sample_queries.jsonl"))
    except QueryFileError as exc:
        raise click.ClickException(str(exc)) from None
    aliases = _load_aliases(aliases_file) if aliases_file is not None else None
    run_mode = mode or default_mode()
    if history is not None or history_log is not None:
        _replay(
            tools,
            queries,
            history=history or 0.0,
            log=_load_log(history_log) if history_log is not None else None,
            seed=seed,
            ks=ks,
            mode=mode or default_mode(),
            aliases=aliases,
            as_json=as_json,
        )
        return
    show_progress = len(queries) >= PROGRESS_THRESHOLD

    if show_progress:
        click.echo(f"Indexing {len(tools)} tools ({run_mode})...", err=True)
    with ExitStack() as stack:
        stack.enter_context(warnings_on_stderr())
        tick: Callable[[], None] | None = None
        if show_progress:
            bar = stack.enter_context(click.progressbar(length=len(queries), label="Searching", file=sys.stderr))
            tick = partial(bar.update, 1)
        try:
            report = evaluate(
                tools,
                queries,
                build=partial(build_for_mode, mode=run_mode),
                ks=ks,
                mode=query_mode(run_mode),
                aliases=aliases,
                on_query=tick,
            )
        except SearchError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(report.to_json()))
    else:
        _print_report(report)


def _replay(
    tools: Catalog,
    queries: Sequence[LabelledQuery],
    *,
    history: float,
    log: list[dict[str, object]] | None,
    seed: int,
    ks: tuple[int, ...],
    mode: str,
    aliases: dict[str, str] | None,
    as_json: bool,
) -> None:
    run = settings().model_copy(update={"search_mode": mode})
    with warnings_on_stderr():
        try:
            found = replay(
                tools,
                queries,
                settings=run,
                history=history,
                seed=seed,
                ks=ks,
                mode=query_mode(mode),
                aliases=aliases,
                log=log or (),
            )
        except SearchError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        reports: dict[str, dict[str, object]] = {}
        for (split, state), report in found.reports.items():
            reports.setdefault(split, {})[state] = report.to_json()
        logged = {"history_log": {"events": found.log_events, "calls": found.log_calls}} if log is not None else {}
        click.echo(json.dumps({"history": found.history, **logged, "reports": reports}))
        return
    click.echo(f"history      {found.history} requests  (mode: {mode})")
    if log is not None:
        click.echo(f"history log  {found.log_events} events, {found.log_calls} calls taught a pair")
    for split in ("seen", "never", "all"):
        for state in ("off", "on"):
            measured = found.reports.get((split, state))
            if measured is not None:
                recall = "  ".join(f"R@{k} {value:.4f}" for k, value in sorted(measured.recall.items()))
                click.echo(f"{split:<6} {state:<4} {measured.n:>5}  {recall}")


def _load_log(path: Path) -> list[dict[str, object]]:
    try:
        with path.open(encoding="utf-8") as lines:
            return list(activity_events(lines))
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot read activity log: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise click.ClickException(f"{path}: activity log is not UTF-8 text") from None


def _load_aliases(path: Path) -> dict[str, str]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot read alias file: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise click.ClickException(f"{path}: alias file is not valid JSON") from None
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise click.ClickException(f"{path}: alias file must be a JSON object of catalog name -> scored name")
    return value


def _print_report(report: EvalReport) -> None:
    rows = [("queries", f"{report.n}  (mode: {report.mode})")]
    rows += [(f"Recall@{k}", f"{value:.4f}") for k, value in sorted(report.recall.items())]
    rows += [
        (f"MRR@{report.k}", f"{report.mrr:.4f}"),
        (f"nDCG@{report.k}", f"{report.ndcg:.4f}"),
        ("latency", f"p50 {report.latency_p50_ms:.2f} ms   p95 {report.latency_p95_ms:.2f} ms"),
        ("index build", f"{report.build_s:.3f} s"),
    ]
    if report.no_gold_empty is not None:
        rows.append(("no-tool", f"{report.no_gold} queries no tool answers; {report.no_gold_empty:.0%} got zero hits"))
    for label, value in rows:
        click.echo(f"{label:<12} {value}")
