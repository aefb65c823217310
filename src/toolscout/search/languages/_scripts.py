"""The writing systems a language file can name, each defined once by its Unicode ranges."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

__all__ = ["SCRIPTS", "SEGMENTERS", "Script", "bigrams", "script_named"]


@dataclass(frozen=True, slots=True)
class Script:
    """A writing system: its name, its characters, and whether its words have spaces between them."""

    name: str
    ranges: str
    """A regular-expression character-class body (``\\u0400-\\u04ff``)."""
    unspaced: bool
    """Written without spaces between words: a run of it becomes character bigrams, unless the language that
    owns the script names a segmenter."""

    @property
    def pattern(self) -> re.Pattern[str]:
        """Matches one character of the script."""
        return _pattern(self.ranges)


SCRIPTS: tuple[Script, ...] = (
    Script("kana", "\u3040-\u30ff\uff66-\uff9f", unspaced=True),
    Script("hangul", "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f", unspaced=True),
    Script("thai", "\u0e00-\u0e7f", unspaced=True),
    Script("lao", "\u0e80-\u0eff", unspaced=True),
    Script("myanmar", "\u1000-\u109f", unspaced=True),
    Script("khmer", "\u1780-\u17ff", unspaced=True),
    Script("bopomofo", "\u3100-\u312f\u31a0-\u31ff", unspaced=True),  # with the Katakana phonetic extensions
    Script("han", "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff", unspaced=True),
    Script("cyrillic", "\u0400-\u04ff", unspaced=False),
    Script("latin", "\u0000-\u024f", unspaced=False),
)
"""Every script by name, in the order a word's language is told by: a word with kana and Han is Japanese."""


def script_named(name: str) -> Script:
    """The script called `name` (a `KeyError` for an unknown one)."""
    return _BY_NAME[name]


_BY_NAME = {script.name: script for script in SCRIPTS}


@cache
def _pattern(ranges: str) -> re.Pattern[str]:
    return re.compile(f"[{ranges}]")


def bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of `run`, or the run itself when it is one character long."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def _jieba(run: str) -> list[str]:
    """Chinese words with jieba's search mode (dictionary only, no HMM guesses).

    Each word, plus the dictionary words inside a longer one (``天气预报`` -> ``天气 预报 天气预报``).
    """
    import rjieba  # imported here: only text with Han characters pays for loading the dictionary

    return rjieba.cut_for_search(run, hmm=False)


SEGMENTERS: dict[str, Callable[[str], list[str]]] = {"jieba": _jieba, "bigrams": bigrams}
"""How a run of an unspaced script splits into words, by the name a language file gives (``segmenter``)."""
