"""`ScoutSettings`: every knob of deferral, activation, disclosure and search limits.

One pydantic model, validated once, shared by the library and the gateway (whose ``toolscout``
section is `toolscout.gateway.GatewaySettings`, this model plus the gateway's own keys).
Environment variables ``TOOLSCOUT_<KEY>`` override defaults; arguments given in code win over
them. Every key is listed in ``docs/CONFIGURATION.md``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, SettingsConfigDict

from ._errors import ConfigError
from ._plugins import check_registered
from ._scope import Scope
from ._search_settings import EmbeddingSettings, EngineSettings, RankingSettings, RerankSettings
from ._validation import ENV_PREFIX, Finite, NoBool, Switch, checked_init, read_switch, validate_section

__all__ = [
    "BridgeNames",
    "DeferralMode",
    "LearningSettings",
    "PresearchSettings",
    "ScopeSettings",
    "ScoutSettings",
    "Style",
]

DeferralMode: TypeAlias = Literal["auto", "on", "off"]
"""`auto`: defer when the threshold is reached; `on`: defer whenever something is deferrable; `off`: never."""
Style: TypeAlias = Literal["bridge", "reveal"]
"""`bridge`: tool_search / tool_describe / tool_call; `reveal`: tool_search reveals tools into the array."""

_MODES: dict[object, DeferralMode] = {True: "auto", False: "off"}


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("names must not be blank")
    return value


Name = Annotated[str, AfterValidator(_not_blank)]


_TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")


def _tool_name(value: str) -> str:
    if not _TOOL_NAME.fullmatch(value):
        raise ValueError(
            f"{value!r} is not a tool name every provider accepts: 1-64 letters, digits, '_' or '-', "
            "starting with a letter or '_'"
        )
    return value


ToolName = Annotated[str, AfterValidator(_tool_name)]


def _mode(value: object) -> object:
    return _MODES.get(value, value) if isinstance(value, bool) else value


def _learning(value: object) -> object:
    """``learning: off`` (``on``, a boolean, a switch word) for ``learning: {enabled: ...}``."""
    switch = read_switch(value)
    return {"enabled": switch} if isinstance(switch, bool) else value


class ScopeSettings(BaseModel):
    """The tools every session may use: selected servers and tools.

    mcpagent's ``selectedServers`` / ``selectedTools``; tools outside it are never listed, found,
    described or called.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    servers: tuple[Name, ...] | None = None
    """Servers (namespaces) whose every tool is in scope (null: not restricted by server)."""
    tools: tuple[Name, ...] | None = None
    """Tool names, globs, ``server:tool`` or ``server:*``; a tool matching any is in scope too (the union with
    ``servers``). With neither key set, every tool is in scope."""
    deny: tuple[Name, ...] = ()
    """Tool names, globs or ``server:*`` patterns taken out of scope whatever else matches."""

    def scope(self) -> Scope:
        """The `Scope` these settings describe."""
        return Scope.select(servers=self.servers, tools=self.tools, deny=self.deny)


