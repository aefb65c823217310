"""When a hybrid search's best hit is a near miss: the catalog is related to the request but cannot do it.

Per-hit confidence cannot see this case: a catalog whose only tool is related to the request ("calculate the
area of a triangle" against a circle's area) reads as confident as a right answer, and the request's words
may vouch for it. What separates the two (measured by ``bench/abstain_query.py`` on the tooldata dev requests
against their own catalogs with and without the gold tools, and BFCL's tuning categories) is a request in English
that the embedder reads, no tool near it, and a best hit whose own text (name, description, parameter names) holds
none of the request's content words: a right answer nearly always shares one of them. The thresholds are fitted
(``calibration.json``'s ``near_miss`` section) so that no right answer of those sets is vetoed.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

from ..catalog import ToolSpec
from ._confidence import CALIBRATION_FILE
from ._language import word_languages

__all__ = ["NearMissVeto"]

_STOP = frozenset(
    "a an the to of in on for and or is it me my i you your we our be can could would please what whats which who "
    "how with from at by this that these those are was do does did get give show tell find some any all into about "
    "as want need like there here up out so if then than will just also it's i'm let let's make".split()
)
"""Words that carry no request: they never count as content words."""
_STEM = 5
"""Two words match when their first letters agree this far ("deploys" and "deployment")."""


def _words(text: str) -> list[str]:
    split = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower()
    return [word for word in re.findall(r"\w+", split) if word not in _STOP and not word.isdigit()]


def _tool_stems(tool: ToolSpec) -> set[str]:
    properties = tool.parameters.get("properties")
    names = " ".join(properties) if isinstance(properties, dict) else ""
    return {word[:_STEM] for word in _words(f"{tool.name} {tool.description} {names}")}


def _english(query: str) -> bool:
    """Most words are English (the library's detector) and no letter is accented.

    The accent check catches Spanish requests the detector reads as English ("cambia a la segunda pestaña").
    """
    found = word_languages(query)
    if not found or sum(code == "en" for code in found) <= len(found) / 2:
        return False
    return all(char.isascii() for char in query if char.isalpha())


@dataclass(frozen=True, slots=True)
class NearMissVeto:
    """Vetoes an answer whose best hit is a near miss (see the module docstring)."""

    top_cosine: float
    """A search whose best embedding similarity reaches this is never vetoed."""
    overlap: float
    """A best hit holding at least this share of the request's content words is never vetoed."""

    @staticmethod
    def packaged() -> NearMissVeto:
        """The thresholds fitted for the shipped model (``calibration.json``; read once)."""
        return _packaged()

    def vetoes(self, query: str, best: ToolSpec, top_cosine: float | None) -> bool:
        """Whether `best`, the best hit of a hybrid search for `query`, is a near miss."""
        if top_cosine is None or top_cosine >= self.top_cosine or not _english(query):
            return False
        return _overlap(_words(query), _tool_stems(best)) < self.overlap


@functools.cache
def _packaged() -> NearMissVeto:
    fitted = json.loads((resources.files(__package__) / CALIBRATION_FILE).read_text(encoding="utf-8"))
    section = fitted["near_miss"]
    return NearMissVeto(top_cosine=float(section["top_cosine"]), overlap=float(section["overlap"]))


def _overlap(words: Sequence[str], stems: set[str]) -> float:
    content = list(dict.fromkeys(words))
    return sum(word[:_STEM] in stems for word in content) / len(content) if content else 0.0
