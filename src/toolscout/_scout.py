"""`ToolScout`: the one object an agent loop talks to, and its per-session view `ScoutSession`."""

from __future__ import annotations

import dataclasses
import inspect
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import anyio
import anyio.to_thread

from ._errors import ConfigError
from ._plugins import load_plugins
from ._presearch import OFFER_DEPTH, presearch_queries, presearched
from ._scope import Scope
from ._settings import ScoutSettings
from ._tokens import TokenCounter, default_token_counter, tool_tokens
from ._types import DeferPolicy
from .catalog import Catalog, ToolSpec, tool_from_callable
from .catalog._internal import iter_tool_specs
from .data import sample_catalog_path
from .disclosure import Assembly, TurnPlan
from .disclosure._internal import assemble, deconflict, plan_turn, plans_alike
from .dispatch import AfterCall, BeforeCall, BridgeAnswer, Handler, ToolCall, ToolOutcome
from .dispatch._internal import AnswerContext, Resolution, resolve_call, run_resolution
from .learning import UsageStore
from .learning._internal import AutoPins, LearnedRanking, UsageRecorder, learned_search
from .search import IndexBuilder, SearchIndex, SearchMode, SearchPipeline, SearchStatus
from .search._internal import HybridIndex, IndexCache, resolve_search_mode
from .session import DiscoveryStore, MemoryStore

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from .observe import ActivityLog
    from .observe._internal import Tracing
    from .offload import Offloader

__all__ = ["ScoutSession", "ToolScout"]

logger = logging.getLogger(__name__)

_PLAN_CACHE_SIZE = 64
_MAX_PRESEARCHES = 256
"""Pre-search offers remembered (per session, message and listed tools), so a turn assembled twice searches once."""


