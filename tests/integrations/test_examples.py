"""Each framework example runs offline end to end with its scripted model and reaches the real time tool."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.mark.parametrize(
    ("example", "framework"),
    [("pydantic_ai_agent", "pydantic_ai"), ("openai_agents_agent", "agents"), ("langgraph_agent", "langgraph")],
)
def test_the_example_searches_and_runs_the_time_tool(example, framework, monkeypatch, capsys) -> None:
    pytest.importorskip(framework, reason=f"the {framework} extra is not installed")
    monkeypatch.syspath_prepend(str(EXAMPLES))
    spec = importlib.util.spec_from_file_location(example, EXAMPLES / f"{example}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    assert module.main([]) == 0
    captured = capsys.readouterr()
    assert "tool_search" in captured.err
    assert "(Asia/Tokyo)" in captured.out + captured.err