class LearningSettings(BaseModel):
    """Learning from use: a search and the successful call that followed it, kept as a pair per scope.

    A pair is (request text -> tool name), with its session and time; arguments and results are never stored.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    enabled: Annotated[StrictBool, Switch] = True
    """Record pairs and rank with them (the ``learned`` search stage); off: nothing is recorded or read. On by
    default: pairs stay in this scout's or gateway's own store (``store``), per scope, within the bounds below, and
    ``toolscout usage list|export|forget`` shows and removes them. On a seeded 50/50 replay
    (``bench/learning_replay.py``) hybrid R@1 gains 0.059 on BFCL tuning and 0.012 on BFCL live, while BFCL live
    requests whose tool never appeared in the history lose 0.010 (lexical 0.019: same-function tools under other
    names, learned from the history, rank above theirs); a learned search costs about 1.5x an unlearned one at
    10,000 pairs (0.13 ms, ``bench/learning_cost.py``)."""
    scope: Name = "default"
    """The learning scope of this scout's pairs; one scope never sees another's. The gateway uses each token's
    grant label instead."""
    store: str | None = None
    """Where pairs are kept: ``memory``, a file path (SQLite), ``sqlite:///path`` or ``redis://...`` (null: the
    session store's spec; in memory in the library)."""
    max_pairs_per_scope: Annotated[int, NoBool, Field(ge=1)] = 10_000
    """Pairs a scope holds; past it the scope's oldest pair goes (never another scope's)."""
    max_pairs_per_tool: Annotated[int, NoBool, Field(ge=1)] = 500
    """Pairs one tool holds in a scope; past it that tool's oldest pair in the scope goes."""
    ttl_days: Annotated[float, Finite, Field(gt=0)] = 90.0
    """Days a pair is kept after it was recorded."""
    max_request_bytes: Annotated[int, NoBool, Field(ge=16)] = 512
    """Bytes of a request's text kept (UTF-8, clipped at a character boundary)."""
    window_s: Annotated[float, Finite, Field(gt=0)] = 300.0
    """Seconds a session's search stays creditable by a later successful call."""
    min_sessions: Annotated[int, NoBool, Field(ge=1)] = 1
    """Distinct sessions that must have voted for a tool (near requests that led to it) before their votes count
    for other sessions; a session's own always count. 1 fits one user (the library, a gateway without
    authentication on loopback); a gateway shared by several people should set 2 or more, so no one session
    moves another's ranking."""
    min_similarity: Annotated[float, Finite, Field(gt=0, le=1)] = 0.75
    """How alike a past request must be (cosine of their search terms, or of their embeddings in a hybrid search)
    before a search the engine abstained on answers with the tool it led to. Every other search weighs near past
    requests by the fitted learned score (``learning/ranking.json``, ``bench/learning_fit.py``)."""
    auto_pin_max_tools: Annotated[int, NoBool, Field(ge=0)] = 3
    """Auto-pin: at most this many tools a scope keeps calling are listed from the first turn of its sessions,
    as pinned tools are, without a search (0: auto-pin off). Explicitly pinned and core tools count against
    nothing here and are never listed twice. The token budgets below bind first on most catalogs."""
    auto_pin_max_tokens: Annotated[int, NoBool, Field(ge=0)] = 1_000
    """Auto-pin: the auto-pinned tools' definitions take at most this many tokens together (a tool that would
    pass it or ``auto_pin_max_turn_share`` is skipped, a smaller one after it may still fit)."""
    auto_pin_max_turn_share: Annotated[float, Finite, Field(ge=0, le=10)] = 0.1
    """Auto-pin: the auto-pinned tools add at most this share to the tokens of the session's first turn without
    them (its tools array and guidance), so the first turn never grows by more than that. 0.1 is issue 40's bar
    (first-turn tokens up at most 10 %); on the everyday catalog's replayed logs (``bench/autopin.py``: a first
    turn of about 1,000 tokens) it fits the most used tool and cut searches per successful call by 16-19 % where
    use falls as Zipf 1.0 over the tools and 32-39 % under Zipf 1.5 (tokens +9 %); 0.2 fitted no second tool,
    and 0.3 gave 22-26 % under Zipf 1.0 for +21 % tokens."""
    auto_pin_min_share: Annotated[float, Finite, Field(gt=0, le=1)] = 0.25
    """Auto-pin: a tool is auto-pinned while at least this share of the scope's recent sessions (those that
    called a tool, ``auto_pin_window_sessions``) called it; it leaves when its share falls below."""
    auto_pin_window_sessions: Annotated[int, NoBool, Field(ge=1)] = 50
    """Auto-pin: how many of the scope's latest sessions that called a tool are "recent" (on the bench's log
    where the most used tool drops to rank 8 half-way, it left within the window and the set changed twice in
    400 sessions; it changed once, when the tool joined, where use holds)."""
    auto_pin_min_sessions: Annotated[int, NoBool, Field(ge=1)] = 3
    """Auto-pin: distinct recent sessions that must have called a tool before it is auto-pinned (the larger of
    this and ``min_sessions``), so one session never auto-pins a tool for others."""


