"""The languages search knows, by code: the built-in files, loaded on first use, and any registered after."""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib import resources

from ..._errors import ConfigError
from ._language import Language, load_language

__all__ = ["get_language", "languages", "on_languages_changed", "register_language"]

HUB = "en"
"""The language the lexicon's concepts are named in and tools are described in: the others translate to it."""

_BUILT_IN = ("en", "zh", "ja", "ko", "th", "es", "fr", "de", "pt", "ru")
"""The built-in language files, in the order their rules apply (a request that could be Spanish or French is
matched against Spanish first)."""

_languages: dict[str, Language] = {}
_listeners: list[Callable[[], None]] = []
_lock = threading.Lock()
_loaded = False


def languages() -> tuple[Language, ...]:
    """Every language search knows, in the order their rules apply (the built-in ones, then registered ones)."""
    _load_built_in()
    return tuple(_languages.values())


def get_language(code: str) -> Language:
    """The language `code`.

    Raises:
        ConfigError: No language has that code; the known ones are listed.
    """
    _load_built_in()
    try:
        return _languages[code]
    except KeyError:
        raise ConfigError(f"unknown language {code!r}; use one of: {', '.join(_languages)}", key="language") from None


def register_language(language: Language) -> None:
    """Teach search a language (`load_language` reads one from its file); a known code is replaced.

    Register before building the indexes that should use it: tokenizing, translating and the synonym groups
    are recomputed for indexes built afterwards.

    Raises:
        ConfigError: Its script is already owned by another language (two languages of one script are told
            apart by function words, so at most one of them may have none), or its lexicon names a concept the
            English file does not have.
    """
    _load_built_in()
    with _lock:
        _check(language, {code: known for code, known in _languages.items() if code != language.code})
        _languages[language.code] = language
    for listener in tuple(_listeners):
        listener()


def on_languages_changed(listener: Callable[[], None]) -> None:
    """Call `listener` whenever a language is registered (the rules derived from the languages reset)."""
    _listeners.append(listener)


def _check(language: Language, others: dict[str, Language]) -> None:
    if not language.detected:
        owner = next((o for o in others.values() if o.script == language.script and not o.detected), None)
        if owner is not None:
            raise ConfigError(
                f"script {language.script!r} already belongs to {owner.code!r}; a second language of one script "
                "needs function_words to be told apart",
                key=f"language.{language.code}.script",
            )
    hub = language if language.code == HUB else others.get(HUB)
    if hub is not None and language is not hub:
        unknown = [concept for concept in language.lexicon if concept not in hub.lexicon]
        if unknown:
            raise ConfigError(
                f"concept {unknown[0]!r} is not in the English lexicon ({len(unknown)} unknown); every concept "
                "needs its English words in en.toml",
                key=f"language.{language.code}.lexicon",
            )


def _load_built_in() -> None:
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        folder = resources.files(__package__)
        for code in _BUILT_IN:
            with resources.as_file(folder / f"{code}.toml") as path:
                language = load_language(path)
            _check(language, _languages)
            _languages[code] = language
        _loaded = True
