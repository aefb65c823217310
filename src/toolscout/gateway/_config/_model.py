"""The gateway's config file: the `mcpServers` map MCP clients already use, plus a `toolscout` section.

```json
{
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
               "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"}},
    "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
  },
  "toolscout": {"style": "bridge", "call_timeout_s": 60, "pinned": ["github__get_*"]}
}
```

Server names are kept as written ("Ant Design Components"); each server's tools are named
``namespace__tool``, with a namespace derived from the name so tool names stay within what model
providers accept (`namespace_for` in ``_servernames.py`` has the rule; two servers deriving the
same namespace are an error). The tool-search blocks of Hermes Agent (``tools.tool_search``),
everruns (``capabilities``), AstrBot (``provider_settings``) and mcpagent (``mcpagent``) are read
too, as the equivalent ``toolscout`` keys (`toolscout.compat`). The same keys work in a TOML or
YAML file (``[mcpServers.github]``, ``[toolscout]``); VS Code's
``servers`` key is accepted for ``mcpServers``. Every string may use ``${VAR}`` or
``${VAR:-default}`` (``$${`` writes a literal ``${``). A relative ``cwd`` is taken from the
config file's folder; a relative command path (one containing ``/``) from the server's ``cwd``,
and so is a relative ``toolscout.store`` (or ``toolscout.learning.store``) path. Env and header values and auth
tokens are `SecretStr`: they never show in a repr. Header values, auth tokens and values under a secret's name
(``GITHUB_TOKEN``, ``${API_KEY}``: `names_a_secret`) never show in a log line or an error either.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, TypeAlias

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    StrictBool,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource

from ..._close import did_you_mean
from ..._errors import ConfigError
from ..._redact import add_secrets, names_a_secret
from ..._settings import ScoutSettings
from ..._types import JsonObject
from ..._validation import Finite, NoBool, Switch, unknown_setting, validate_section
from ...catalog._internal import NAMESPACE_SEPARATOR
from ...compat import KeyNote, translate_config
from ...offload import OffloadSettings
from .._identity import AuthSettings
from ._datadir import default_store_path
from ._envsubst import expand_env
from ._files import read_document
from ._servernames import ServerNames, namespace_for

__all__ = ["GatewayConfig", "GatewaySettings", "HttpServer", "ServerConfig", "StdioServer", "load_config"]

# Keys some MCP clients add to a server entry; they mean nothing to the gateway.
_IGNORED_SERVER_KEYS = frozenset({"autoApprove", "alwaysAllow", "timeout", "description", "transportType"})


def _offload(value: object) -> object:
    return {"enabled": value} if isinstance(value, bool) else value


class StdioServer(BaseModel):
    """A local server the gateway starts and talks to over stdin/stdout."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    command: str = Field(min_length=1)
    """The executable (resolved to an absolute path when given relative with a ``/``)."""
    args: tuple[str, ...] = ()
    """Command-line arguments, passed verbatim."""
    env: dict[str, SecretStr] = Field(default_factory=dict)
    """Extra environment variables, merged over the SDK's safe default environment."""
    cwd: Path | None = None
    """Working directory of the server process (absolute after loading)."""
    disabled: StrictBool = False
    """Kept in the file but not started (the flag some MCP clients use)."""

    def plain_env(self) -> dict[str, str]:
        """Return the environment with the secret values revealed, for spawning the process."""
        return {key: value.get_secret_value() for key, value in self.env.items()}


class HttpServer(BaseModel):
    """A remote server reached over Streamable HTTP."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    url: str = Field(pattern=r"^https?://\S+$")
    """The server's MCP endpoint, e.g. ``http://127.0.0.1:8000/mcp``."""
    headers: dict[str, SecretStr] = Field(default_factory=dict)
    """Extra HTTP headers sent with every request (typically ``Authorization``)."""
    disabled: StrictBool = False
    """Kept in the file but not connected."""

    def plain_headers(self) -> dict[str, str]:
        """Return the headers with the secret values revealed, for the HTTP client."""
        return {key: value.get_secret_value() for key, value in self.headers.items()}


ServerConfig: TypeAlias = StdioServer | HttpServer
"""One upstream server entry."""


