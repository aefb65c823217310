"""The training examples mining writes and fine-tuning reads, and the names of the miners that write them.

Nothing here imports toolscout: ``fit``, ``cross`` and ``export`` run on a machine that has only the ML stack, from
examples mined elsewhere (`_negatives` needs toolscout's search).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MINERS", "Group", "Triple"]

MINERS = ("lexical", "dense", "mixed")
"""The miners `_negatives.make_miner` builds: keyword search, the model being trained from, or each for half."""


@dataclass(frozen=True)
class Triple:
    """One training example: a request, one of its tools, and a tool that does not serve it."""

    query: str
    positive: str
    negative: str
    source: str
    miner: str
    """Which miner found the negative (``lexical``, ``dense``), or ``random`` when none did."""
    positive_key: str
    negative_key: str
    """The tools' normalised names: two tools with one key never meet as negatives of each other in a batch."""


@dataclass(frozen=True)
class Group:
    """One request, one of its tools, and several tools that do not serve it (a cross-encoder's listwise example)."""

    query: str
    positive: str
    negatives: tuple[str, ...]
    source: str
    miner: str
    """Which miner found the first negative (``lexical``, ``dense``), or ``random`` when none did."""
    positive_key: str
    negative_keys: tuple[str, ...]
