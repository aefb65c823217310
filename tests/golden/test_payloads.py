"""First-turn payloads per provider and style over a fixed real catalog, byte for byte.

A difference means what models are sent has changed: if that is intended, regenerate with
``.venv/bin/python -m tests.golden.regen`` and review the diff.
"""

from __future__ import annotations

import json

import pytest

from tests.golden.regen import CASES, HERE, golden_name, render


@pytest.mark.parametrize(("provider", "style", "extra"), CASES, ids=[golden_name(*case) for case in CASES])
def test_the_first_turn_payload_is_byte_for_byte_the_golden_one(provider, style, extra) -> None:
    golden = (HERE / golden_name(provider, style, extra)).read_text(encoding="utf-8")
    assert render(provider, style, extra) == golden


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic", "gemini"])
@pytest.mark.parametrize("style", ["bridge", "reveal"])
def test_later_turns_keep_the_first_turns_tools_as_a_byte_identical_prefix(provider, style, tmp_path) -> None:
    first = json.loads(render(provider, style, ()))
    session = tmp_path / "session.json"
    session.write_text(json.dumps(["git__git_status", "time__get_current_time", "memory__read_graph"]))
    later = json.loads(render(provider, style, ("--session", str(session))))
    before, after = first["tools"], later["tools"]
    if provider == "gemini":  # one tool object holding every declaration
        before, after = before[0]["functionDeclarations"], after[0]["functionDeclarations"]
    assert json.dumps(after[: len(before)]) == json.dumps(before)
    # bridge style reaches discovered tools through tool_call: its array never changes
    assert len(after) == len(before) + (3 if style == "reveal" else 0)


def test_every_registered_provider_has_golden_payloads_in_bridge_style() -> None:
    from toolscout.providers._internal import provider_names

    pinned = {provider for provider, style, _ in CASES if style == "bridge"}
    assert pinned == set(provider_names()), "add the provider's cases to tests/golden/regen.py and regenerate"
