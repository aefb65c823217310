"""`toolscout client-config`: the snippet that points an MCP client at the gateway.

Each client keeps its servers in a JSON file of its own shape; `CLIENTS` holds one
`ClientFormat` per client, so supporting another client is one entry.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._errors import ConfigError
from .._types import Transport

if TYPE_CHECKING:
    from ..gateway import GatewaySettings

__all__ = ["CLIENTS", "ClientFormat", "client_config_command"]

_DEFAULT_PORT = 8765  # `toolscout serve --port 0` picks a free port, which no client entry can name

Launch = dict[str, Any]
"""How the client starts or reaches the gateway: ``{"command", "args"}`` or ``{"url"}``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientFormat:
    """Where one MCP client keeps its servers, and how an entry is written."""

    title: str
    """The client's name as users know it."""
    servers_key: str
    """The top-level key holding the servers (``mcpServers`` or ``servers``)."""
    stdio: Callable[[str, list[str]], dict[str, Any]]
    """The entry for a gateway the client starts: (command, args) → entry."""
    http: Callable[[str], dict[str, Any]] | None
    """The entry for a gateway reached over Streamable HTTP (None: the file takes only stdio servers)."""
    path: Callable[[], Path]
    """The config file ``--write`` updates by default."""


def _home(*parts: str) -> Callable[[], Path]:
    return lambda: Path.home().joinpath(*parts)


def _claude_desktop_file() -> Path:
    if sys.platform == "darwin":
        return Path.home() / "Library/Application Support/Claude/claude_desktop_config.json"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home())) / "Claude/claude_desktop_config.json"
    return Path.home() / ".config/Claude/claude_desktop_config.json"


CLIENTS: dict[str, ClientFormat] = {
    "claude": ClientFormat(
        title="Claude Desktop",
        servers_key="mcpServers",
        stdio=lambda command, args: {"command": command, "args": args},
        http=None,
        path=_claude_desktop_file,
    ),
    "claude-code": ClientFormat(
        title="Claude Code (project .mcp.json)",
        servers_key="mcpServers",
        stdio=lambda command, args: {"type": "stdio", "command": command, "args": args},
        http=lambda url: {"type": "http", "url": url},
        path=lambda: Path(".mcp.json"),
    ),
    "cursor": ClientFormat(
        title="Cursor",
        servers_key="mcpServers",
        stdio=lambda command, args: {"command": command, "args": args},
        http=lambda url: {"url": url},
        path=_home(".cursor", "mcp.json"),
    ),
    "vscode": ClientFormat(
        title="VS Code (workspace .vscode/mcp.json)",
        servers_key="servers",
        stdio=lambda command, args: {"type": "stdio", "command": command, "args": args},
        http=lambda url: {"type": "http", "url": url},
        path=lambda: Path(".vscode/mcp.json"),
    ),
    "windsurf": ClientFormat(
        title="Windsurf",
        servers_key="mcpServers",
        stdio=lambda command, args: {"command": command, "args": args},
        http=lambda url: {"serverUrl": url},
        path=_home(".codeium", "windsurf", "mcp_config.json"),
    ),
}


def _toolscout_command() -> str:
    """The absolute path of this `toolscout` executable, so the client needs no PATH set-up."""
    sibling = Path(sys.executable).with_name("toolscout")
    if sibling.exists():
        return str(sibling)
    return shutil.which("toolscout") or "toolscout"


def _settings(config: Path) -> GatewaySettings:
    """CONFIG's gateway settings (a config the gateway would refuse is refused here, with the reason)."""
    from ..gateway import load_config

    try:
        return load_config(config).settings
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def _required_variables(config: Path) -> list[str]:
    """The environment variables CONFIG's ``${VAR}`` references need (those without a default), sorted."""
    from ..gateway._internal import read_document, required_variables

    try:
        return sorted(required_variables(read_document(config)))
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None


def _merged(file: Path, servers_key: str, name: str, entry: dict[str, Any]) -> dict[str, Any]:
    """`file`'s content with `entry` set under ``servers_key.name``; every other key is kept."""
    if not file.exists():
        return {servers_key: {name: entry}}
    try:
        data = json.loads(file.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise click.ClickException(
            f"{file}: cannot read it as JSON ({exc}); fix or move it, nothing was written"
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get(servers_key, {}), dict):
        raise click.ClickException(f"{file}: expected an object with an object {servers_key!r}; nothing was written")
    data.setdefault(servers_key, {})[name] = entry
    return data


@click.command("client-config")
@click.argument("client", type=click.Choice(sorted(CLIENTS)))
@click.argument("config", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--url", help="The gateway's URL (http) [default: from CONFIG's toolscout.host and toolscout.port].")
@click.option("--name", default="toolscout", show_default=True, help="The server's name in the client.")
@click.option(
    "--write",
    "write_to",
    is_flag=False,
    flag_value="",
    default=None,
    help="Write into the client's config file (or the given one), keeping its other servers.",
)
def client_config_command(
    client: str, config: Path, transport: Transport, url: str | None, name: str, write_to: str | None
) -> None:
    """Print (or --write) the entry that points CLIENT at a gateway serving CONFIG.

    The gateway's default bridge style needs nothing from the client beyond a fixed tool list,
    so it works with every client; the reveal style needs a client that re-reads the list on
    ``notifications/tools/list_changed``. With ``--transport http`` the command that starts the
    gateway at that URL is printed on stderr (the client only connects to it).
    """
    fmt = CLIENTS[client]
    if transport == "http":
        if fmt.http is None:
            raise click.ClickException(
                f"{fmt.title} reads only stdio servers from its config file: use --transport stdio"
            )
        settings = _settings(config)
        host, port = settings.host, settings.port or _DEFAULT_PORT
        shown = f"[{host}]" if ":" in host else host
        entry = fmt.http(url or f"http://{shown}:{port}/mcp")
        serve = [_toolscout_command(), "serve", str(config.resolve()), "--transport", "http", "--port", str(port)]
        click.echo(f"start the gateway with:\n{shlex.join(serve)}", err=True)
    else:
        entry = fmt.stdio(_toolscout_command(), ["serve", str(config.resolve())])
        needed = _required_variables(config)
        if needed:
            listed = ", ".join(needed)
            click.echo(
                f"{config} reads {listed} from the environment, and {fmt.title} starts the gateway with its own: "
                f'add {"it" if len(needed) == 1 else "them"} under "env" in this entry',
                err=True,
            )
    if write_to is None:
        click.echo(json.dumps({fmt.servers_key: {name: entry}}, indent=2))
        return
    file = Path(write_to) if write_to else fmt.path()
    merged = _merged(file, fmt.servers_key, name, entry)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")
    click.echo(f"wrote {fmt.servers_key}.{name} into {file} ({fmt.title})")
