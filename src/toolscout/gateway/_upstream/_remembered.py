"""`RememberedListings`: each upstream's last tool listing on disk, standing in for it while it starts.

A gateway keeps every listing an upstream gives it (``toolscout.remember_tools``), so its next start
answers the first ``tools/list`` with the whole catalog while the servers are still starting: the
auto gate and the bridge tools are decided from the start, and calls to a remembered tool wait for
its server. A listing is keyed by a hash of the server's entry as configured (command, arguments,
environment and working folder, or URL and headers) and the tool-name separator, so an edited
entry starts without one; secrets in the entry only enter the hash. Files are written atomically;
a file that cannot be read or written costs only the stand-in, never an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from ..._errors import CatalogError
from ..._files import write_atomically
from ..._types import JsonObject
from ...catalog._internal import iter_tool_specs
from .._config import HttpServer, ServerConfig
from ._dump import mcp_definition
from ._records import ToolListing, UpstreamTool

__all__ = ["RememberedListings"]

logger = logging.getLogger("toolscout.gateway")

_FORMAT = 1


class RememberedListings:
    """Tool listings by server entry, in ``<folder>/gateway-tools/``."""

    def __init__(self, folder: Path, *, separator: str) -> None:
        """Keep listings under `folder` for tools named with `separator`."""
        self.folder = folder / "gateway-tools"
        self._separator = separator

    def recall(self, name: str, server: ServerConfig) -> ToolListing | None:
        """The listing kept for `server` under the namespace `name`, if any (None when unreadable)."""
        path = self._path(name, server)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != _FORMAT:
                return None
            tools = tuple(
                UpstreamTool(spec=spec, upstream_name=str(entry["upstream_name"]))
                for entry in data["tools"]
                for spec in iter_tool_specs([entry["definition"]], namespace=name)
            )
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, CatalogError) as exc:  # a damaged file: start without it
            logger.warning("ignoring the remembered tools of upstream %r (%s): %s", name, path, exc)
            return None
        return ToolListing(server=name, tools=tools)

    def keep(self, listing: ToolListing, server: ServerConfig) -> None:
        """Remember `listing` as `server`'s (a write failure is logged, never raised)."""
        tools = [
            {"upstream_name": tool.upstream_name, "definition": mcp_definition(tool.spec)} for tool in listing.tools
        ]
        document: JsonObject = {"format": _FORMAT, "server": listing.server, "tools": tools}
        text = json.dumps(document, ensure_ascii=False).encode()
        path = self._path(listing.server, server)
        try:
            write_atomically(path, lambda file: file.write(text))
        except OSError as exc:
            logger.warning("could not remember the tools of upstream %r in %s: %s", listing.server, path, exc)

    def _path(self, name: str, server: ServerConfig) -> Path:
        entry: JsonObject
        if isinstance(server, HttpServer):
            entry = {"url": server.url, "headers": server.plain_headers()}
        else:
            cwd = str(server.cwd) if server.cwd is not None else None
            entry = {"command": server.command, "args": list(server.args), "env": server.plain_env(), "cwd": cwd}
        key = json.dumps({"name": name, "separator": self._separator, "entry": entry}, sort_keys=True)
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"
