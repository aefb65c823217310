"""Regenerate the golden model-facing texts: ``.venv/bin/python -m tests.golden.regen_texts``.

Every constant of `toolscout._texts`, and every text function called with placeholder values
(``<name>`` for strings, 123 for integers, 1.5 for floats, the default `BridgeNames`), goes into
`texts.json`; the test
compares byte for byte, so any change of wording shows up in review.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from toolscout import BridgeNames, _texts

HERE = Path(__file__).parent
GOLDEN = HERE / "texts.json"
_SAMPLES = {
    "str": lambda name: f"<{name}>",
    "int": lambda name: 123,
    "float": lambda name: 1.5,
    "BridgeNames": lambda name: BridgeNames(),
}


def collect(names: BridgeNames | None = None) -> dict[str, str]:
    """Every model-facing text, by its dotted name in the catalogue (bridge tools called `names`: default ones)."""
    samples = {**_SAMPLES, "BridgeNames": lambda name: names or BridgeNames()}
    texts: dict[str, str] = {}
    for name in _texts.__all__:
        value = getattr(_texts, name)
        if isinstance(value, str):
            texts[name] = value
            continue
        for attr, member in vars(value).items():
            if attr.startswith("_"):
                continue
            if isinstance(member, str):
                texts[f"{name}.{attr}"] = member
            elif isinstance(member, staticmethod):
                function = member.__func__
                arguments = {
                    param: samples[str(spec.annotation)](param)
                    for param, spec in inspect.signature(function).parameters.items()
                }
                texts[f"{name}.{attr}"] = function(**arguments)
    return texts


def main() -> None:
    """Rewrite the golden file."""
    GOLDEN.write_text(json.dumps(collect(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