class GatewaySettings(ScoutSettings):
    """The ``toolscout`` section: every `ScoutSettings` key, plus how the gateway serves and calls upstreams.

    Environment variables ``TOOLSCOUT_<KEY>`` override the file (``TOOLSCOUT_OFFLOAD__BUDGET_TOKENS``
    for nested keys).
    """

    reveal_call_tool: Annotated[StrictBool, Switch] = True
    """Reveal style: also list the call tool (see the library key; on here, because MCP clients that keep
    their first tool list, or send no session, never see a reveal and run found tools through it)."""
    search_listing_tokens: Annotated[int, NoBool, Field(ge=0)] = 150
    """Token budget of the catalog listing in the search tool's description (see the library key; 150 here,
    because most MCP clients never show the model the gateway's ``instructions``)."""
    separator: str = Field(default=NAMESPACE_SEPARATOR, pattern=r"^[A-Za-z0-9_.:-]{1,8}$")
    """Joins server and tool name: ``github__create_issue`` (1-8 of letters, digits, ``_ . : -``)."""
    call_timeout_s: Annotated[float, Finite, Field(gt=0)] = 60.0
    """Seconds one upstream tool call may take. A call past it fails and is cancelled on the server; the connection
    stays (a stdio server is not restarted), and an answer that still comes costs one linear read, and one parse
    off the event loop, within `upstream_max_message_bytes` (past it, it is read through and dropped)."""
    connect_timeout_s: Annotated[float, Finite, Field(gt=0)] = 30.0
    """Seconds an upstream may take to start and finish the MCP handshake."""
    store: str | None = Field(default=None, min_length=1)
    """Where session discoveries live: an SQLite file path (relative to the config file), ``memory``,
    or a ``redis://`` URL (needs ``toolscout[redis]``). Default: ``sessions.sqlite3`` in the data dir.
    With Redis, replicas also tell each other's clients of a session's reveals (Redis pub/sub)."""
    store_timeout_s: Annotated[float, Finite, Field(gt=0)] = 5.0
    """Seconds one session-store read or write may take; past it, only the call that needed it fails
    (a locked SQLite file or an unreachable Redis never stalls other clients or ``/healthz``)."""
    session_id: str | None = Field(default=None, min_length=1, max_length=200)
    """stdio: the session id to use. Default: the client's name within this config file (a digest of its resolved
    path), so a restart of the same config, even edited, keeps its discoveries, and another config file sharing the
    data folder's store and the client's name starts with none. Set the same id in several configs to share one."""
    session_idle_s: Annotated[float, Finite, Field(gt=0)] = 3600.0
    """Seconds without a request after which a session ends: its offloaded outputs are deleted (its
    discoveries stay in the store; with a shared ``offload.store`` its ``offload.ttl_s`` applies instead).
    Sessions tied to one HTTP connection or one stateless request end, outputs and discoveries, as soon
    as it does."""
    max_sessions_per_token: Annotated[int, NoBool, Field(ge=1, le=10_000)] = 1_000
    """HTTP: open MCP sessions one bearer token may hold; past it the token's least recently used session is closed,
    so a client opening sessions without end never locks others out of the SDK's 10,000-session table. Without auth
    each client address may hold as many, and one more is refused with 429 (no caller's session is ever closed by
    another's: local clients share one address); a session unused for 30 minutes no longer counts. It is also each
    token's share of the toolscout sessions (``Toolscout-Session`` ids and MCP sessions) the gateway tracks: past
    it the token's least recently used one ends, its outputs and discoveries deleted, so one token never evicts
    another's outputs or discoveries (callers without a token count as one here)."""
    new_sessions_per_minute: Annotated[int, NoBool, Field(ge=1, le=1_000_000)] = 300
    """HTTP: new MCP sessions one bearer token (a caller without one: one client address) may open per minute, in
    bursts of up to as many; past it the request gets 429 with Retry-After (an ``initialize`` is told by its parsed
    JSON-RPC method, however its JSON spells it). A ``Toolscout-Session`` id the token has not used lately counts as
    a new session too. Opening a session costs the gateway far
    more than a request in one, so this keeps a client that opens sessions in a loop from slowing every other."""
    max_waiting_calls_per_token: Annotated[int, NoBool, Field(ge=1, le=4096)] = 256
    """2026-07-28 tool calls one bearer token (callers without one count as one) may have running or waiting for
    the client's answers to a server's questions at a time; a call past it is refused with a tool error naming this
    limit, and no other caller's call is cancelled (the gateway holds at most 4,096 of all tokens together). A call
    whose client disconnects is cancelled and frees its place at once."""
    host: str = Field(default="127.0.0.1", min_length=1)
    """HTTP: the address to bind."""
    port: Annotated[int, NoBool, Field(ge=0, le=65535)] = 8765
    """HTTP: the port to bind, 1-65535 (0 picks a free one)."""
    auth: AuthSettings | None = None
    """HTTP: who may call, by static bearer tokens or an identity provider's access tokens, and what each grant may
    reach (see `toolscout.gateway.AuthSettings`)."""
    restart_backoff_s: Annotated[float, Finite, Field(gt=0)] = 0.5
    """First delay before restarting a crashed upstream; it doubles per failed attempt, up to 60 s."""
    start_concurrency: Annotated[int, NoBool, Field(ge=1)] = 4
    """Upstreams started at the same time (the others wait their turn)."""
    startup_wait_s: Annotated[float, Finite, Field(ge=0, le=600)] = 4.0
    """Seconds after start-up during which ``tools/list`` and tool calls wait for upstreams still making their first
    start attempt with no tools known, so a client that lists once right after connecting gets the whole surface and a
    search never answers from half a catalog. Past it they answer with what is attached (a search names the servers
    missing from it) and the rest arrive with ``notifications/tools/list_changed``. The default stays under the 5 s
    many clients wait for an answer; ``initialize`` never waits."""
    remember_tools: StrictBool = True
    """Keep each upstream's tool list in the cache folder (``TOOLSCOUT_CACHE_DIR``, else the user cache), keyed by
    a hash of its config entry, so that the next start lists those tools while the server is still starting (calls
    to them wait for it); a server listing other tools when it attaches replaces them, with a list change."""
    max_subscriptions_per_session: Annotated[int, NoBool, Field(ge=1, le=100_000)] = 1_000
    """2025-era ``resources/subscribe``: resources one client session may be subscribed to at once; one more is
    refused with an error naming this limit (the gateway holds one upstream subscription per resource, released
    when its last subscriber unsubscribes or its session ends)."""
    max_listen_streams_per_token: Annotated[int, NoBool, Field(ge=1, le=4096)] = 256
    """2026-07-28 ``subscriptions/listen`` streams one bearer token (a caller without one: one client address) may
    hold open at once; one more is refused with an error naming this limit, so one client cannot take the 4,096
    streams the gateway holds in all."""
    max_restarts: Annotated[int, NoBool, Field(ge=1)] = 8
    """Failed attempts in a row after which an upstream is marked failed for good (slow handshakes not counted)."""
    upstream_max_tools: Annotated[int, NoBool, Field(ge=1)] = 5_000
    """The most tools one upstream may list; the tools past this many are left out, with a warning naming the
    server (a server listing 100,000 tools would otherwise take over a gigabyte)."""
    upstream_max_resources: Annotated[int, NoBool, Field(ge=1)] = 10_000
    """The most resources, and apart from them the most resource templates, one upstream may list; those past
    this many are left out, with a warning naming the server (a server listing 500,000 resources took 12 s and
    700 MB for one page of ``resources/list``). Listings are read once and kept until the server says they
    changed."""
    upstream_max_prompts: Annotated[int, NoBool, Field(ge=1)] = 1_000
    """The most prompts one upstream may list; those past this many are left out, with a warning naming the
    server."""
    upstream_max_description_chars: Annotated[int, NoBool, Field(ge=100)] = 10_000
    """The longest tool description an upstream may list; a longer one is cut to this many characters, with a
    warning naming the server and the tool."""
    upstream_max_schema_bytes: Annotated[int, NoBool, Field(ge=1024)] = 100_000
    """The largest input or output schema (as JSON bytes) an upstream tool may have; a tool with a larger one is
    left out, with a warning naming the server and the tool."""
    upstream_max_message_bytes: Annotated[int, NoBool, Field(ge=64 << 10)] = 16 << 20
    """The largest message (a tool result, a page of tools/list) an upstream may send, in bytes, counted while it
    arrives: a larger one is refused before it is read whole, and only the call it answers fails, with an error
    naming this limit. The server carries on: from a stdio server the line is read to its end and dropped, over
    Streamable HTTP that answer is closed unread (an SSE stream is counted per event)."""
    activity_max_bytes: Annotated[int, NoBool, Field(ge=4096)] = 8 << 20
    """The most memory (as JSON bytes) the activity log's buffer of recent events (the web page's activity view)
    may take; the oldest events go first. Client strings in events are clipped too."""
    offload: Annotated[OffloadSettings, BeforeValidator(_offload)] = OffloadSettings()
    """Context offloading of large results (``false`` turns it off). A relative ``folder`` is taken from the
    config file's folder."""

    def usage_store_spec(self) -> str:
        """Where learning keeps its pairs: ``learning.store``, else the session store (``store``, its default file)."""
        return self.learning.store or self.store or str(default_store_path())

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Environment variables win over the config file (given as init arguments)."""
        return (env_settings, init_settings)


class GatewayConfig(BaseModel):
    """A loaded gateway config: upstream servers by name, and the gateway's own settings."""

    model_config = ConfigDict(frozen=True)

    servers: dict[str, ServerConfig]
    """Upstream servers by namespace (derived from the name as written, see `namespace_for`), in file order."""
    labels: dict[str, str] = {}
    """The name as written of each server whose namespace differs from it (namespace → name)."""
    imported: tuple[KeyNote, ...] = ()
    """What became of each key of other systems' tool-search blocks in the file (see `toolscout.compat`)."""
    settings: GatewaySettings = GatewaySettings()
    """The ``toolscout`` section."""
    source: Path | None = None
    """The file this config was read from, if any."""

    def enabled_servers(self) -> dict[str, ServerConfig]:
        """The servers not marked ``disabled``, in file order."""
        return {name: server for name, server in self.servers.items() if not server.disabled}

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, object], *, base_dir: Path | None = None, source: str | None = None
    ) -> GatewayConfig:
        """Validate a decoded config file (see the module docs for the shape).

        Args:
            data: The decoded JSON or TOML document.
            base_dir: Folder that relative paths are resolved against (default: the current one).
            source: The file `data` was read from, named in errors.

        Raises:
            ConfigError: A setting is missing or invalid; `key` is its dotted path.
        """
        base = (base_dir or Path.cwd()).resolve()
        servers_key = "mcpServers" if "mcpServers" in data or "servers" not in data else "servers"
        raw_servers = expand_env(data.get(servers_key), servers_key)
        if not isinstance(raw_servers, dict) or not raw_servers:
            _misspelt(data, ("mcpServers", "servers"), key="")
            raise ConfigError(
                'add at least one server: {"mcpServers": {"name": {"command": ...} or {"url": ...}}}',
                key=servers_key,
            )
        servers: dict[str, ServerConfig] = {}
        names: dict[str, str] = {}
        for name, raw in raw_servers.items():
            key = f"{servers_key}.{name}"
            namespace = _namespace(name, key=key)
            if namespace in servers:
                raise ConfigError(
                    f"gets the namespace {namespace!r}, as server {names[namespace]!r} does: rename one of them",
                    key=key,
                )
            servers[namespace] = _server(raw, key=key, base=base)
            names[namespace] = name
        raw_settings = expand_env(data.get("toolscout", {}), "toolscout")
        if not isinstance(raw_settings, dict):
            raise ConfigError("must be an object (a table in TOML) of gateway settings", key="toolscout")
        imported = translate_config(data, source=source)
        settings = validate_section(
            GatewaySettings,
            imported.merged_with(raw_settings, key="toolscout", source=source),
            "toolscout",
            source=source,
            build=lambda data: GatewaySettings(**dict[str, Any](data)),
        )
        for namespace, name in names.items():
            if settings.separator in namespace:
                raise ConfigError(
                    f"server namespace {namespace!r} contains the separator {settings.separator!r}, so its tool "
                    "names would be ambiguous: rename the server or change toolscout.separator",
                    key=f"{servers_key}.{name}",
                )
        written = {name: namespace for namespace, name in names.items()}
        settings = _resolve_servers(settings, ServerNames(written, separator=settings.separator))
        if settings.store is not None and settings.store != "memory" and "://" not in settings.store:
            settings = settings.model_copy(update={"store": str(base / Path(settings.store).expanduser())})
        learned = settings.learning.store
        if learned is not None and learned != "memory" and "://" not in learned:
            learning = settings.learning.model_copy(update={"store": str(base / Path(learned).expanduser())})
            settings = settings.model_copy(update={"learning": learning})
        if settings.offload.folder is not None and not settings.offload.folder.is_absolute():
            offload = settings.offload.model_copy(update={"folder": base / settings.offload.folder})
            settings = settings.model_copy(update={"offload": offload})
        labels = {namespace: name for namespace, name in names.items() if name != namespace}
        add_secrets(_credentials(servers, settings))
        return cls(servers=servers, labels=labels, settings=settings, imported=imported.notes)