class BridgeNames(BaseModel):
    """The names the model sees for the bridge tools (mcpagent's: ``search_tools``, ``add_tool``).

    Every text the model reads names the tools by these names. A catalog tool whose name is one of
    them keeps working under a new name (see ``ToolScout.renamed``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    search: ToolName = "tool_search"
    """Finds tools by keywords, loads them by exact name (``names``), and browses the catalog (empty query)."""
    describe: ToolName = "tool_describe"
    """Bridge style: loads the parameter schemas of tools by exact name."""
    call: ToolName = "tool_call"
    """Bridge style: runs a found tool with arguments."""

    @model_validator(mode="after")
    def _distinct(self) -> BridgeNames:
        if len(set(self.all)) < 3:
            raise ValueError(f"the three names must differ, got {', '.join(self.all)}")
        return self

    @property
    def all(self) -> tuple[str, str, str]:
        """The three names: search, describe, call."""
        return (self.search, self.describe, self.call)


class PresearchSettings(BaseModel):
    """Pre-search: search the user's message before the model is called and offer the hits sure to hold the tool.

    The search is the one ``tool_search`` runs (same scope, engine and confidences). A fitted model estimates,
    for the first 1 to 5 hits, the chance that the right tool is among them; the smallest such set whose chance
    reaches ``min_confidence`` is sent in full for that turn only (reveal: in the tool list; bridge: listed beside
    the bridge tools, as pre-discovered tools are), and the guidance names it in one line: a sure single hit is
    offered alone, an answer spread over several weak hits offers nothing. Nothing is offered when the search
    abstains or no set is sure enough; the model can still search.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    enabled: Annotated[StrictBool, Switch] = False
    """Search the user's message (when the host passes one) before each model call. Off by default: it can
    hurt: on BFCL's live requests (held out) the default settings offer the right tool to 55 % of requests, with
    only wrong tools offered in 7.6 % of turns (``bench/presearch.py``), short of 60 % within 8 %."""
    max_tools: Annotated[int, NoBool, Field(ge=1, le=20)] = 5
    """The most tools one turn's pre-search offers (the chance is fitted for sets of up to 5 hits). Chosen with
    ``min_confidence`` on the tuning sets alone (``bench/results/presearch_margin.md``): of 3, 4 or 5, the one
    whose lowest passing setting offers the right tool most often there."""
    min_confidence: Annotated[float, Finite, Field(ge=0, le=1)] = 0.84
    """The least chance that the right tool is among the tools offered (the offer's fitted, set-level chance,
    not one hit's confidence): the lowest setting of 0.20-0.95 (by 0.01) at which the one-sided 95 % upper bound
    of the share of turns with only wrong tools offered stays within 8 % on BFCL's tuning requests (0.067, bound
    0.079) and the tooldata dev split (0.019, bound 0.032) (``bench/presearch_fit.py --wilson``)."""
    max_tokens: Annotated[int, NoBool, Field(ge=0)] = 600
    """Token budget of the tools one turn's pre-search adds (a tool that would pass it is left out)."""


