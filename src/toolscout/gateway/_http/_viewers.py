"""What one HTTP caller may see of the gateway beside ``/mcp``: the ``/ui/`` page, ``/healthz``, ``/metrics``.

The rule, once ``toolscout.auth`` has tokens: every answer covers the caller's grant only. The page's
catalog, search playground and token budget hold only the tools in the grant's scope and the
upstreams it may know of (`visible_servers`), with their tool counts in that scope (a server's
repairs and left-out tools only for grants that hold it whole), its activity only the events of
the caller's own token, its learned requests only those of its own learning scope (its grant label,
under which `Gateway.session` records them) for the tools in its scope, and ``/healthz`` only those
upstreams. ``/metrics`` counts every client's traffic and names every upstream, so it answers only a
grant with ``admin: true``, which also reads every token's activity on the page and how many learned
pairs each learning scope holds (never their requests; its catalog, search, budget and learned requests
stay within its scope). Without tokens (a gateway on loopback for one user) everything is shown.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass

from starlette.requests import Request

from ..._scope import Scope
from ...observe import ActivityEvent
from .._identity import grant_of
from .._server import Gateway
from .._upstream import UpstreamStatus, visible_servers

__all__ = ["Viewer", "Viewers"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Viewer:
    """One HTTP caller's view: its grant's scope, the upstreams it may know of, whose activity it reads."""

    principal: str | None
    """The grant's name; None without tokens (everything is shown)."""
    scope: Scope
    """The tools it may see."""
    upstreams: tuple[UpstreamStatus, ...]
    """The states of the upstreams it may know of, as it may see them, in config order."""
    admin: bool
    """May read ``/metrics``, every token's activity and how many learned pairs each learning scope holds."""
    learning_scope: str | None
    """The learning scope its pairs are kept under (its grant label, ``local`` without tokens); None: none."""

    def sees_event(self, event: ActivityEvent) -> bool:
        """True when the activity `event` may appear in an answer to this caller."""
        return self.admin or event.label == self.principal


class Viewers:
    """Maps an HTTP request (after the bearer middleware) to its caller's `Viewer`."""

    def __init__(self, gateway: Gateway) -> None:
        """Serve `gateway`'s callers."""
        self._gateway = gateway
        self._auth = gateway.config.settings.auth is not None

    def __call__(self, request: Request) -> Viewer:
        """The view of the caller of `request`; a caller without a valid token sees nothing."""
        pool = self._gateway.pool
        if not self._auth:
            learning_scope, _ = self._gateway.identities.grant(request.scope)
            return Viewer(
                principal=None, scope=Scope(), upstreams=pool.status(), admin=True, learning_scope=learning_scope
            )
        grant = grant_of(request.scope)
        if grant is None:
            return Viewer(principal="-", scope=Scope(allow=()), upstreams=(), admin=False, learning_scope=None)
        label, scope = grant.label, grant.scope
        visible = visible_servers(pool, scope, grant.servers)
        upstreams = tuple(status for status in pool.status() if status.name in visible)
        if not scope.unrestricted:
            counts = Counter(tool.spec.namespace for tool in pool.tools() if scope.permits(tool.spec))
            whole = set(grant.servers or ()) if scope.allow is not None else visible
            upstreams = tuple(
                dataclasses.replace(
                    status,
                    tools=counts[status.name],
                    repaired=status.repaired if status.name in whole else (),
                    problems=status.problems if status.name in whole else (),
                )
                for status in upstreams
            )
        return Viewer(principal=label, scope=scope, upstreams=upstreams, admin=grant.admin, learning_scope=label)