def _resolve_servers(settings: GatewaySettings, names: ServerNames) -> GatewaySettings:
    """Settings with every server reference (scope, tool lists, auth grants) resolved to a namespace."""
    update: dict[str, object] = {
        "scope": names.scope(settings.scope, key="toolscout.scope"),
        "never_defer": names.tool_names(settings.never_defer, key="toolscout.never_defer"),
        "pre_discovered": names.tool_names(settings.pre_discovered, key="toolscout.pre_discovered"),
    }
    if settings.auth is not None:
        rules = {}
        for name, rule in settings.auth.grant_rules():
            key = f"toolscout.auth.{name}"
            resolved = {
                "servers": names.namespaces(rule.servers, key=f"{key}.servers"),
                "tools": names.patterns(rule.tools, key=f"{key}.tools"),
                "deny": names.patterns(rule.deny, key=f"{key}.deny") or (),
            }
            rules[name] = rule.model_copy(update=resolved)
        update["auth"] = settings.auth.with_grant_rules(rules)
    return settings.model_copy(update=update)


def _credentials(servers: Mapping[str, ServerConfig], settings: GatewaySettings) -> list[str]:
    """Values no error or log may show.

    HTTP header values (and the credential after their scheme), bearer tokens, stdio env values under a secret's
    name (`names_a_secret`).
    """
    values = settings.auth.secrets() if settings.auth else []
    for server in servers.values():
        if isinstance(server, HttpServer):
            for header in server.plain_headers().values():
                values += [header, header.partition(" ")[2].strip()]
        else:
            values += [value for name, value in server.plain_env().items() if names_a_secret(name)]
    return values


