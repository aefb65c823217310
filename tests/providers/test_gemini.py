import pytest
from google.genai import types

from toolscout import ConfigError, ScoutSettings, ToolScout, ToolSpec
from toolscout.providers import gemini
from toolscout.providers._calls import dispatch_call

pytestmark = pytest.mark.anyio


def test_declarations_carry_json_schema_and_gemini_keeps_dotted_names(make_scout):
    rendering = gemini.render(make_scout("reveal").session("s"))
    [tool] = rendering.fields["tools"]
    assert [item["name"] for item in tool["functionDeclarations"]] == ["terminal", "tool_search"]
    assert tool["functionDeclarations"][0]["parametersJsonSchema"]["required"] == ["command"]
    assert rendering.names["weather.forecast"] == "weather.forecast"
    types.Tool.model_validate(tool)
    types.Content.model_validate({"role": "user", **rendering.fields["systemInstruction"]})


def test_native_style_is_refused(make_scout):
    with pytest.raises(ConfigError):
        gemini.render(make_scout().session("s"), style="native")


def test_more_declarations_than_the_vertex_cap_is_a_clear_error():
    tools = [ToolSpec(name=f"t{index}", description="x", defer="never") for index in range(130)]
    session = ToolScout(tools, settings=ScoutSettings(mode="on")).session("s")
    with pytest.raises(ConfigError) as error:
        gemini.render(session)
    assert error.value.key == "max_declarations" and "130 function declarations" in str(error.value)
    assert len(gemini.render(session, max_declarations=None).fields["tools"][0]["functionDeclarations"]) == 130


async def test_function_calls_round_trip_into_function_responses(make_scout):
    session = make_scout().session("s")
    rendering = gemini.render(session)
    response = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Let me check."},
                        {
                            "functionCall": {
                                "id": "fc1",
                                "name": "tool_call",
                                "args": {"name": "weather.forecast", "arguments": {"city": "Oslo"}},
                            }
                        },
                        {"functionCall": {"name": "nope", "args": {}}},
                    ],
                }
            }
        ]
    }
    types.GenerateContentResponse.model_validate(response)
    ok, bad = gemini.parse_calls(response, rendering.names)
    first = gemini.format_result(await dispatch_call(session, ok, rendering.names), ok, rendering)
    second = gemini.format_result(await dispatch_call(session, bad, rendering.names), bad, rendering)
    assert first == {
        "functionResponse": {"name": "tool_call", "response": {"output": "Oslo: sunny, 21 °C"}, "id": "fc1"}
    }
    assert second["functionResponse"]["response"]["error"]["code"] == "unknown_tool"
    types.Content.model_validate({"role": "user", "parts": [first, second]})
    assert gemini.answer_text(response) == "Let me check."
