"""Settings sections a registration brings: ``auth.<scheme>`` and ``search_engines.<engine>``, read from config.

The schemes and engines here register after the settings models were made, as a plug-in's do.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict

from toolscout import Catalog, ConfigError, Scope, ScoutSettings, ToolSpec
from toolscout.gateway import Credentials, GatewayConfig, Grant, register_authenticator
from toolscout.gateway._identity._grants import _SCHEMES, authenticator_for
from toolscout.search import EngineOptions, IndexBuilder, SearchHit, SearchPipeline, SearchResult, register_engine
from toolscout.search._engines import _ENGINES

SERVERS = {"fruit": {"command": "x"}, "veg": {"command": "y"}}


class KeySettings(BaseModel):
    """API keys in a header (a plug-in's model: no toolscout base class)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    header: str = "x-api-key"
    keys: dict[str, str]

    def secrets(self) -> list[str]:
        return list(self.keys)


class HeaderKeys:
    challenge: dict[str, str] = {}
    routes = ()

    def __init__(self, settings: KeySettings) -> None:
        self._settings = settings

    async def authenticate(self, credentials: Credentials) -> Grant | None:
        server = self._settings.keys.get(credentials.headers.get(self._settings.header, ""))
        return (
            None
            if server is None
            else Grant(label=f"key-{server}", servers=(server,), scope=Scope.select(servers=[server]))
        )


class OrderSettings(BaseModel):
    """How the ordered engine orders tools."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    order: Literal["forward", "reverse"] = "forward"


class ByName:
    def __init__(self, catalog: Catalog, reverse: bool) -> None:
        self.fingerprint = catalog.fingerprint
        self._names = sorted((tool.name for tool in catalog), reverse=reverse)

    def search(
        self, query: str, *, limit: int = 5, mode: str = "lexical", allowed: frozenset[str] | None = None
    ) -> SearchResult:
        hits = tuple(SearchHit(name=name, score=1.0) for name in self._names[:limit])
        return SearchResult(query=query, mode="lexical", hits=hits, total=len(self._names))


def by_name(options: EngineOptions) -> IndexBuilder:
    assert isinstance(options.settings, OrderSettings)
    reverse = options.settings.order == "reverse"
    return lambda catalog: ByName(catalog, reverse)  # type: ignore[return-value]


@pytest.fixture
def registered() -> Iterator[None]:
    register_authenticator("test-apikeys", HeaderKeys, settings=KeySettings, rank=5)
    register_engine("test-by-name", by_name, settings=OrderSettings)
    try:
        yield
    finally:
        _SCHEMES.pop("test-apikeys")
        _ENGINES.pop("test-by-name")


def config(**settings: object) -> GatewayConfig:
    return GatewayConfig.from_mapping({"mcpServers": SERVERS, "toolscout": settings})


@pytest.mark.anyio
async def test_a_scheme_registered_later_is_an_auth_section_with_its_own_model(registered: None) -> None:
    auth = config(auth={"test-apikeys": {"keys": {"k-1": "fruit"}}}).settings.auth

    assert auth is not None
    section = auth.section("test-apikeys")
    assert isinstance(section, KeySettings) and section.header == "x-api-key"
    assert auth.secrets() == ["k-1"], "the plug-in's secrets are never logged"
    grant = await authenticator_for(auth.sections()).authenticate(
        Credentials(bearer=None, headers={"x-api-key": "k-1"})
    )
    assert isinstance(grant, Grant) and grant.label == "key-fruit"


@pytest.mark.parametrize(
    ("section", "key", "says"),
    [
        ({"test-apikey": {"keys": {}}}, "toolscout.auth.test-apikey", "did you mean 'test-apikeys'?"),
        ({"test-apikeys": {"keys": {}, "heder": "x"}}, "toolscout.auth.test-apikeys.heder", "did you mean 'header'?"),
        ({"test-apikeys": {"keys": ["k"]}}, "toolscout.auth.test-apikeys.keys", "must be an object"),
    ],
)
def test_a_bad_plugin_auth_section_names_its_key(
    registered: None, section: dict[str, object], key: str, says: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        config(auth=section)
    assert raised.value.key == key and says in str(raised.value)


def test_an_engine_reads_its_own_section_of_search_engines_or_its_defaults(
    registered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOOLSCOUT_SEARCH_MODE", raising=False)  # the tests' lexical default would override the file
    catalog = Catalog([ToolSpec(name=name, description="a fruit") for name in ("apples", "melons", "pears")])
    configured = ScoutSettings.from_mapping(
        {"search_mode": "test-by-name", "search_engines": {"test-by-name": {"order": "reverse"}}}
    )

    def first(settings: ScoutSettings) -> str:
        return SearchPipeline.engine(settings)(catalog).search("fruit", limit=3).hits[0].name

    assert first(configured) == "pears"
    assert first(ScoutSettings(search_mode="test-by-name")) == "apples"
    assert first(
        config(search_mode="test-by-name", search_engines={"test-by-name": {"order": "reverse"}}).settings
    ) == ("pears")


@pytest.mark.parametrize(
    ("section", "key", "says"),
    [
        ({"test-by-nam": {}}, "tool_search.search_engines.test-by-nam", "did you mean 'test-by-name'?"),
        (
            {"test-by-name": {"ordre": "reverse"}},
            "tool_search.search_engines.test-by-name.ordre",
            "did you mean 'order'?",
        ),
        ({"test-by-name": {"order": "up"}}, "tool_search.search_engines.test-by-name.order", "must be one of"),
    ],
)
def test_a_bad_engine_section_names_its_key(registered: None, section: dict[str, object], key: str, says: str) -> None:
    with pytest.raises(ConfigError) as raised:
        ScoutSettings.from_mapping({"search_engines": section})
    assert raised.value.key == key and says in str(raised.value)