def load_config(path: str | Path) -> GatewayConfig:
    """Read a gateway config from a JSON, TOML (``.toml``) or YAML (``.yaml``, ``.yml``) file.

    Raises:
        ConfigError: The file cannot be read or parsed, or a setting is invalid.
    """
    file = Path(path)
    data = read_document(file)
    config = GatewayConfig.from_mapping(data, base_dir=file.resolve().parent, source=str(file))
    return config.model_copy(update={"source": file.resolve()})


def _misspelt(data: Mapping[str, object], wanted: tuple[str, ...], *, key: str) -> None:
    """Raise the "did you mean" error for a key of `data` that is a misspelling of a `wanted` one, if any."""
    for written in data:
        close = None if written in wanted else did_you_mean(str(written), wanted)
        if close is not None:
            raise ConfigError(unknown_setting(close, wanted), key=f"{key}.{written}" if key else str(written))


def _namespace(name: object, *, key: str) -> str:
    if not isinstance(name, str) or not name.strip() or not name.isprintable():
        raise ConfigError("a server name must be a non-empty, printable string", key=key)
    return namespace_for(name)


def _server(raw: object, *, key: str, base: Path) -> ServerConfig:
    if not isinstance(raw, dict):
        raise ConfigError('must be an object: {"command": ..., "args": [...]} or {"url": ...}', key=key)
    entry: JsonObject = {k: v for k, v in raw.items() if k not in _IGNORED_SERVER_KEYS}
    kind = entry.pop("type", None)
    if kind == "sse":
        raise ConfigError(
            "the SSE transport is not supported: point 'url' at the server's Streamable HTTP endpoint",
            key=f"{key}.type",
        )
    if kind not in (None, "stdio", "http", "streamable-http", "streamableHttp"):
        raise ConfigError("must be 'stdio' or 'http' (or left out)", key=f"{key}.type")
    has_command, has_url = "command" in entry, "url" in entry
    if has_command == has_url:
        if not has_command:
            _misspelt(entry, ("command", "url"), key=key)
        problem = "has both 'command' and 'url'" if has_command else "has neither 'command' nor 'url'"
        raise ConfigError(
            f"{problem}: give 'command' (and 'args') for a local server, or 'url' for a Streamable HTTP one", key=key
        )
    if has_url:
        return validate_section(HttpServer, entry, key)
    server = validate_section(StdioServer, entry, key)
    cwd = (base / server.cwd).resolve() if server.cwd is not None else None
    command = server.command
    if "/" in command and not Path(command).is_absolute():
        command = str((cwd or base) / command)
    return server.model_copy(update={"cwd": cwd, "command": command})