class ScoutSettings(BaseSettings, RankingSettings):
    """Settings for one `ToolScout`. Build from a config mapping with `from_mapping`.

    The ranking keys (the engine's ``search_top_band`` and ``search_expanders``, the ``confidence`` stage's
    ``search_calibrator`` and ``search_min_confidence``) are declared on `RankingSettings`, which this model extends.
    """

    model_config = SettingsConfigDict(
        frozen=True,
        extra="forbid",
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        use_attribute_docstrings=True,
        populate_by_name=True,
    )

    if not TYPE_CHECKING:  # type checkers keep pydantic's typed signature

        def __init__(self, **values: Any) -> None:
            """Validate `values` (and ``TOOLSCOUT_*`` variables).

            Raises:
                ConfigError: The first invalid key (a misspelt one with the key meant), what is wrong and its limit.
            """
            checked_init(lambda: super(ScoutSettings, self).__init__(**values), type(self), "")

    mode: Annotated[DeferralMode, BeforeValidator(_mode)] = "auto"
    """When tools are deferred: ``auto`` (past the threshold), ``on`` (always), ``off`` (never); ``true`` means
    auto, ``false`` off."""
    style: Style = "bridge"
    """How deferred tools reach the model: ``bridge`` (tool_search / tool_describe / tool_call) or ``reveal``
    (tool_search adds the tools it finds to the tool list)."""
    reveal_stubs: Annotated[StrictBool, Switch] = False
    """Reveal style: send not-yet-revealed tools as name + description stubs; tool_search loads a stub's full
    schema, which it carries from the next turn on. A stub called before that is checked against its real schema."""
    reveal_call_tool: Annotated[StrictBool, Switch] = False
    """Reveal style: also list the call tool (``bridge_names.call``), so a client that keeps its first tool list
    (or whose requests carry no session) can still run a tool the search found. Off in the library, whose host
    re-reads the tools before every request; on in the gateway."""
    threshold_pct: Annotated[float, Finite, Field(ge=0, le=100)] | None = 10.0
    """``auto``: defer once the deferrable schemas reach this share (percent) of the model's context window
    (null: their size never decides)."""
    threshold_tools: Annotated[int, NoBool, Field(ge=1)] | None = 30
    """``auto``: also defer once this many tools are deferrable (null: the count never decides)."""
    fallback_threshold_tokens: Annotated[int, NoBool, Field(ge=0)] = 20_000
    """``auto``: the token threshold when the model's context window is unknown (unused when ``threshold_pct``
    is null)."""
    model: str | None = None
    """The model in use; its context window feeds the ``auto`` threshold."""
    context_window: Annotated[int, NoBool, Field(gt=0)] | None = None
    """The model's context window in tokens (overrides the built-in table)."""
    never_defer: tuple[Name, ...] = Field(default=(), validation_alias=AliasChoices("never_defer", "pinned"))
    """Tool names or globs (``time__*``) always sent in full, never deferred (``pinned`` is the same key)."""
    pre_discovered: tuple[Name, ...] = ()
    """Tools available from the first turn without a search (sent after the bridge tools)."""
    presearch: PresearchSettings = PresearchSettings()
    """Search the user's message before the model is called and offer the confident hits (see the ``presearch``
    keys)."""
    scope: ScopeSettings = ScopeSettings()
    """The servers and tools every session may use (each session's own scope narrows it further)."""
    bridge_names: BridgeNames = BridgeNames()
    """The names of the bridge tools (``search``, ``describe``, ``call``): valid tool names for every provider,
    all different. A catalog tool with one of these names is offered as ``<name>_2``."""
    search_max_limit: Annotated[int, NoBool, Field(ge=1, le=100)] = 20
    """The most hits the model may ask one search for."""
    search_default_limit: Annotated[int, NoBool, Field(ge=1, le=100)] = 5
    """Hits a search returns when the model gives no limit (at most ``search_max_limit``)."""
    search_max_reveal: Annotated[int, NoBool, Field(ge=1, le=100)] = 8
    """Reveal style: the most tools one search adds to the tool list; its other hits are listed without their
    schema (how many it lists is the search limit)."""
    listing_budget_tokens: Annotated[int, NoBool, Field(ge=0)] = 800
    """Token budget of the catalog listing in the guidance (0 turns the listing off)."""
    search_listing_tokens: Annotated[int, NoBool, Field(ge=0)] = 0
    """Token budget of a catalog listing appended to the search tool's description, for hosts whose framework
    drops the guidance (most MCP clients ignore a server's ``instructions``): what exists travels with the tool
    that finds it, byte-stable while the catalog is unchanged. 0: none (the library's host sends the guidance
    itself); the gateway's default is 150."""
    description_chars: Annotated[int, NoBool, Field(ge=40)] = 300
    """Search results cut tool descriptions to this many characters, at a word boundary."""
    describe_chars: Annotated[int, NoBool, Field(ge=100)] = 10_000
    """Loads by name (``tool_describe``) cut a tool's description to this many characters, at a word boundary."""
    max_query_chars: Annotated[int, NoBool, Field(ge=16)] = 2_000
    """The longest search query the model may send; a longer one is refused, never searched."""
    max_name_chars: Annotated[int, NoBool, Field(ge=16)] = 256
    """The longest tool name the model may send (in a call, ``tool_call``, ``tool_describe`` or ``tool_search``)."""
    max_names_per_call: Annotated[int, NoBool, Field(ge=1, le=100)] = 10
    """The most tools one load by name (``tool_describe``, or ``tool_search`` with ``names``) may name."""
    max_argument_bytes: Annotated[int, NoBool, Field(ge=1024)] = 1 << 20
    """The largest arguments payload (as JSON bytes) of one call; a larger one is refused unread."""
    search_mode: str = "auto"
    """The engine behind tool_search: ``hybrid`` (keywords fused with embeddings, computed in the background;
    lexical until they are ready), ``lexical``, ``auto`` (hybrid when an embedding backend is installed), or
    another registered engine (``register_engine``)."""
    search_engines: EngineSettings = EngineSettings()
    """The settings of engines registered with a settings model, by engine name (``search_engines:
    {my-engine: {...}}``); each section is validated by its engine's model, and the engine ``search_mode``
    picks is built with its own (its model's defaults when it has none here)."""
    search_split_requests: bool = True
    """Search each sentence of a compound request ("Find the GCD of 36 and 48. Then book a table in Rome.") on
    its own too, adding each sentence's confident best tool right after the whole request's best hit, so one
    task's near-duplicate tools do not crowd out the others."""
    search_rerank: RerankSettings = RerankSettings()
    """The reranker over each search's top hits (see the ``search_rerank`` keys; none by default)."""
    embeddings: EmbeddingSettings = EmbeddingSettings()
    """The embedding backend of hybrid search (see the ``embeddings`` keys)."""
    learning: Annotated[LearningSettings, BeforeValidator(_learning)] = LearningSettings()
    """Learning from use: which searches led to which successful calls (see the ``learning`` keys; on).
    ``learning: off`` (or ``on``) is short for ``learning: {enabled: false}``."""
    tracing: Annotated[StrictBool, Switch] = False
    """Emit an OpenTelemetry span per search, load and tool call (in the gateway, per upstream call too) to the
    global tracer provider: names, counts and error codes, argument values only when the activity log keeps them.
    Spans go nowhere until an OpenTelemetry SDK is set up (``toolscout[otel]``; the gateway sets one up from
    ``OTEL_TRACES_EXPORTER``)."""

    @field_validator("search_mode")
    @classmethod
    def _registered_engine(cls, value: str) -> str:
        return check_registered("search_mode", value, what="search mode", also=("auto",))

    @field_validator("search_default_limit")
    @classmethod
    def _default_within_max(cls, value: int, info: ValidationInfo) -> int:
        maximum = info.data.get("search_max_limit")
        if isinstance(maximum, int) and value > maximum:
            raise ValueError(f"must be at most search_max_limit ({maximum})")
        return value

    @classmethod
    def from_mapping(cls, config: Mapping[str, object] | bool | None, *, prefix: str = "tool_search") -> ScoutSettings:
        """Read settings from a config mapping (e.g. a parsed TOML/JSON section).

        A bare ``true`` means ``mode = "auto"`` and ``false`` means ``mode = "off"``; ``None``
        gives the defaults.

        Raises:
            ConfigError: An unknown key or a value of the wrong type; the key is named.
        """
        if config is None or isinstance(config, bool):
            return cls() if config is None else cls(mode=_MODES[config])
        if not isinstance(config, Mapping):
            raise ConfigError(f"must be a table/object or true/false, got {type(config).__name__}", key=prefix)
        return validate_section(cls, config, prefix, build=lambda data: cls(**dict[str, Any](data)))
