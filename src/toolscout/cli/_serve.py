"""`toolscout serve`: run the MCP gateway in front of every server in a config file."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

import click

from .._errors import ToolscoutError
from .._types import Transport

__all__ = ["serve_command"]


@click.command("serve")
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for one desktop client; http for Streamable HTTP.",
)
@click.option("--host", default=None, help="HTTP bind address [default: toolscout.host, else 127.0.0.1].")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=None, help="HTTP port, 0 for any free one [default: 8765]."
)
@click.option("-v", "--verbose", is_flag=True, help="Log every call (real tool, server, latency) and upstream event.")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--wait-for-upstreams",
    is_flag=True,
    help="Answer clients only once every upstream's first start attempt finished (default: tools/list and calls "
    "wait for upstreams still starting up to toolscout.startup_wait_s; later ones arrive with "
    "notifications/tools/list_changed).",
)
def serve_command(
    config: Path,
    transport: Transport,
    host: str | None,
    port: int | None,
    verbose: bool,
    log_format: Literal["text", "json"],
    wait_for_upstreams: bool,
) -> None:
    """Serve every MCP server in CONFIG behind one searchable gateway.

    CONFIG is the `mcpServers` JSON your MCP client already uses (or TOML or YAML with the same keys),
    with optional gateway settings in a `toolscout` section. Upstreams start at once (a few at a
    time); the first tools/list waits for them up to `startup_wait_s` (4 s), and the tools each
    listed last time stand in while it starts. Upstreams that fail to start are reported with
    their error and retried. Logs go to stderr. Over HTTP the first line on stdout is the
    endpoint URL.

    \b
    Examples:
      toolscout serve ~/.config/mcp/servers.json
      toolscout serve gateway.toml --transport http --port 8765
    """  # noqa: D301 - click needs a real \b (backspace) line to keep the examples unwrapped
    # Imported here: the MCP stack takes a while to import and other commands do not need it.
    import anyio

    from ..gateway import load_config, run_gateway
    from ..gateway._internal import configure_logging

    configure_logging(verbose=verbose, style=log_format)
    try:
        loaded = load_config(config)
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None
    if not loaded.enabled_servers():
        raise click.ClickException(f"{config}: every server is disabled; nothing to serve")

    if transport == "stdio" and sys.stdin.isatty():
        click.echo(
            "toolscout serve: waiting for an MCP client on stdin (start it from your MCP client's config; "
            f"to connect over a URL instead, run: toolscout serve {config} --transport http). Ctrl-C stops it.",
            err=True,
        )

    def announce(url: str) -> None:
        click.echo(f"toolscout serve: MCP at {url}; web page at {url.removesuffix('/mcp')}/ui/", err=True)
        click.echo(url)
        sys.stdout.flush()

    try:
        anyio.run(
            lambda: run_gateway(
                loaded,
                transport=transport,
                host=host,
                port=port,
                on_listening=announce,
                wait_for_upstreams=wait_for_upstreams,
            )
        )
    except ToolscoutError as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        pass
