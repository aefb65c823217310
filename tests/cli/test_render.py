import json

import pytest
from click.testing import CliRunner

from toolscout import SqliteStore
from toolscout.cli import main

PROVIDERS = ["openai-chat", "openai-responses", "anthropic", "gemini"]


def _render(*args):
    return CliRunner().invoke(main, ["render", *args])


def _tool_names(provider, fields):
    tools = fields["tools"]
    if provider == "gemini":
        return [item["name"] for item in tools[0]["functionDeclarations"]]
    if provider == "openai-chat":
        return [tool["function"]["name"] for tool in tools]
    return [tool.get("name", tool.get("type")) for tool in tools]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("style", ["bridge", "reveal", "native"])
def test_every_provider_and_style_renders_or_says_why_not(provider, style):
    result = _render("sample", "--provider", provider, "--style", style, "--json")
    if style == "native" and provider in ("openai-chat", "gemini"):
        assert result.exit_code == 1 and "no native tool search" in result.output
        return
    assert result.exit_code == 0, result.output
    fields = json.loads(result.output)
    names = _tool_names(provider, fields)
    assert names[:2] == ["read_file", "run_terminal_command"]
    assert "tool_search" in names
    assert (
        set(fields) - {"tools"}
        == {
            "openai-chat": {"messages"},
            "openai-responses": {"instructions"},
            "anthropic": {"system"},
            "gemini": {"systemInstruction"},
        }[provider]
    )


def test_auto_style_follows_the_model():
    native = _render("sample", "--provider", "anthropic", "--model", "claude-opus-4-8")
    assert native.exit_code == 0
    assert native.output.startswith("# anthropic, style native (hybrid): claude-opus-4-8 supports native tool search")
    assert "131 deferred" in native.output
    client = _render("sample", "--provider", "openai-responses", "--model", "gpt-4.1")
    assert "style bridge: gpt-4.1 is not known to support native tool search" in client.output


def test_a_json_session_file_adds_its_discoveries(tmp_path):
    session = tmp_path / "session.json"
    session.write_text(json.dumps({"discovered": ["github__create_issue"]}), encoding="utf-8")
    reveal = json.loads(
        _render("sample", "--provider", "openai-chat", "--style", "reveal", "--session", str(session), "--json").output
    )
    assert _tool_names("openai-chat", reveal)[-1] == "github__create_issue"
    native = json.loads(
        _render("sample", "--provider", "anthropic", "--style", "native", "--session", str(session), "--json").output
    )
    carried = next(tool for tool in native["tools"] if tool.get("name") == "github__create_issue")
    assert "defer_loading" not in carried


def test_an_sqlite_session_store_is_read_by_session_id(tmp_path):
    path = tmp_path / "sessions.db"
    store = SqliteStore(path)
    store.discover("chat-7", ["slack__post_message"])
    store.close()
    args = ["sample", "--provider", "gemini", "--style", "reveal", "--session", str(path), "--json"]
    assert (
        _tool_names("gemini", json.loads(_render(*args, "--session-id", "chat-7").output))[-1] == "slack__post_message"
    )
    assert _tool_names("gemini", json.loads(_render(*args).output))[-1] == "tool_search"


def test_a_bad_session_file_is_a_one_line_error(tmp_path):
    session = tmp_path / "bad.json"
    session.write_text('{"discovered": "oops"}', encoding="utf-8")
    result = _render("sample", "--provider", "anthropic", "--session", str(session))
    assert result.exit_code == 1 and "expected a JSON list of tool names" in result.output


def test_a_search_variant_of_another_provider_is_refused():
    result = _render("sample", "--provider", "anthropic", "--style", "native", "--search", "hosted")
    assert result.exit_code == 2 and "not a search variant of anthropic" in result.output
