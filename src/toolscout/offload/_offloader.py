"""`Offloader`: large tool results become handles the model reads, searches and queries with jq."""

from __future__ import annotations

import dataclasses

import anyio
import anyio.to_thread

from .._errors import CatalogError
from .._tokens import TokenCounter, default_token_counter
from .._types import JsonObject
from ..catalog import Catalog, ToolSpec
from ..catalog._internal import canonical_json
from ..dispatch import ToolCall, ToolError, ToolOutcome
from ._answer import answer_call
from ._document import DocumentCache
from ._registry import open_output_store
from ._settings import OffloadSettings
from ._store import OffloadStore
from ._stub import offload_result
from ._tools import OFFLOAD_NAMES, offload_tools

__all__ = ["Offloader"]


class Offloader:
    """Context offloading for a `ToolScout` (pass it as ``ToolScout(..., offload=Offloader())``).

    While enabled, the offload tools (`tools`) are listed right after the core tools on every
    turn and are never deferred, and every real tool result over its budget is replaced by a
    stub (a JSON object: handles, sizes, a head preview, a JSON shape summary). jq queries share
    ``settings.jq_workers`` worker processes (a busy pool answers "busy, retry"). Outputs are
    kept per session in `store`; call `forget` when a session ends and `close` at shutdown.

    Args:
        settings: Budgets and limits (default: `OffloadSettings()`).
        store: Where outputs are kept (default: the store ``settings.store`` names, see
            `open_output_store`: a `FileOffloadStore` in ``settings.folder`` unless it names another).
        token_counter: Measures budgets (default: `default_token_counter()`; pass the same
            counter as the `ToolScout` for consistent numbers).
    """

    def __init__(
        self,
        settings: OffloadSettings | None = None,
        *,
        store: OffloadStore | None = None,
        token_counter: TokenCounter | None = None,
    ) -> None:
        self.settings = settings or OffloadSettings()
        self.store: OffloadStore = store if store is not None else open_output_store(self.settings)
        self.counter = token_counter or default_token_counter()
        self._cache = DocumentCache()
        self._jq_workers = anyio.CapacityLimiter(self.settings.jq_workers)

    @property
    def tools(self) -> tuple[ToolSpec, ...]:
        """The offload tools to list (none when disabled)."""
        return offload_tools() if self.settings.enabled else ()

    @property
    def names(self) -> frozenset[str]:
        """Names of the offload tools (empty when disabled)."""
        return OFFLOAD_NAMES if self.settings.enabled else frozenset()

    def offload(self, session_id: str, result: object, *, tool: str, budget: int | None = None) -> JsonObject | None:
        """Store `result` and return its stub if it costs more than `budget` tokens, else return None.

        This is the transform `apply` runs; call it directly to offload results toolscout did
        not dispatch. `budget` defaults to `settings.budget_tokens`.
        """
        return offload_result(
            result,
            session_id=session_id,
            tool=tool,
            budget=self.settings.budget_tokens if budget is None else budget,
            preview_tokens=self.settings.preview_tokens,
            store=self.store,
            counter=self.counter,
        )

    async def apply(self, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        """The outcome with its content replaced by a stub when over budget (dispatch's result transform).

        Failed calls, the offload tools' own answers and tools whose override is ``never`` pass
        through unchanged.
        """
        if not self.settings.enabled or outcome.error is not None or call.name in OFFLOAD_NAMES:
            return outcome
        budget = self.settings.budget_for(call.tool)
        if budget is None:
            return outcome
        stub = await anyio.to_thread.run_sync(
            lambda: self.offload(call.session_id, outcome.content, tool=call.name, budget=budget)
        )
        return outcome if stub is None else dataclasses.replace(outcome, content=stub)

    async def handle(self, call: ToolCall) -> JsonObject | ToolError:
        """Answer a call of one of the offload tools (their handler)."""
        return await answer_call(
            call,
            store=self.store,
            cache=self._cache,
            counter=self.counter,
            settings=self.settings,
            jq_workers=self._jq_workers,
        )

    def check_catalog(self, catalog: Catalog) -> Catalog:
        """`catalog` without copies of the offload tools; any other tool using their names is refused.

        Raises:
            CatalogError: A different tool uses an offload tool's name.
        """
        if not self.settings.enabled or not any(name in catalog for name in OFFLOAD_NAMES):
            return catalog
        own = {canonical_json(tool.to_definition()) for tool in offload_tools()}
        for name in OFFLOAD_NAMES:
            if name in catalog and canonical_json(catalog[name].to_definition()) not in own:
                raise CatalogError(
                    f"tool name {name!r} is reserved for toolscout's offload tools; rename the tool", tool_name=name
                )
        return Catalog(tool for tool in catalog if tool.name not in OFFLOAD_NAMES)

    def forget(self, session_id: str) -> None:
        """Delete everything a session stored."""
        self._cache.drop_session(session_id)
        self.store.forget(session_id)

    def close(self) -> None:
        """Release the store: a private one deletes its outputs, a shared one keeps them for other replicas."""
        self.store.close()
