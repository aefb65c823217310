"""Which settings errors' "did you mean" changed when the settings took the model-facing suggester (issue 38).

The settings used difflib (``get_close_matches``, cutoff 0.6); every caller now uses `toolscout._close`
(names that end with what was written first, then rapidfuzz ``WRatio`` >= 60, as the unknown-tool answers
always did). Over every key of `GatewaySettings` (which holds `ScoutSettings`'), this writes each misspelling
of four kinds (one letter dropped, two letters swapped, a word left off, written in upper case or with
hyphens) and lists those whose suggestion differs: the key named in the error, before and now.

    .venv/bin/python bench/close_names_config.py     # -> results/close_names_config.md
"""

from __future__ import annotations

import difflib
from pathlib import Path

from toolscout._close import did_you_mean
from toolscout.gateway import GatewaySettings

RESULTS = Path(__file__).resolve().parent / "results"


def misspellings(key: str) -> list[str]:
    """The misspellings of `key` this comparison writes."""
    parts = key.split("_")
    dropped = [key[:i] + key[i + 1 :] for i in range(len(key))]
    swapped = [key[:i] + key[i + 1] + key[i] + key[i + 2 :] for i in range(len(key) - 1)]
    left_off = ["_".join(parts[1:]), "_".join(parts[:-1]), parts[-1]] if len(parts) > 1 else []
    return [*dropped, *swapped, *left_off, key.replace("_", "-"), key.upper()]


def difflib_hint(written: str, known: list[str]) -> str | None:
    """What the settings suggested before."""
    close = difflib.get_close_matches(written, known, n=1, cutoff=0.6)
    return close[0] if close else None


def main() -> None:
    known = sorted(GatewaySettings.model_fields)
    written = [w for key in known for w in misspellings(key) if w and w not in known]
    written = list(dict.fromkeys(written))
    changed = [(w, difflib_hint(w, known), did_you_mean(w, known)) for w in written]
    changed = [row for row in changed if row[1] != row[2]]
    lines = [
        '# Settings\' "did you mean" before (difflib) and now (the one suggester, `toolscout._close`)',
        "",
        f"{len(known)} top-level keys, {len(written)} misspellings, {len(changed)} suggestions changed "
        "(`none`: the error lists every known key instead).",
        "",
        "| written | before | now |",
        "|---|---|---|",
        *(f"| `{w}` | {f'`{a}`' if a else 'none'} | {f'`{b}`' if b else 'none'} |" for w, a, b in changed),
    ]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "close_names_config.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines[:3]))


if __name__ == "__main__":
    main()
