import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolscout.providers._names import ANTHROPIC_NAMES, GEMINI_NAMES, OPENAI_NAMES, NameMap, provider_name

RULES = [ANTHROPIC_NAMES, OPENAI_NAMES, GEMINI_NAMES]

mcp_names = st.text(alphabet=st.sampled_from("abcXYZ019_-./:é "), min_size=1, max_size=128) | st.sampled_from(
    ["a.b", "a/b", "a:b", "a_b", "a-b", "x" * 128, "1start", "-dash", "server.tool/x:y"]
)


@pytest.mark.parametrize("rules", RULES, ids=lambda rules: rules.label)
@given(names=st.lists(mcp_names, max_size=12))
def test_every_name_maps_to_a_valid_unique_provider_name_and_back(rules, names):
    mapping = NameMap(names, rules)
    provider = [mapping[name] for name in set(names)]
    assert all(rules.accepts(name) for name in provider)
    assert len(set(provider)) == len(provider)
    assert all(mapping.to_tool(mapping[name]) == name for name in names)


@pytest.mark.parametrize("rules", RULES, ids=lambda rules: rules.label)
@given(name=mcp_names)
def test_the_mapping_of_a_name_does_not_depend_on_the_other_names(rules, name):
    assert (
        NameMap([name], rules)[name] == NameMap([name, "other.tool", "a_b"], rules)[name] == provider_name(name, rules)
    )


@pytest.mark.parametrize(
    ("name", "anthropic", "gemini"),
    [
        pytest.param("github__create_issue", "github__create_issue", "github__create_issue", id="valid-everywhere"),
        pytest.param("weather.forecast", "weather_forecast_", "weather.forecast", id="dot"),
        pytest.param("fs/read:file", "fs_read_file_", "fs_read:file_", id="slash-and-colon"),
        pytest.param("9lives", "9lives", "_9lives_", id="gemini-needs-a-letter-first"),
    ],
)
def test_names_change_only_where_a_provider_requires(name, anthropic, gemini):
    for rules, expected in ((ANTHROPIC_NAMES, anthropic), (GEMINI_NAMES, gemini)):
        mapped = provider_name(name, rules)
        assert (
            mapped == expected if expected == name else mapped.startswith(expected) and len(mapped) == len(expected) + 8
        )


def test_names_that_collide_after_sanitizing_stay_apart():
    mapping = NameMap(["a.b", "a/b", "a:b", "a_b"], ANTHROPIC_NAMES)
    assert mapping["a_b"] == "a_b"
    assert len({mapping[name] for name in mapping}) == 4
    assert mapping.renamed.keys() == {"a.b", "a/b", "a:b"}


def test_a_128_character_name_is_cut_to_64_with_its_hash():
    long = "server." + "x" * 121
    mapped = NameMap([long], OPENAI_NAMES)[long]
    assert len(mapped) == 64 and mapped[:55] == "server_" + "x" * 48


def test_a_valid_name_equal_to_a_hashed_name_pushes_the_hashed_one_to_a_longer_hash():
    squatter = provider_name("a.b", ANTHROPIC_NAMES)
    mapping = NameMap(["a.b", squatter], ANTHROPIC_NAMES)
    assert mapping[squatter] == squatter
    assert mapping["a.b"] != squatter and len(mapping["a.b"]) == len(squatter) + 8
    assert mapping.to_tool(mapping["a.b"]) == "a.b"


def test_unknown_provider_names_pass_through():
    assert NameMap(["a.b"], ANTHROPIC_NAMES).to_tool("never_seen") == "never_seen"
