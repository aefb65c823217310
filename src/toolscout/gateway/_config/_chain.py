"""Gateways that start or reach themselves again through other gateways: refused, never spawned forever.

A gateway's identity is its config file on this host (a gateway built from no file gets a
random one), and what travels is only its id: a digest of that identity (`gateway_id`), so no
upstream, caller or log reader learns a host name or a config path. Every gateway hands the ids
of the gateways that led to it, itself last, to its stdio upstreams in the
``TOOLSCOUT_GATEWAY_CHAIN`` environment variable and to its HTTP upstreams in the
``Toolscout-Gateway-Chain`` header (a JSON list of strings). A gateway started with its own id
already in the chain (A's config lists B, whose config lists A), or more than `MAX_DEPTH`
gateways deep, refuses to start; an HTTP gateway answers such a request with ``508 Loop
Detected``. Each refusal names the loop by ids (each gateway logs its own id at start-up).

Gateways started apart that list each other over HTTP never pass a chain along the loop, so each
HTTP answer also carries the ``Toolscout-Gateway-Reach`` header: the answering gateway's id, then
those of every gateway it reaches through its own HTTP upstreams. A gateway refuses (``508``) a
caller whose chain holds a gateway it reaches: serving it would close a loop, and the two catalogs
would relist each other forever.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..._errors import ConfigError
from ._model import GatewayConfig

__all__ = ["CHAIN_ENV", "CHAIN_HEADER", "MAX_DEPTH", "REACH_HEADER", "GatewayChain", "decode_reach", "gateway_id"]

CHAIN_ENV = "TOOLSCOUT_GATEWAY_CHAIN"
CHAIN_HEADER = "Toolscout-Gateway-Chain"
REACH_HEADER = "Toolscout-Gateway-Reach"
MAX_DEPTH = 8
"""Gateways in one chain, at most (the outermost one included)."""

_MAX_LINKS = 64
_MAX_LINK_CHARS = 4096
_ID_CHARS = 24
_ID_RE = re.compile(f"[0-9a-f]{{{_ID_CHARS}}}")


@dataclass(frozen=True, slots=True)
class GatewayChain:
    """The ids of the gateways that led to this one (`gateway_id`), outermost first, this one last."""

    links: tuple[str, ...]

    @classmethod
    def enter(cls, config: GatewayConfig, environ: Mapping[str, str] = os.environ) -> GatewayChain:
        """This gateway's chain: the one its parent passed in `environ`, plus itself.

        Raises:
            ConfigError: This gateway is already in the chain, the chain is too long, or the variable is malformed.
        """
        inherited = _decode(environ.get(CHAIN_ENV, "[]"), key=CHAIN_ENV)
        me = gateway_id(config)
        problem = _refusal(inherited, me, how="starts")
        if problem is not None:
            raise ConfigError(problem, key=CHAIN_ENV)
        return cls((*inherited, me))

    @property
    def encoded(self) -> str:
        """The chain as `CHAIN_ENV` and `CHAIN_HEADER` carry it (ASCII JSON)."""
        return json.dumps(list(self.links))

    def refusal(self, header: str, reach: Sequence[tuple[str, ...]] = ()) -> str | None:
        """Why a request carrying `header` as its `CHAIN_HEADER` must be refused, or None.

        Args:
            header: The caller's chain.
            reach: What each HTTP gateway upstream of this one said it reaches (`decode_reach`: digests).
        """
        try:
            inherited = _decode(header, key=CHAIN_HEADER)
        except ConfigError as exc:
            return str(exc)
        me = self.links[-1]
        problem = _refusal(inherited, me, how="calls")
        if problem is not None:
            return problem
        for caller in reversed(inherited):
            direct = any(reached[0] == caller for reached in reach)
            if direct or any(caller in reached for reached in reach):
                path = " → ".join((caller, me, *(() if direct else ("…",)), caller))
                return (
                    f"gateway loop {path}: the gateway {caller} calls this one, which reaches it again "
                    "through its own upstreams, and each would relist the other forever; remove one of the entries "
                    "that close the loop"
                )
        return None

    def reach(self, upstreams: Sequence[tuple[str, ...]]) -> str:
        """The `REACH_HEADER` value: this gateway's id, then those its HTTP upstreams reach (ASCII JSON)."""
        links = dict.fromkeys((self.links[-1], *(link for reached in upstreams for link in reached)))
        return json.dumps(list(links)[:_MAX_LINKS])


def decode_reach(value: str) -> tuple[str, ...]:
    """A `REACH_HEADER` value as gateway ids, the answering gateway's first; () when malformed or empty."""
    try:
        return _decode(value, key=REACH_HEADER)
    except ConfigError:
        return ()


def gateway_id(config: GatewayConfig) -> str:
    """The id naming the gateway of `config` in chains, reach headers and loop errors.

    A digest of its host and config file (random for a config read from no file), which it does not reveal.
    """
    source = f"unnamed-{uuid.uuid4().hex}" if config.source is None else str(config.source)
    return _digest(f"{socket.gethostname()}:{source}")


def _digest(identity: str) -> str:
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()[:_ID_CHARS]


def _as_id(link: str) -> str:
    """A link as a gateway id: ids pass, anything else (an older gateway's ``host:path``) is digested."""
    return link if _ID_RE.fullmatch(link) else _digest(link)


def _decode(value: str, *, key: str) -> tuple[str, ...]:
    try:
        links = json.loads(value)
    except ValueError:
        links = None
    if (
        not isinstance(links, list)
        or not all(isinstance(link, str) and 0 < len(link) <= _MAX_LINK_CHARS for link in links)
        or len(links) > _MAX_LINKS
    ):
        raise ConfigError(
            f"must be a JSON list of at most {_MAX_LINKS} gateway identities (strings of 1 to {_MAX_LINK_CHARS} "
            "characters); it is set by the gateway that started or called this one",
            key=key,
        )
    return tuple(_as_id(link) for link in links)


def _refusal(inherited: tuple[str, ...], me: str, *, how: str) -> str | None:
    if me in inherited:
        loop = " → ".join((*inherited[inherited.index(me) :], me))
        return (
            f"gateway loop {loop}: the gateway {inherited[-1]} {how} this one ({me}) again as its upstream, "
            "which would start it again, forever; remove one of the entries that close the loop (each gateway "
            "logs its id at start-up)"
        )
    if len(inherited) >= MAX_DEPTH:
        chain = " → ".join((*inherited, me))
        return f"gateways nested more than {MAX_DEPTH} deep ({chain}): at most {MAX_DEPTH} gateways may be chained"
    return None