class ToolScout:
    """Carry a large tool catalog while the model sees a handful of tools.

    Give it the live tool list (definitions in any supported shape, `ToolSpec` records, or
    plain Python functions, which also become handlers; or a catalog file's path, ``"sample"``
    naming the sample catalog as the command line does), the names of your core tools, and
    settings. Then, per session and turn, `session(id).assemble()` gives the tools array and
    guidance to send, and `session(id).dispatch(name, arguments)` handles each tool call.

    The catalog is whatever the latest `set_tools` gave; heavy structures (the search index,
    token counts) are cached by catalog fingerprint, never by session. A tool named like a bridge
    tool (``settings.bridge_names``) is renamed ``<name>_2`` (see `renamed`); its handler or the
    executor still gets the call under the tool's own name.
    """

    def __init__(
        self,
        tools: Iterable[object] | Catalog | str | os.PathLike[str] = (),
        *,
        core: Iterable[str] = (),
        settings: ScoutSettings | None = None,
        store: DiscoveryStore | None = None,
        handlers: Mapping[str, Handler] | None = None,
        executor: Handler | None = None,
        before_call: Sequence[BeforeCall] = (),
        after_call: Sequence[AfterCall] = (),
        index_builder: IndexBuilder | None = None,
        token_counter: TokenCounter | None = None,
        context_windows: Mapping[str, int] | None = None,
        offload: Offloader | None = None,
        activity: ActivityLog | None = None,
        usage_store: UsageStore | None = None,
    ) -> None:
        """Create a ToolScout.

        Args:
            tools: The tool list: definitions in any shape, `ToolSpec`s, functions, a `Catalog`, or the
                path of a catalog file (``"sample"``: the packaged sample catalog, unless a file has that name).
            core: Names of core tools: always sent in full, never deferred, never run through the bridge.
            settings: Deferral, disclosure and search settings (defaults: auto mode, bridge style).
            store: Where discoveries are kept per session (default: in memory).
            handlers: Per-tool handlers, called with the resolved `ToolCall`.
            executor: Handler for tools without their own (e.g. a proxy to an MCP server).
            before_call: Hooks run before a real tool runs; returning a string refuses the call.
            after_call: Hooks run after every call, with its `ToolOutcome`.
            index_builder: Builds the engine's index for a catalog (default: the engine `search_mode` names); the
                search pipeline (`SearchPipeline`: exact names, sentence parts, the reranker) runs around it.
            token_counter: Token estimate for activation and listing (default: `default_token_counter()`).
            context_windows: Overrides of the built-in model → context-window table.
            offload: Context offloading: large results become handles, and the offload tools are
                listed after the core tools (see `toolscout.offload.Offloader`).
            activity: Record every dispatched call (searches, loads, calls, refusals) in this log
                (see `toolscout.observe.ActivityLog`). With ``tracing`` on, spans carry argument
                values only when this log keeps them.
            usage_store: Where learned pairs go when ``settings.learning.enabled`` (default: the store
                ``learning.store`` names; in memory when unset).

        Raises:
            CatalogError: A tool definition is malformed or two tools share a name.
            ConfigError: ``tracing`` is on and OpenTelemetry is not installed.
            ConfigError: A bridge tool is named like an offload tool.
        """
        load_plugins()
        self._settings = settings or ScoutSettings()
        if offload is not None and offload.names.intersection(self._settings.bridge_names.all):
            raise ConfigError(
                f"the offload tools are named {', '.join(sorted(offload.names))}: give the bridge tools other names",
                key="bridge_names",
            )
        self._scope = self._settings.scope.scope()
        self._store: DiscoveryStore = store if store is not None else MemoryStore()
        self._core = frozenset(core)
        self._counter = token_counter or default_token_counter()
        self._handlers: dict[str, Handler] = dict(handlers or {})
        self._executor = executor
        self._before = tuple(before_call)
        self._after = tuple(after_call)
        self._context_windows = dict(context_windows) if context_windows else None
        self._offload = offload
        self._activity = activity
        self._tracing = _tracing(self._settings, activity)
        learning = self._settings.learning
        self._usage = UsageRecorder.from_settings(learning, store=usage_store) if learning.enabled else None
        usage = self._usage
        self._learned = None if usage is None else LearnedRanking(usage.store, learning, health=usage.health)
        pinning = usage is not None and learning.auto_pin_max_tools > 0
        self._auto_pins = AutoPins(usage.store, learning, health=usage.health) if pinning and usage else None
        self._indexes = IndexCache(index_builder or SearchPipeline.engine(self._settings, background=True))
        self._pipeline = SearchPipeline.from_settings(self._settings)
        self._staged: tuple[SearchIndex, Catalog, SearchIndex] | None = None
        self._own: tuple[tuple[ToolSpec, ...], dict[str, ToolSpec]] | None = None
        self._last_plan: tuple[Catalog, Scope | None, TurnPlan] | None = None
        disclosure = self._settings
        self._loaded_key = ("loaded", disclosure.style, disclosure.reveal_stubs, disclosure.pre_discovered)
        """The key of what a session with nothing of its own lists (`ScoutSession._listed`): its settings."""
        self._plans: OrderedDict[tuple[str, Scope, frozenset[str]], TurnPlan] = OrderedDict()
        self._presearches: OrderedDict[tuple[object, ...], tuple[Catalog, tuple[str, ...]]] = OrderedDict()
        self._lock = threading.Lock()
        self._catalog = Catalog()
        self._renamed: Mapping[str, str] = {}
        self.set_tools(tools)

    def _presearched(
        self, key: tuple[object, ...], catalog: Catalog, search: Callable[[], tuple[str, ...]]
    ) -> tuple[str, ...]:
        """`search`'s offer for `key` over `catalog`, remembered.

        A host that assembles one turn twice (its instructions, then its tools) searches the user's message once.
        """
        with self._lock:
            held = self._presearches.get(key)
            if held is not None and held[0] is catalog:
                self._presearches.move_to_end(key)
                return held[1]
        found = search()
        with self._lock:
            self._presearches[key] = (catalog, found)
            while len(self._presearches) > _MAX_PRESEARCHES:
                self._presearches.popitem(last=False)
        return found

    @property
    def catalog(self) -> Catalog:
        """The live catalog."""
        return self._catalog

    @property
    def renamed(self) -> Mapping[str, str]:
        """Catalog tools renamed because a bridge tool has their name: the name the model sees → the tool's own."""
        return self._renamed

    @property
    def settings(self) -> ScoutSettings:
        """The settings this scout was built with (use `replace` for other settings)."""
        return self._settings

    @property
    def core(self) -> frozenset[str]:
        """Names of the core tools."""
        return self._core

    @property
    def store(self) -> DiscoveryStore:
        """Where each session's discoveries are kept."""
        return self._store

    @property
    def counter(self) -> TokenCounter:
        """The token counter used for activation and the listing."""
        return self._counter

    @property
    def offload(self) -> Offloader | None:
        """Context offloading, when configured."""
        return self._offload

    @property
    def activity(self) -> ActivityLog | None:
        """The activity log every dispatched call is recorded in, if any."""
        return self._activity

    @property
    def usage(self) -> UsageRecorder | None:
        """The recorder of learned pairs (search request -> tool then called), when learning is on."""
        return self._usage

    @property
    def auto_pins(self) -> AutoPins | None:
        """What each learning scope lists without a search (learning on, ``learning.auto_pin_max_tools`` > 0)."""
        return self._auto_pins

    @property
    def search_mode(self) -> SearchMode:
        """The mode ``tool_search`` runs in now: ``hybrid`` once the live catalog's embeddings are ready."""
        return self.search_status().mode

    def search_status(self) -> SearchStatus:
        """What ``tool_search`` runs on now, for the live catalog (never builds anything)."""
        index = self._indexes.peek(self._catalog)
        if isinstance(index, HybridIndex):
            return index.status
        if index is None and resolve_search_mode(self._settings.search_mode, self._settings.embeddings) == "hybrid":
            return SearchStatus(mode="lexical", state="pending", embedder=None)
        return SearchStatus(mode="lexical", state="off", embedder=None)

    @property
    def before_call(self) -> tuple[BeforeCall, ...]:
        """Hooks run before a real tool runs."""
        return self._before

    @property
    def after_call(self) -> tuple[AfterCall, ...]:
        """Hooks run after every dispatched call."""
        return self._after

    def replace(self, *, settings: ScoutSettings | None = None, core: Iterable[str] | None = None) -> ToolScout:
        """A new scout with other settings or core tools, sharing this one's catalog, handlers, store and hooks.

        Configuration is fixed at construction so cached plans can never go stale; this is the way
        to change it. The search index cache is shared (it depends on the catalog only).
        """
        other = ToolScout(
            self._own_catalog(),
            core=self._core if core is None else core,
            settings=settings or self._settings,
            store=self._store,
            handlers=self._handlers,
            executor=self._executor,
            before_call=self._before,
            after_call=self._after,
            token_counter=self._counter,
            context_windows=self._context_windows,
            offload=self._offload,
            activity=self._activity,
            usage_store=self._usage.store if self._usage is not None else None,
        )
        if SearchPipeline.same_engine(other.settings, self._settings):
            other._indexes = self._indexes
        if plans_alike(other.settings, self._settings) and other._context_windows == self._context_windows:
            # Plans are keyed by catalog, scope and core, and the rest of what they depend on is equal:
            # a page or a benchmark rendering every style plans each catalog once.
            other._plans, other._lock = self._plans, self._lock
        return other

    def set_tools(self, tools: Iterable[object] | Catalog | str | os.PathLike[str]) -> Catalog:
        """Replace the live tool list (functions in it become handlers). Returns the new catalog.

        A string or path names a catalog file (``"sample"``: the packaged sample catalog, unless a
        file has that name). A tool named like a bridge tool is renamed (see `renamed`), with a warning.

        Raises:
            CatalogError: A tool definition is malformed, two tools share a name, or a catalog file cannot be read.
        """
        if isinstance(tools, str | os.PathLike):
            tools = Catalog.from_file(_catalog_file(tools))
        if isinstance(tools, Catalog):
            self._catalog = self._without_own_tools(tools)
            return self._catalog
        specs: list[ToolSpec] = []
        handlers: dict[str, Handler] = {}
        for index, item in enumerate(tools):
            if isinstance(item, ToolSpec):
                specs.append(item)
            elif callable(item) and not isinstance(item, type):
                spec = tool_from_callable(item)
                handlers[spec.name] = _call_with_arguments(item)
                specs.append(spec)
            else:
                specs.extend(iter_tool_specs(item, position=f"tools[{index}]"))
        catalog = self._without_own_tools(Catalog(specs))
        self._handlers.update(handlers)
        self._catalog = catalog
        return catalog

    def add_function(
        self,
        func: Callable[..., object],
        *,
        name: str | None = None,
        namespace: str | None = None,
        defer: DeferPolicy = "auto",
        core: bool = False,
    ) -> ToolSpec:
        """Add a Python function as a tool (schema from its type hints) with itself as handler.

        Raises:
            CatalogError: The function cannot be described, or its name is taken.
        """
        spec = tool_from_callable(func, name=name, namespace=namespace, defer=defer)
        self._catalog = self._without_own_tools(Catalog([*self._own_catalog(), spec]))
        self._handlers[spec.name] = _call_with_arguments(func)
        shown = next((new for new, old in self._renamed.items() if old == spec.name), spec.name)
        if core:
            self._core = self._core | {shown}
        return self._catalog[shown]

    def session(
        self,
        session_id: str,
        *,
        scope: Scope | None = None,
        learning_scope: str | None = None,
        learning_session: str | None = None,
        learning_sessionless: bool = False,
    ) -> ScoutSession:
        """A view of one session: its discoveries and, optionally, the tools it may use.

        `scope` narrows the settings' ``scope`` (it never widens it). With learning on, its pairs go to
        `learning_scope` (default: ``learning.scope``), its calls credited to the searches made under
        `learning_session` (default: `session_id`; the gateway gives a stateless request its principal's, and
        `learning_sessionless`: several agents may share it, see `UsageRecorder`).
        """
        return ScoutSession(
            self,
            session_id,
            scope or Scope(),
            learning_scope=learning_scope,
            learning_session=learning_session,
            learning_sessionless=learning_sessionless,
        )

    def index(self, catalog: Catalog | None = None) -> SearchIndex:
        """The search index of `catalog`, by default the live one (built once per catalog fingerprint)."""
        return self._indexes.get(self._catalog if catalog is None else catalog)

    def searcher(self, catalog: Catalog | None = None) -> SearchIndex:
        """What ``tool_search`` searches: `catalog`'s index (default: the live one) inside the search pipeline."""
        catalog = self._catalog if catalog is None else catalog
        return self._around(self.index(catalog), catalog)

    def _own_tools(self) -> Mapping[str, ToolSpec] | None:
        """The offload tools by name (None without offload), the map kept while the offloader lists the same ones."""
        if self._offload is None:
            return None
        tools = self._offload.tools
        held = self._own
        if held is None or held[0] is not tools:
            held = self._own = (tools, {tool.name: tool for tool in tools})
        return held[1]

    def _around(self, index: SearchIndex, catalog: Catalog) -> SearchIndex:
        """`index` inside the search pipeline; the wrapper (it holds no state) is kept for the latest index."""
        held = self._staged
        if held is not None and held[0] is index and held[1] is catalog:
            return held[2]
        staged = self._pipeline.around(index, catalog)
        self._staged = (index, catalog, staged)
        return staged

    def wait_for_embeddings(self, timeout: float | None = None) -> bool:
        """Index the live catalog and wait until its embeddings are computed (or failed); False on timeout.

        Searches never need this (they run lexically until then); a batch job or benchmark that
        wants every query hybrid calls it first. Returns True at once when search is lexical.
        """
        index = self.index()
        return index.wait(timeout) if isinstance(index, HybridIndex) else True

    def plan(self, scope: Scope | None = None, *, catalog: Catalog | None = None) -> TurnPlan:
        """Classify `catalog` (default: the live one) for one turn (cached per catalog fingerprint, scope and core).

        The plan covers the tools both the settings' ``scope`` and `scope` let through. Pass the
        same `catalog` to `plan` and `searcher` when both must agree while the live one may change.
        """
        catalog = self._catalog if catalog is None else catalog
        last = self._last_plan  # the latest plan, for the same catalog and scope objects: no key to hash
        if last is not None and last[0] is catalog and last[1] is scope:
            return last[2]
        plan = self._plan(scope, catalog)
        self._last_plan = (catalog, scope, plan)
        return plan

    def _plan(self, given: Scope | None, catalog: Catalog) -> TurnPlan:
        scope = self._scope.narrowed(given or Scope())
        core = self._core
        key = (catalog.fingerprint, scope, core)
        with self._lock:
            cached = self._plans.get(key)
            if cached is not None:
                self._plans.move_to_end(key)
                return cached
        plan = plan_turn(
            catalog,
            core=core,
            settings=self.settings,
            counter=self.counter,
            scope=scope,
            context_overrides=self._context_windows,
        )
        with self._lock:
            self._plans[key] = plan
            while len(self._plans) > _PLAN_CACHE_SIZE:
                self._plans.popitem(last=False)
        return plan

    def handler_for(self, name: str) -> Handler | None:
        """The handler that runs `name` (its own, else the executor); a renamed tool's gets its own name."""
        if self.offload is not None and name in self.offload.names:
            return self.offload.handle
        own = self._renamed.get(name)
        if own is None:
            return self._handlers.get(name, self._executor)
        handler = self._handlers.get(own, self._executor)
        return None if handler is None else _under_own_name(handler, own)

    def close(self) -> None:
        """Close the discovery store (and the offload and usage stores)."""
        self.store.close()
        if self.offload is not None:
            self.offload.close()
        if self._usage is not None:
            self._usage.close()

    def _without_own_tools(self, catalog: Catalog) -> Catalog:
        """`catalog` without toolscout's own tools, tools named like a bridge tool renamed (and reported)."""
        catalog = catalog if self.offload is None else self.offload.check_catalog(catalog)
        result = deconflict(catalog, self._settings.bridge_names)
        for new, old in result.renamed.items():
            if self._renamed.get(new) != old:
                logger.warning("tool %r has a bridge tool's name; the model sees it as %r", old, new)
        self._renamed = result.renamed
        return result.catalog

    def _own_catalog(self) -> Catalog:
        """The live catalog with renamed tools under their own names again (to rename afresh)."""
        if not self._renamed:
            return self._catalog
        own = self._renamed
        return Catalog(
            dataclasses.replace(tool, name=own[tool.name]) if tool.name in own else tool for tool in self._catalog
        )


