"""Provider adapters behind one contract: the built-ins are registered, and a new one is one registration away."""

from __future__ import annotations

import importlib
import inspect
import json
from typing import Any

import pytest
from click.testing import CliRunner

from toolscout import ConfigError
from toolscout.cli import main
from toolscout.providers import (
    NameMap,
    ProviderAdapter,
    ProviderCall,
    choose_style,
    dispatch_call,
    get_provider,
    register_provider,
)
from toolscout.providers._internal import Adapter, Rendering, build_surface, name_map, provider_names
from toolscout.providers._names import OPENAI_NAMES


def test_the_four_built_in_providers_are_registered_under_their_api_names() -> None:
    assert set(provider_names()) >= {"openai-chat", "openai-responses", "anthropic", "gemini"}
    adapters: list[ProviderAdapter] = [get_provider(name) for name in provider_names()]
    assert [adapter.name for adapter in adapters] == list(provider_names())


def test_an_unknown_provider_is_an_error_listing_the_registered_ones() -> None:
    with pytest.raises(ConfigError, match="use one of: openai-chat"):
        get_provider("mistral")


def toy_render(session: Any, *, style: Any = None) -> Rendering[Any]:
    """A minimal provider: the tools array as a list of names, the guidance as a string."""
    names = name_map(session, OPENAI_NAMES)
    surface = build_surface(session, style or session.scout.settings.style)
    tools = [*surface.head, *surface.bridge, *surface.loaded]
    guidance = surface.assembly.guidance
    fields = {"tools": [names.to_provider(tool.name) for tool in tools], "system": guidance}
    return Rendering(
        provider="toy", style=surface.style, search=None, fields=fields, guidance=guidance, names=names, surface=surface
    )


def toy_calls(response: object, names: NameMap) -> list[ProviderCall]:
    calls: list[dict[str, Any]] = response["calls"]
    return [
        ProviderCall(name=names.to_tool(c["name"]), provider_name=c["name"], arguments=c["args"], call_id=None)
        for c in calls
    ]


TOY = Adapter(
    name="toy",
    names=OPENAI_NAMES,
    native_search=(),
    supports_native=lambda model: False,
    renderer=toy_render,
    parse_calls=toy_calls,
    format_result=lambda outcome, call, rendering: outcome.to_text(),
    answer_text=lambda response: str(response),
)


def test_a_registered_adapter_is_usable_by_the_render_cli_and_choose_style() -> None:
    register_provider(TOY)
    result = CliRunner().invoke(main, ["render", "sample", "--provider", "toy", "--style", "bridge", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["tools"][-3:] == ["tool_search", "tool_describe", "tool_call"]
    assert choose_style("gpt-5.5", "toy").style == "bridge"
    with pytest.raises(ConfigError, match="toy has no native tool search"):
        choose_style("gpt-5.5", "toy", override="native")


@pytest.mark.anyio
@pytest.mark.parametrize("provider", ["openai-chat", "openai-responses", "anthropic", "gemini"])
async def test_every_provider_module_formats_a_result_from_the_rendering(provider: str, make_scout: Any) -> None:
    """One signature for every adapter: ``module.format_result(outcome, call, rendering)``, as registered."""
    module = importlib.import_module(f"toolscout.providers.{provider.replace('-', '_')}")
    adapter = get_provider(provider)
    assert adapter.format_result is module.format_result
    assert list(inspect.signature(module.format_result).parameters) == ["outcome", "call", "rendering"]
    session = make_scout().session("s")
    rendering = adapter.render(session, style="bridge")
    call = ProviderCall(name="tool_search", provider_name="tool_search", arguments={"query": "weather"}, call_id="c1")
    outcome = await dispatch_call(session, call, rendering.names)
    assert rendering.names.to_provider("weather.forecast") in json.dumps(module.format_result(outcome, call, rendering))


@pytest.mark.parametrize(
    ("provider", "message"),
    [
        ("anthropic", "must be 'hybrid', 'bm25' or 'regex', got 'fast'"),
        ("openai-responses", "must be 'hosted' or 'client', got 'fast'"),
    ],
)
def test_a_module_render_refuses_an_unknown_search_variant_naming_the_valid_ones(
    provider: str, message: str, make_scout: Any
) -> None:
    module = importlib.import_module(f"toolscout.providers.{provider.replace('-', '_')}")
    with pytest.raises(ConfigError, match=message):
        module.render(make_scout().session("s"), search="fast")


@pytest.mark.parametrize("provider", ["openai-chat", "gemini"])
def test_an_api_without_native_search_refuses_the_native_style(provider: str, make_scout: Any) -> None:
    adapter = get_provider(provider)
    assert adapter.native_search == () and not adapter.supports_native("gpt-5.5")
    with pytest.raises(ConfigError, match="no native tool search"):
        adapter.render(make_scout().session("s"), style="native")
