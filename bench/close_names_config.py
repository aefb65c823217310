"""Which settings errors' "did you mean" changed when the settings took the model-facing suggester (issue 38).

The settings used difflib (``get_close_matches``, cutoff 0.6); every caller now uses `toolscout._close`, whose
`did_you_mean` compares whole keys in any case (rapidfuzz ``ratio`` >= 60; `compat`'s typo check >= 80, as
difflib's 0.8 was). Over every key of `GatewaySettings` (which holds `ScoutSettings`'), this writes each misspelling
of four kinds (one letter dropped, two letters swapped, a word left off, written in upper case or with
hyphens) and lists those whose suggestion differs: the key named in the error, before and now.

    .venv/bin/python bench/close_names_config.py     # -> results/close_names_config.md
"""

from __future__ import annotations

import difflib
from pathlib import Path

from toolscout._close import close_names, did_you_mean
from toolscout.gateway import GatewaySettings

RESULTS = Path(__file__).resolve().parent / "results"


def misspellings(key: str) -> list[str]:
    """The misspellings of `key` this comparison writes."""
    parts = key.split("_")
    dropped = [key[:i] + key[i + 1 :] for i in range(len(key))]
    swapped = [key[:i] + key[i + 1] + key[i] + key[i + 2 :] for i in range(len(key) - 1)]
    left_off = ["_".join(parts[1:]), "_".join(parts[:-1]), parts[-1]] if len(parts) > 1 else []
    return [*dropped, *swapped, *left_off, key.replace("_", "-"), key.upper()]


def difflib_hint(written: str, known: list[str], *, cutoff: float = 0.6) -> str | None:
    """What the settings (cutoff 0.6) or `compat` (cutoff 0.8) suggested before."""
    close = difflib.get_close_matches(written, known, n=1, cutoff=cutoff)
    return close[0] if close else None


def table(rows: list[tuple[str, str | None, str | None]]) -> list[str]:
    """The rows whose suggestion changed, as a markdown table."""
    shown = [f"| `{w}` | {f'`{a}`' if a else 'none'} | {f'`{b}`' if b else 'none'} |" for w, a, b in rows if a != b]
    return ["| written | before | now |", "|---|---|---|", *shown]


def main() -> None:
    known = sorted(GatewaySettings.model_fields)
    written = list(dict.fromkeys(w for key in known for w in misspellings(key) if w and w not in known))
    settings_rows = [(w, difflib_hint(w, known), did_you_mean(w, known)) for w in written]
    owned = ["tool_schema_mode", "tool_search"]  # the keys `compat` owns beside others (AstrBot's, Hermes')
    neighbours = ["search", "web_search", "file_search", "tools", "tool_schema"]
    siblings = list(dict.fromkeys(w for key in owned for w in [*misspellings(key), *neighbours] if w not in owned))
    compat_rows = [
        (
            w,
            difflib_hint(w, owned, cutoff=0.8),
            next(iter(close_names(w, owned, limit=1, min_score=80.0, endings_first=False, whole=True)), None),
        )
        for w in siblings
    ]
    changed = sum(a != b for _, a, b in settings_rows)
    lines = [
        '# Settings\' "did you mean" before (difflib) and now (the one suggester, `toolscout._close`)',
        "",
        f"{len(known)} top-level keys, {len(written)} misspellings, {changed} suggestions changed "
        "(`none`: the error lists every known key instead).",
        "",
        *table(settings_rows),
        "",
        "## Another system's block (`compat`: a sibling close to a key it owns is refused as a typo)",
        "",
        f"Owned: {', '.join(owned)}; {len(siblings)} siblings (their misspellings and {', '.join(neighbours)}), "
        f"{sum(a != b for _, a, b in compat_rows)} changed. Before: difflib, cutoff 0.8; now: whole-name `ratio`"
        " from 80, in any case (`none`: not refused).",
        "",
        *table(compat_rows),
    ]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "close_names_config.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:3]))
    print(lines[-len(table(compat_rows)) - 2])


if __name__ == "__main__":
    main()