class ScoutSession:
    """One session's view of a `ToolScout`. Cheap to create; all state lives in the store."""

    def __init__(
        self,
        scout: ToolScout,
        session_id: str,
        scope: Scope,
        user_messages: Sequence[str] = (),
        *,
        learning_scope: str | None = None,
        learning_session: str | None = None,
        learning_sessionless: bool = False,
    ) -> None:
        """Use `ToolScout.session` to create one."""
        self.scout = scout
        self.session_id = session_id
        self.scope = scope
        self.learning_scope = learning_scope
        self.learning_session = learning_session or session_id
        self.learning_sessionless = learning_sessionless
        self.user_messages = tuple(user_messages)
        """The user's turns every `assemble` without a message pre-searches (the last; see `with_user_messages`)."""

    def with_user_messages(self, messages: Sequence[str]) -> ScoutSession:
        """This session, its turns pre-searched from the user's `messages` (oldest first, the latest last).

        For hosts that assemble through another layer (a provider's ``render``, a framework adapter):
        every `assemble` without a message of its own reads these (see ``presearch``).
        """
        return ScoutSession(
            self.scout,
            self.session_id,
            self.scope,
            messages,
            learning_scope=self.learning_scope,
            learning_session=self.learning_session,
            learning_sessionless=self.learning_sessionless,
        )

    @property
    def discovered(self) -> tuple[str, ...]:
        """Tools this session has discovered, in order."""
        return self.scout.store.discovered(self.session_id)

    def assemble(self, user_message: str | None = None, *, earlier_messages: Sequence[str] = ()) -> Assembly:
        """The tools array and guidance to send this turn (decided afresh from the live catalog).

        Only the reveal style sends discovered tools, so only it reads the store. With ``presearch``
        enabled, `user_message` (the user's latest turn) is searched as ``tool_search`` would search
        it, and the confident hits are sent in full for this turn only (`Assembly.presearched`), named
        in the guidance. When the message is a short follow-up that refers back ("now do the same for
        Oslo") and its search is confident in nothing, the user's turn it refers to is searched
        (`earlier_messages`: the user's earlier turns, oldest first). Pre-searched tools are
        never stored as discoveries: one the next turn's search does not find again is not sent again.
        Without `user_message`, the session's `user_messages` are read.
        """
        if user_message is None and self.user_messages:
            user_message, earlier_messages = self.user_messages[-1], self.user_messages[:-1]
        scout = self.scout
        catalog = scout.catalog
        plan = scout.plan(self.scope, catalog=catalog)
        settings = scout.settings.presearch
        if not settings.enabled or user_message is None or not plan.activation.active:
            return self._assemble(plan)
        search = scout.settings.bridge_names.search
        listed = self._listed(plan)
        key = (self.session_id, self._learning_scope, self.scope, user_message, tuple(earlier_messages), listed)
        found = scout._presearched(
            key,
            catalog,
            lambda: presearched(
                presearch_queries(user_message, earlier_messages, scout.settings),
                lambda query: self._resolve_in(plan, catalog, search, {"query": query, "limit": OFFER_DEPTH + 1}),
                plan=plan,
                listed=listed,
                settings=settings,
                counter=scout.counter,
                mode=scout.search_mode,
            ),
        )
        return self._assemble(plan, found)

    def _assemble(self, plan: TurnPlan, presearched: Sequence[str] = ()) -> Assembly:
        return self._assembled(plan, self._shown(), self._auto_pinned(plan), presearched)

    def _assembled(
        self, plan: TurnPlan, discovered: Sequence[str], auto_pinned: Sequence[str], presearched: Sequence[str] = ()
    ) -> Assembly:
        scout = self.scout
        return assemble(
            plan,
            settings=scout.settings,
            discovered=discovered,
            own_tools=scout.offload.tools if scout.offload is not None else (),
            presearched=presearched,
            auto_pinned=auto_pinned,
        )

    def _shown(self) -> tuple[str, ...]:
        """The discoveries an assembly sends in full: the session's, in reveal style; none otherwise."""
        return self.discovered if self.scout.settings.style == "reveal" else ()

    def _listed(self, plan: TurnPlan) -> frozenset[str]:
        """What the model has in full this turn (`Assembly.loaded`), kept per plan while the session adds nothing.

        A session with no discoveries sent and no auto-pins lists what every such session of the plan lists, so
        that is assembled once per plan and disclosure settings (plans are shared only by scouts alike in all else).
        Otherwise the latest listing of the plan is kept with the discoveries and auto-pins it was assembled for, so
        a reveal-style session searching again with nothing new revealed is not assembled again.
        """
        discovered, auto_pinned = self._shown(), self._auto_pinned(plan)
        key = self.scout._loaded_key
        if not discovered and not auto_pinned:
            return plan.derived(key, lambda: self._assembled(plan, (), ()).loaded)
        latest: list[tuple[tuple[str, ...], tuple[str, ...], frozenset[str]]] = plan.derived((*key, "latest"), list)
        held = latest[0] if latest else None
        if held is not None and held[0] == discovered and held[1] == auto_pinned:
            return held[2]
        loaded = self._assembled(plan, discovered, auto_pinned).loaded
        latest[:] = [(discovered, auto_pinned, loaded)]
        return loaded

    @property
    def _learning_scope(self) -> str:
        return self.learning_scope or self.scout.settings.learning.scope

    def _auto_pinned(self, plan: TurnPlan) -> tuple[str, ...]:
        """The deferred tools this session's learning scope keeps calling, within the auto-pin budget."""
        scout = self.scout
        pins = scout.auto_pins
        if pins is None or not plan.activation.active:
            return ()

        def turn() -> int:  # the first turn's tokens, computed once per plan and only when a candidate is deferred
            settings = scout.settings
            own = scout.offload.tools if scout.offload is not None else ()
            key = ("first turn tokens", settings.style, settings.reveal_stubs, settings.pre_discovered, len(own))
            return plan.derived(
                key, lambda: _tokens_of(assemble(plan, settings=settings, own_tools=own), scout.counter)
            )

        return pins.chosen(self._learning_scope, plan, scout.counter, turn_tokens=turn)

    def resolve(self, name: object, arguments: object = None, *, call_id: str | None = None) -> Resolution:
        """Resolve a tool call without running any tool.

        Bridge reads are answered (and their discoveries recorded); a ``tool_call`` is unwrapped
        into the real `ToolCall`, validated against the tool's schema. Use this when your own
        code executes tools; use `dispatch` to have toolscout run them.
        """
        resolution = self._resolve(name, arguments, call_id=call_id)
        return self._record(resolution)[0]

    async def dispatch(
        self,
        name: object,
        arguments: object = None,
        *,
        call_id: str | None = None,
        context: AnswerContext | None = None,
    ) -> ToolOutcome:
        """Handle one tool call from the model and return its outcome. Never raises for bad model input.

        Resolving (searches, schema checks) and the store's reads and writes run in a worker
        thread, so a slow store or a big catalog never stalls the event loop. With ``tracing`` on,
        the call runs in a span of its own (see `toolscout.observe` for its attributes). `context`
        holds what the host adds to a search or describe answer (the gateway: upstreams not ready, the
        hint for a client its reveals do not reach); the hooks, the activity log and the caller all
        get the answer with it.

        Raises:
            StoreError: The discovery store failed.
        """
        tracing = self.scout._tracing
        if tracing is None:
            return await self._dispatch(name, arguments, call_id, context, None)
        with tracing.dispatch(self.session_id) as span:
            return await self._dispatch(name, arguments, call_id, context, span)

    def dispatch_sync(self, name: object, arguments: object = None, *, call_id: str | None = None) -> ToolOutcome:
        """`dispatch` for synchronous code (runs its own event loop; do not call from async code)."""
        return anyio.run(lambda: self.dispatch(name, arguments, call_id=call_id))

    async def _dispatch(
        self, name: object, arguments: object, call_id: str | None, context: AnswerContext | None, span: Span | None
    ) -> ToolOutcome:
        started = time.perf_counter()
        resolution, newly, plan, auto_pinned = await anyio.to_thread.run_sync(
            lambda: self._resolve_listed(name, arguments, call_id=call_id)
        )
        raw = arguments if isinstance(arguments, dict) else {}
        outcome = await run_resolution(
            resolution,
            requested=name if isinstance(name, str) else "",
            arguments=cast(dict[str, object], raw),
            handler_for=self.scout.handler_for,
            before_call=self.scout.before_call,
            after_call=self.scout.after_call,
            transform=self.scout.offload.apply if self.scout.offload is not None else None,
            started=started,
            call_id=call_id,
            revealed=newly,
            context=context,
        )
        direct = outcome.answer is None and outcome.requested == outcome.name
        self._observe(outcome, span, auto_pinned=direct and outcome.name in auto_pinned)
        self._learn(outcome, deferred=outcome.name in plan.deferred)
        return outcome

    def _resolve_listed(
        self, name: object, arguments: object, *, call_id: str | None
    ) -> tuple[Resolution, tuple[str, ...], TurnPlan, tuple[str, ...]]:
        """Resolve and record a call (`resolve`), with the plan it ran under and the tools auto-pinned then."""
        scout = self.scout
        catalog = scout.catalog
        plan = scout.plan(self.scope, catalog=catalog)
        resolution, newly = self._record(self._resolve_in(plan, catalog, name, arguments, call_id=call_id))
        return resolution, newly, plan, self._auto_pinned(plan)

    def _observe(self, outcome: ToolOutcome, span: Span | None, *, auto_pinned: bool) -> None:
        """Record the call in the activity log and on its span (one event serves both).

        `auto_pinned`: a direct call of a tool the session listed by auto-pin (`ActivityEvent.auto_pinned`).
        """
        scout = self.scout
        activity, tracing = scout.activity, scout._tracing
        if span is None or tracing is None or not span.is_recording():
            span = tracing = None
        if activity is None and tracing is None:
            return
        tool = scout.catalog.get(outcome.name)
        upstream = tool.namespace if tool is not None else None
        mode, bridge = scout.search_mode, scout.settings.bridge_names
        if activity is not None:
            event = activity.event_of(outcome, session=self.session_id, upstream=upstream, mode=mode, bridge=bridge)
        else:
            from .observe._internal import activity_event

            event = activity_event(outcome, session=self.session_id, upstream=upstream, mode=mode, bridge=bridge)
        if auto_pinned:
            event = dataclasses.replace(event, auto_pinned=True)
        if activity is not None:
            activity.record(event)
        if span is not None and tracing is not None:
            tracing.finish(span, event)

    def _learn(self, outcome: ToolOutcome, *, deferred: bool) -> None:
        """Hand the call to the usage recorder (learning on); the pairs it earns are written on its own thread.

        `deferred`: the tool is deferred for this session, so a call of it no search led to counts as a use.
        """
        usage = self.scout.usage
        if usage is None:
            return
        known = self.scout.catalog.get(outcome.name) is not None
        pairs = usage.observe(
            self.learning_session,
            outcome,
            tool=known,
            scope=self.learning_scope,
            deferred=deferred,
            sessionless=self.learning_sessionless,
        )
        usage.save(pairs)

    def _resolve(self, name: object, arguments: object, *, call_id: str | None) -> Resolution:
        scout = self.scout
        catalog = scout.catalog  # one catalog for plan and index: a change meanwhile (an upstream attaching) waits
        return self._resolve_in(scout.plan(self.scope, catalog=catalog), catalog, name, arguments, call_id=call_id)

    def _resolve_in(
        self, plan: TurnPlan, catalog: Catalog, name: object, arguments: object, *, call_id: str | None = None
    ) -> Resolution:
        scout = self.scout
        listed = self._listed(plan)
        scope = self._learning_scope
        index = scout.index(catalog)  # looked up once: the searcher and the learned stage's embeddings share it
        dense = index.dense if isinstance(index, HybridIndex) else None
        with learned_search(scout._learned, scope=scope, session=self.learning_session, dense=dense):
            return resolve_call(
                name,
                arguments,
                session_id=self.session_id,
                plan=plan,
                listed=listed,
                index=scout._around(index, catalog),
                settings=scout.settings,
                call_id=call_id,
                own_tools=scout._own_tools(),
            )

    def _record(self, resolution: Resolution) -> tuple[Resolution, tuple[str, ...]]:
        """Store what the call discovered; returns the resolution and the newly discovered names."""
        if isinstance(resolution, BridgeAnswer) and resolution.revealed:
            return resolution, self.scout.store.discover(self.session_id, resolution.revealed)
        if isinstance(resolution, ToolCall) and resolution.bridged:
            return resolution, self.scout.store.discover(self.session_id, [resolution.name])
        return resolution, ()


