"""`toolscout render`: print exactly the request fields toolscout would send to a provider."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import click

from .._errors import ConfigError, ToolscoutError
from .._scout import ToolScout
from .._settings import DeferralMode, ScoutSettings, Style
from .._tokens import default_token_counter
from ..providers import Provider, choose_style, get_provider
from ..providers._internal import NativeSearch, Rendering, measure_rendering, provider_names
from ..session import DiscoveryStore, MemoryStore, SqliteStore
from ._engine import load_catalog

__all__ = ["render_command"]

_SQLITE_MAGIC = b"SQLite format 3\x00"


@click.command("render")
@click.argument("catalog")
@click.option(
    "--provider",
    required=True,
    help=f"The provider API: {', '.join(provider_names())}, or any adapter registered with register_provider.",
)
@click.option(
    "--style",
    type=click.Choice(["auto", "bridge", "reveal", "native"]),
    default="auto",
    show_default=True,
    help="Disclosure style; auto picks native where --model supports it, else bridge.",
)
@click.option(
    "--search",
    type=click.Choice(get_args(NativeSearch)),
    default=None,
    help="Native variant [anthropic: hybrid (default), bm25, regex; openai-responses: hosted (default), client].",
)
@click.option("--model", default=None, help="The model id (for --style auto and the activation threshold).")
@click.option(
    "--mode",
    type=click.Choice(["auto", "on", "off"]),
    default="auto",
    show_default=True,
    help="When tools are deferred: auto (past the threshold), on (always) or off (never).",
)
@click.option("--core", multiple=True, metavar="NAME", help="A core tool (never deferred); repeatable.")
@click.option(
    "--session",
    "session_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help='Discoveries: a JSON list of tool names (or {"discovered": [...]}), or a toolscout SQLite session store.',
)
@click.option("--session-id", default="default", show_default=True, help="The session to read from an SQLite store.")
@click.option("--json", "as_json", is_flag=True, help="Print only the request fields, as JSON.")
def render_command(
    catalog: str,
    provider: Provider,
    style: str,
    search: NativeSearch | None,
    model: str | None,
    mode: DeferralMode,
    core: tuple[str, ...],
    session_file: Path | None,
    session_id: str,
    as_json: bool,
) -> None:
    """Print the tools array and system guidance toolscout would send to PROVIDER for CATALOG.

    CATALOG is a catalog JSON file, or `sample` for the catalog shipped with toolscout. With
    --session, the discoveries it holds are rendered as a session would: appended in reveal style,
    sent in full in native style (a new conversation has no history that loads them).
    """
    try:
        choice = choose_style(model, provider, override=None if style == "auto" else style)  # type: ignore[arg-type]  # click checked the choice
        client_style: Style = "reveal" if choice.style == "reveal" else "bridge"
        settings = ScoutSettings(mode=mode, style=client_style, model=model)
        store = _store(session_file, session_id)
        scout = ToolScout(load_catalog(catalog), core=core, settings=settings, store=store)
        adapter = get_provider(provider)
        variant = (search or choice.search) if choice.style == "native" else None
        rendering = adapter.render(scout.session(session_id), style=choice.style, search=variant)
    except ConfigError as exc:
        if exc.key == "search":
            raise click.BadParameter(exc.detail, param_hint="--search") from None
        raise click.ClickException(str(exc)) from None
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None
    fields = json.dumps(rendering.fields, indent=2, ensure_ascii=False)
    if as_json:
        click.echo(fields)
        return
    size = measure_rendering(rendering, default_token_counter())
    shown = f" ({rendering.search})" if rendering.search else ""
    click.echo(f"# {provider}, style {rendering.style}{shown}: {choice.reason}")
    click.echo(f"# {rendering.surface.assembly.activation.reason}")
    tokens = f"~{size.request_tokens} tokens sent, ~{size.context_tokens} read by the model up front"
    click.echo(f"# {_counts(rendering, size.declared, size.deferred)}; {tokens}")
    for name, mapped in sorted(rendering.names.renamed.items()):
        click.echo(f"# renamed for {provider}: {name} -> {mapped}")
    click.echo(fields)


def _counts(rendering: Rendering[object], declared: int, deferred: int) -> str:
    """What the tools array declares, what the provider defers, and what toolscout holds back for its search."""
    surface = rendering.surface
    bridge = f" ({len(surface.bridge)} of them toolscout's bridge tools)" if surface.bridge else ""
    parts = [f"{declared} tools declared{bridge}"]
    if deferred:
        parts.append(f"{deferred} deferred to the provider")
    sent = {tool.name for tool in (*surface.head, *surface.loaded, *surface.deferred)}
    held = sum(1 for tool in surface.searchable if tool.name not in sent)
    if held:
        parts.append(f"{held} held back for search")
    return ", ".join(parts)


def _store(path: Path | None, session_id: str) -> DiscoveryStore:
    if path is None:
        return MemoryStore()
    with path.open("rb") as handle:
        if handle.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC:
            return SqliteStore(path)
    try:
        data: object = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise click.ClickException(
            f"{path}: not a JSON list of tool names nor an SQLite session store ({exc})"
        ) from None
    names = data.get("discovered") if isinstance(data, dict) else data
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise click.ClickException(f'{path}: expected a JSON list of tool names or {{"discovered": [names]}}')
    store = MemoryStore()
    store.discover(session_id, names)
    return store
