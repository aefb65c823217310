"""Every model-facing text, byte for byte (regenerate with ``.venv/bin/python -m tests.golden.regen_texts``)."""

from __future__ import annotations

import json

from tests.golden.regen_texts import GOLDEN, collect
from toolscout import BridgeNames, ScoutSettings, ToolScout
from toolscout._texts import Bridge, Dispatch, Guidance


def test_the_text_catalogue_is_byte_for_byte_the_golden_one() -> None:
    assert collect() == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_model_gets_the_catalogue_texts_verbatim() -> None:
    tools = [{"name": f"crm__op_{i}", "description": f"CRM operation {i}"} for i in range(40)]
    session = ToolScout(tools, settings=ScoutSettings(mode="on")).session("texts")
    turn = session.assemble()
    names = BridgeNames()
    assert turn.guidance.startswith(Guidance.bridge(names))
    assert [tool.description for tool in turn.tools] == [Bridge.SEARCH, Bridge.describe(names), Bridge.call(names)]
    refused = session.dispatch_sync("tool_call", {"name": "nope"})
    assert refused.error is not None
    assert refused.error.message == Dispatch.unknown("'nope'") and refused.error.hint == Dispatch.unknown_hint(names)
