"""The `OffloadStore` protocol: where offloaded outputs live, per session and principal, behind opaque handles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias

from .._errors import StoreError
from .._types import JsonObject
from ._handles import is_handle

__all__ = [
    "FOREIGN_SESSION",
    "LOCAL_PRINCIPAL",
    "OutputKind",
    "OutputMeta",
    "OutputMissing",
    "OffloadStore",
    "check_caps",
    "full_message",
]

LOCAL_PRINCIPAL = "local"
"""The principal of a put that names none (the gateway's label for callers without auth)."""
FOREIGN_SESSION = "this session's outputs belong to another principal; use a session of your own"
"""Why a put naming another principal than the session's is refused."""
_DEFAULT_TOTAL = 4 << 30

OutputKind: TypeAlias = Literal["text", "json", "binary"]
"""How an output can be read: as text (read/search), as JSON (also jq), or not at all (binary)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OutputMeta:
    """What is known about one stored output, without its bytes."""

    handle: str
    """The output's handle."""
    kind: OutputKind
    """Text, JSON or binary."""
    content_type: str
    """MIME type, e.g. ``text/plain``, ``application/json``, ``image/png``."""
    tool: str
    """The tool whose result this was."""
    size: int
    """Size in bytes (UTF-8 for text)."""
    created: float
    """When it was stored (seconds since the epoch)."""

    def to_json(self) -> JsonObject:
        """The record as a JSON object (what a file store writes next to the bytes)."""
        return {
            "handle": self.handle,
            "kind": self.kind,
            "content_type": self.content_type,
            "tool": self.tool,
            "size": self.size,
            "created": self.created,
        }

    @classmethod
    def from_json(cls, raw: object) -> OutputMeta:
        """The record `to_json` wrote.

        Raises:
            ValueError: `raw` is not such a record (a field missing or of the wrong type, not a handle).
        """
        if not isinstance(raw, dict):
            raise ValueError("an output record must be a JSON object")
        try:
            meta = cls(
                handle=raw["handle"],
                kind=raw["kind"],
                content_type=str(raw["content_type"]),
                tool=str(raw["tool"]),
                size=int(raw["size"]),
                created=float(raw["created"]),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not an output record: {exc}") from None
        if not is_handle(meta.handle) or meta.kind not in ("text", "json", "binary"):
            raise ValueError("not an output record: bad handle or kind")
        return meta


class OutputMissing(StoreError):
    """A handle that cannot be read in this session.

    Attributes:
        reason: ``"invalid"`` (not a handle), ``"expired"`` (evicted to respect a size cap of its
            session or principal, or the total) or ``"unknown"`` (never stored in this session, or the
            session was forgotten).
    """

    def __init__(self, message: str, *, reason: Literal["invalid", "expired", "unknown"]) -> None:
        self.reason = reason
        super().__init__(message)


class OffloadStore(Protocol):
    """Stored outputs per session.

    Contract every implementation keeps:

    - **Opaque handles.** `put` returns a fresh random handle (see `toolscout.offload._handles`);
      handles are never paths, and every method rejects anything that is not exactly of the
      handle form with `OutputMissing` (reason ``"invalid"``) before touching storage.
    - **Sessions are sealed.** A handle is readable only in the session that stored it; from any
      other session it is ``"unknown"``, exactly as a handle that never existed.
    - **Bounded per session.** A session holds at most `session_bytes`; storing past it evicts
      the session's oldest outputs first. Reading an evicted handle raises `OutputMissing` with
      reason ``"expired"``. One output larger than the cap is refused with `StoreError`.
    - **Bounded per principal.** Every `put` names its principal (the gateway's grant label: one
      token, one OAuth subject; ``local`` by default); a session's outputs belong to the principal
      that first stored in it, and a put naming another principal is refused with `StoreError`.
      All sessions of one principal together hold at most `principal_bytes`; storing past it
      evicts that principal's oldest outputs first, whichever of its sessions holds them.
    - **Bounded overall, never at another principal's expense.** All sessions together hold at most
      `total_bytes`; storing past it evicts the writing principal's own oldest outputs (and outputs
      no principal holds, such as those an earlier process left), never another principal's. When
      the others hold too much for the output to fit, it is refused with `StoreError` naming
      ``total_bytes``, and nothing is evicted.
    - **Cleaned up.** `forget` deletes everything a session stored. `close` deletes everything
      a private store (`shared` false) wrote; a shared store keeps what other processes still
      use and drops each session `ttl` after its last use by any of them.
    - **Thread-safe.** Every method may be called from several threads at once.
    """

    session_bytes: int
    """Bytes one session may hold."""
    principal_bytes: int
    """Bytes all sessions of one principal together may hold."""
    total_bytes: int
    """Bytes all sessions together may hold."""
    shared: bool
    """True when other processes (gateway replicas) read and write the same outputs: a session idle in
    this process may be busy in another, so only the store itself expires sessions by their last use."""

    def put(
        self,
        session_id: str,
        data: bytes,
        *,
        kind: OutputKind,
        content_type: str,
        tool: str,
        principal: str = LOCAL_PRINCIPAL,
    ) -> OutputMeta:
        """Store `data` for the session of `principal` and return its record (with the new handle).

        Raises:
            StoreError: The session id is invalid, `data` alone exceeds the session cap, the session
                belongs to another principal, other principals hold too much of the total for it to
                fit, or writing failed.
        """
        ...

    def meta(self, session_id: str, handle: str) -> OutputMeta:
        """The record of a stored output.

        Raises:
            OutputMissing: The handle is invalid, expired or unknown in this session.
        """
        ...

    def read(self, session_id: str, handle: str) -> bytes:
        """The stored bytes.

        Raises:
            OutputMissing: The handle is invalid, expired or unknown in this session.
            StoreError: Reading failed.
        """
        ...

    def used(self, session_id: str) -> int:
        """Bytes the session holds now."""
        ...

    def forget(self, session_id: str) -> None:
        """Delete everything the session stored (a no-op for an unknown session)."""
        ...

    def close(self) -> None:
        """Delete everything the store wrote; calling it again is a no-op."""
        ...


def check_caps(session_bytes: object, principal_bytes: object, total_bytes: object) -> tuple[int, int, int]:
    """The caps ``(session, principal, total)`` a store keeps, defaults filled in.

    `total_bytes` None: 4 GiB, or `session_bytes` if larger; `principal_bytes` None: `total_bytes`.

    Raises:
        StoreError: A cap is not a positive integer, or they are not in order (session <= principal <= total).
    """
    if isinstance(session_bytes, bool) or not isinstance(session_bytes, int) or session_bytes < 1:
        raise StoreError(f"session_bytes must be a positive integer, got {session_bytes!r}")
    total = max(_DEFAULT_TOTAL, session_bytes) if total_bytes is None else total_bytes
    if isinstance(total, bool) or not isinstance(total, int) or total < session_bytes:
        raise StoreError(f"total_bytes must be an integer of at least session_bytes, got {total!r}")
    principal = total if principal_bytes is None else principal_bytes
    if isinstance(principal, bool) or not isinstance(principal, int) or not session_bytes <= principal <= total:
        raise StoreError(
            f"principal_bytes must be an integer from session_bytes ({session_bytes}) to total_bytes ({total}),"
            f" got {principal!r}"
        )
    return session_bytes, principal, total


def full_message(total_bytes: int, size: int) -> str:
    """Why an output of `size` bytes was refused: other principals hold too much of `total_bytes`."""
    return (
        f"the output store is full: other callers' outputs hold too much of its total_bytes ({total_bytes}) for"
        f" this output ({size} bytes) to fit, and yours are too few to make room; call the tool again later"
    )
