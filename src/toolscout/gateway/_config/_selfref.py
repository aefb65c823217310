"""Refuse a config that lists the gateway as its own upstream (it would respawn itself forever).

Two shapes are caught before anything starts: a stdio server that runs ``toolscout serve``
(or ``python -m toolscout serve``) on the very config file being served, and a Streamable
HTTP server whose URL is this gateway's own address and port.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from ..._errors import ConfigError
from ._model import GatewayConfig, HttpServer, StdioServer

__all__ = ["check_not_self_referencing"]

_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0", "::"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def check_not_self_referencing(config: GatewayConfig, *, host: str | None, port: int | None) -> None:
    """Raise if an upstream of `config` is this gateway itself.

    Args:
        config: The config about to be served.
        host: The HTTP bind address, or None when serving stdio.
        port: The HTTP port (0: a free one, which no config can name), or None when serving stdio.

    Raises:
        ConfigError: An upstream runs or reaches this gateway; ``key`` names it.
    """
    for name, server in config.enabled_servers().items():
        key = f"mcpServers.{name}"
        if isinstance(server, StdioServer) and config.source is not None and _serves(server, config.source):
            raise ConfigError(
                f"runs `toolscout serve` on {config.source}, the config being served: the gateway would start "
                "itself as its own upstream, again and again; remove this entry",
                key=key,
            )
        if isinstance(server, HttpServer) and host is not None and port:
            if _same_address(server.url, host, port):
                raise ConfigError(
                    f"{server.url} is this gateway's own address: it would call itself as its own upstream; "
                    "remove this entry or point it at another server",
                    key=key,
                )


def _serves(server: StdioServer, source: Path) -> bool:
    words = [server.command, *server.args]
    runs_toolscout = Path(server.command).name == "toolscout" or any(
        first == "-m" and second == "toolscout" for first, second in zip(words, words[1:], strict=False)
    )
    if not runs_toolscout or "serve" not in server.args:
        return False
    base = server.cwd if server.cwd is not None else Path.cwd()
    for arg in server.args:
        candidate = (base / arg).expanduser()
        try:
            if candidate.is_file() and os.path.samefile(candidate, source):
                return True
        except OSError:
            continue
    return False


def _same_address(url: str, host: str, port: int) -> bool:
    parts = urlsplit(url)
    try:
        target_port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return False
    target = (parts.hostname or "").lower()
    ours = {host.lower()} | (_LOOPBACK if host in _LOOPBACK else set())
    return target_port == port and target in ours