def _tokens_of(assembly: Assembly, counter: TokenCounter) -> int:
    """The tokens of a turn's tools array and guidance."""
    return sum(tool_tokens(tool, counter) for tool in assembly.tools) + counter.count(assembly.guidance)


def _catalog_file(source: str | os.PathLike[str]) -> Path:
    """The file `source` names: the packaged sample catalog for ``"sample"`` when no local file has that name."""
    path = Path(source)
    return sample_catalog_path() if source == "sample" and not path.exists() else path


def _tracing(settings: ScoutSettings, activity: ActivityLog | None) -> Tracing | None:
    """The spans' source when ``tracing`` is on (OpenTelemetry is imported only then)."""
    if not settings.tracing:
        return None
    try:
        from .observe._internal import Tracing
    except ImportError:
        raise ConfigError(
            "is on but OpenTelemetry is not installed: pip install 'toolscout[otel]'", key="tracing"
        ) from None
    return Tracing(arguments=activity is not None and activity.log_arguments)


def _under_own_name(handler: Handler, name: str) -> Handler:
    """`handler`, given each call under the tool's own `name` (for a tool renamed away from a bridge name)."""

    def own(call: ToolCall) -> ToolCall:
        return dataclasses.replace(call, name=name, tool=dataclasses.replace(call.tool, name=name))

    if inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(type(handler).__call__):

        async def run_async(call: ToolCall) -> object:
            return await cast(Awaitable[object], handler(own(call)))

        return run_async

    def run(call: ToolCall) -> object:
        return handler(own(call))

    return run


def _call_with_arguments(func: Callable[..., object]) -> Handler:
    """Wrap a plain function as a handler that receives the validated arguments as keywords."""
    if inspect.iscoroutinefunction(func):

        async def run_async(call: ToolCall) -> object:
            return await func(**call.arguments)

        return run_async

    def run(call: ToolCall) -> object:
        return func(**call.arguments)

    return run
