"""Interchangeable action words: a request says "remove", the tool says "delete".

Tool names and descriptions use a small set of conventional verbs (create, get, update,
delete, search, ...) while people asking for them use many others. `ActionSynonyms` expands
a query's action words to the conventional ones the catalog uses, at a reduced weight, so a
literal match still ranks first and an expansion only breaks ties or fills a gap.

The groups are deliberately narrow (words that name the same operation on a tool, not
general-purpose synonyms) and English only; stems are compared, so "removing" and "removes"
expand like "remove".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ._tokenize import stem

__all__ = ["ACTION_GROUPS", "ActionSynonyms"]

ACTION_GROUPS: tuple[tuple[str, ...], ...] = (
    ("create", "add", "insert", "generate", "establish"),
    ("delete", "remove", "erase", "drop", "destroy", "purge"),
    ("update", "modify", "edit", "alter", "amend"),
    ("get", "fetch", "retrieve", "obtain"),
    ("search", "lookup", "locate"),
    ("list", "enumerate"),
    ("send", "submit"),
    ("execute", "invoke", "launch"),
    ("stop", "cancel", "terminate", "abort", "halt"),
    ("calculate", "compute"),
    ("convert", "transform"),
    ("book", "reserve"),
    ("buy", "purchase"),
)
"""Groups of words that name the same operation; each word of a group expands to the others."""


class ActionSynonyms:
    """Expands query stems to the other stems of their action group."""

    def __init__(self, groups: Iterable[Sequence[str]] = ACTION_GROUPS) -> None:
        """Index `groups` by stem (a word in several groups expands to all of them)."""
        expansions: dict[str, dict[str, None]] = {}
        for group in groups:
            stems = [stem(word.lower()) for word in group]
            for one in stems:
                expansions.setdefault(one, {}).update(dict.fromkeys(s for s in stems if s != one))
        self._expansions: Mapping[str, tuple[str, ...]] = {key: tuple(found) for key, found in expansions.items()}

    def expand(self, stems: Iterable[str]) -> list[str]:
        """The stems `stems` expand to, in order, without the ones already in `stems`."""
        given = dict.fromkeys(stems)
        out: dict[str, None] = {}
        for one in given:
            out.update(dict.fromkeys(s for s in self._expansions.get(one, ()) if s not in given))
        return list(out)
