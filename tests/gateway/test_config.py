from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolscout._errors import ConfigError
from toolscout.gateway._config._model import GatewayConfig, HttpServer, StdioServer, load_config

JSON_CONFIG = {
    "mcpServers": {
        "github": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-github"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${TS_TEST_TOKEN}"},
        },
        "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TS_TEST_TOKEN}"}},
    },
    "toolscout": {"style": "reveal", "call_timeout_s": 5, "pinned": ["github__get_*"], "mode": True},
}

TOML_CONFIG = """
[mcpServers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "${TS_TEST_TOKEN}" }

[mcpServers.remote]
url = "https://mcp.example.com/mcp"
headers = { Authorization = "Bearer ${TS_TEST_TOKEN}" }

[toolscout]
style = "reveal"
call_timeout_s = 5
pinned = ["github__get_*"]
mode = true
"""


@pytest.fixture(autouse=True)
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TS_TEST_TOKEN", "s3cret-value")
    monkeypatch.delenv("TS_TEST_UNSET", raising=False)
    return "s3cret-value"


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def check_loaded(config: GatewayConfig) -> None:
    github, remote = config.servers["github"], config.servers["remote"]
    assert isinstance(github, StdioServer) and isinstance(remote, HttpServer)
    assert github.command == "npx"
    assert github.args == ("-y", "@modelcontextprotocol/server-github")
    assert github.plain_env() == {"GITHUB_PERSONAL_ACCESS_TOKEN": "s3cret-value"}
    assert remote.plain_headers() == {"Authorization": "Bearer s3cret-value"}
    assert config.settings.style == "reveal"
    assert config.settings.call_timeout_s == 5
    assert config.settings.never_defer == ("github__get_*",)
    assert config.settings.mode == "auto"


def test_a_json_mcp_servers_file_loads_with_env_expanded(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "servers.json", json.dumps(JSON_CONFIG)))
    check_loaded(config)
    assert config.source == tmp_path / "servers.json"


def test_a_toml_file_with_the_same_keys_loads_the_same(tmp_path: Path) -> None:
    check_loaded(load_config(write(tmp_path, "gateway.toml", TOML_CONFIG)))


def test_defaults_apply_when_the_toolscout_section_is_absent() -> None:
    config = GatewayConfig.from_mapping({"mcpServers": {"time": {"command": "mcp-server-time"}}})
    settings = config.settings
    assert (settings.separator, settings.call_timeout_s, settings.style, settings.mode) == ("__", 60, "bridge", "auto")
    assert settings.never_defer == ()
    assert settings.connect_timeout_s > 0


def test_server_order_is_file_order() -> None:
    names = ["zeta", "alpha", "mid"]
    config = GatewayConfig.from_mapping({"mcpServers": {name: {"command": "x"} for name in names}})
    assert list(config.servers) == names


def test_a_default_is_used_when_the_variable_is_unset_or_empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TS_TEST_EMPTY", "")
    config = GatewayConfig.from_mapping(
        {"mcpServers": {"a": {"command": "x", "args": ["${TS_TEST_UNSET:-fallback}", "${TS_TEST_EMPTY:-also}"]}}}
    )
    assert config.servers["a"].args == ("fallback", "also")


def test_an_escaped_dollar_brace_stays_literal() -> None:
    config = GatewayConfig.from_mapping({"mcpServers": {"a": {"command": "x", "args": ["$${TS_TEST_TOKEN}"]}}})
    assert config.servers["a"].args == ("${TS_TEST_TOKEN}",)


def test_variables_are_expanded_inside_longer_strings() -> None:
    config = GatewayConfig.from_mapping({"mcpServers": {"a": {"url": "https://h/mcp?k=${TS_TEST_TOKEN}&v=1"}}})
    assert config.servers["a"].url == "https://h/mcp?k=s3cret-value&v=1"


def test_secrets_never_show_in_repr_str_or_dumps(token: str) -> None:
    config = GatewayConfig.from_mapping(JSON_CONFIG)
    for text in (repr(config), str(config), config.model_dump_json(), repr(config.servers["github"])):
        assert token not in text
    assert "GITHUB_PERSONAL_ACCESS_TOKEN" in repr(config)


def test_an_error_never_echoes_a_secret(token: str) -> None:
    bad = {"mcpServers": {"a": {"command": "x", "env": {"K": "${TS_TEST_TOKEN}", "N": 5}}}}
    with pytest.raises(ConfigError) as caught:
        GatewayConfig.from_mapping(bad)
    assert caught.value.key == "mcpServers.a.env.N"
    assert token not in str(caught.value)


def test_relative_cwd_and_command_paths_resolve_from_the_config_folder(tmp_path: Path) -> None:
    content = {
        "mcpServers": {
            "local": {"cwd": "..", "command": "bin/server", "args": ["data"]},
            "plain": {"command": "npx"},
            "nocwd": {"command": "./run.sh"},
        }
    }
    (tmp_path / "conf").mkdir()
    config = load_config(write(tmp_path / "conf", "servers.json", json.dumps(content)))
    local, plain, nocwd = (config.servers[name] for name in ("local", "plain", "nocwd"))
    assert isinstance(local, StdioServer) and isinstance(plain, StdioServer) and isinstance(nocwd, StdioServer)
    assert local.cwd == tmp_path.resolve()
    assert local.command == str(tmp_path.resolve() / "bin" / "server")
    assert local.args == ("data",)  # arguments are the server's business
    assert plain.command == "npx" and plain.cwd is None  # looked up on PATH
    assert nocwd.command == str(tmp_path.resolve() / "conf" / "run.sh")


def test_vs_code_servers_key_and_client_only_keys_are_accepted() -> None:
    config = GatewayConfig.from_mapping(
        {
            "servers": {
                "a": {"type": "stdio", "command": "x", "autoApprove": []},
                "b": {"type": "http", "url": "http://h/m"},
            },
            "inputs": [],
        }
    )
    assert isinstance(config.servers["a"], StdioServer) and isinstance(config.servers["b"], HttpServer)


def test_disabled_servers_are_kept_but_not_enabled() -> None:
    config = GatewayConfig.from_mapping(
        {"mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "disabled": True}}}
    )
    assert list(config.servers) == ["a", "b"]
    assert list(config.enabled_servers()) == ["a"]


def test_unrelated_top_level_keys_are_not_expanded() -> None:
    config = GatewayConfig.from_mapping({"mcpServers": {"a": {"command": "x"}}, "other": "${TS_TEST_UNSET}"})
    assert list(config.servers) == ["a"]


OK = {"command": "x"}


@pytest.mark.parametrize(
    ("data", "key", "fix"),
    [
        ({}, "mcpServers", "add at least one server"),
        ({"mcpServers": {}}, "mcpServers", "add at least one server"),
        ({"mcpServers": []}, "mcpServers", "add at least one server"),
        ({"mcpServers": {"gh__x": OK}}, "mcpServers.gh__x", "separator"),
        ({"mcpServers": {"gh __x": OK}}, "mcpServers.gh __x", "namespace 'gh-__x' contains the separator"),
        ({"mcpServers": {" ": OK}}, "mcpServers. ", "non-empty, printable"),
        ({"mcpServers": {"a\nb": OK}}, "mcpServers.a\nb", "non-empty, printable"),
        ({"mcpServers": {"Ant Design": OK, "Ant-Design": OK}}, "mcpServers.Ant-Design", "as server 'Ant Design'"),
        ({"mcpServers": {"a": "npx"}}, "mcpServers.a", "must be an object"),
        ({"mcpServers": {"a": {}}}, "mcpServers.a", "neither 'command' nor 'url'"),
        ({"mcpServers": {"a": {"command": "x", "url": "http://h"}}}, "mcpServers.a", "both 'command' and 'url'"),
        ({"mcpServers": {"a": {"command": 3}}}, "mcpServers.a.command", "must be a string"),
        ({"mcpServers": {"a": {"command": ""}}}, "mcpServers.a.command", "must not be empty"),
        ({"mcpServers": {"a": {"command": "x", "args": "-y"}}}, "mcpServers.a.args", "must be a list"),
        ({"mcpServers": {"a": {"command": "x", "args": ["ok", 2]}}}, "mcpServers.a.args[1]", "must be a string"),
        ({"mcpServers": {"a": {"command": "x", "env": []}}}, "mcpServers.a.env", "must be an object"),
        ({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}, "mcpServers.a.env.K", "quote it"),
        (
            {"mcpServers": {"a": {"command": "x", "env": {"K": "${TS_TEST_UNSET}"}}}},
            "mcpServers.a.env.K",
            "TS_TEST_UNSET",
        ),
        ({"mcpServers": {"a": {"command": "x", "comand": "y"}}}, "mcpServers.a.comand", "unknown setting"),
        ({"mcpServers": {"a": {"command": "x", "disabled": "no"}}}, "mcpServers.a.disabled", "true or false"),
        ({"mcpServers": {"a": {"url": "ftp://h"}}}, "mcpServers.a.url", "http:// or https://"),
        ({"mcpServers": {"a": {"url": "http://h", "headers": {"A": 1}}}}, "mcpServers.a.headers.A", "must be a string"),
        ({"mcpServers": {"a": {"type": "sse", "url": "http://h"}}}, "mcpServers.a.type", "Streamable HTTP"),
        ({"mcpServers": {"a": {"type": "ws", "url": "http://h"}}}, "mcpServers.a.type", "'stdio' or 'http'"),
        ({"mcpServers": {"a": OK}, "toolscout": []}, "toolscout", "must be an object"),
        ({"mcpServers": {"a": OK}, "toolscout": {"stlye": "bridge"}}, "toolscout.stlye", "did you mean 'style'"),
        ({"mcpServers": {"a": OK}, "toolscout": {"style": "bold"}}, "toolscout.style", "'bridge' or 'reveal'"),
        ({"mcpServers": {"a": OK}, "toolscout": {"mode": "sometimes"}}, "toolscout.mode", "'auto', 'on' or 'off'"),
        ({"mcpServers": {"a": OK}, "toolscout": {"call_timeout_s": 0}}, "toolscout.call_timeout_s", "greater than 0"),
        ({"mcpServers": {"a": OK}, "toolscout": {"call_timeout_s": "1m"}}, "toolscout.call_timeout_s", "a number"),
        ({"mcpServers": {"a": OK}, "toolscout": {"connect_timeout_s": -1}}, "toolscout.connect_timeout_s", "than 0"),
        ({"mcpServers": {"a": OK}, "toolscout": {"separator": ""}}, "toolscout.separator", "1-8 characters"),
        ({"mcpServers": {"a": OK}, "toolscout": {"separator": "a b"}}, "toolscout.separator", "1-8 characters"),
        ({"mcpServers": {"a": OK}, "toolscout": {"pinned": "time__*"}}, "toolscout.pinned", "must be a list"),
        ({"mcpServers": {"a": OK}, "toolscout": {"pinned": [" "]}}, "toolscout.pinned[0]", "must not be blank"),
        ({"mcpServers": {"a": OK}, "toolscout": {"pinned": ["${TS_TEST_UNSET}"]}}, "toolscout.pinned[0]", "export it"),
        ({"mcpServers": {"a": OK}, "toolscout": {"port": 70000}}, "toolscout.port", "at most 65535"),
        ({"mcpServers": {"a": OK}, "toolscout": {"port": "http"}}, "toolscout.port", "whole number"),
        ({"mcpServers": {"a": OK}, "toolscout": {"store": ""}}, "toolscout.store", "must not be empty"),
        ({"mcpServers": {"a": OK}, "toolscout": {"restart_backoff_s": 0}}, "toolscout.restart_backoff_s", "than 0"),
        ({"mcpServers": {"a": OK}, "toolscout": {"auth": {"tokens": {}}}}, "toolscout.auth.tokens", "not be empty"),
        (
            {"mcpServers": {"a": OK}, "toolscout": {"auth": {"tokens": {"t": {}}}}},
            "toolscout.auth.tokens.t.token",
            "required",
        ),
        (
            {"mcpServers": {"a": OK}, "toolscout": {"auth": {"tokens": {"t": {"token": "short"}}}}},
            "toolscout.auth.tokens.t.token",
            "at least 16 characters",
        ),
        (
            {"mcpServers": {"a": OK}, "toolscout": {"auth": {"tokens": {"t": {"token": "x" * 16, "servers": ["b"]}}}}},
            "toolscout.auth.tokens.t.servers[0]",
            "unknown server 'b'; use one of: a",
        ),
        (
            {"mcpServers": {"a": OK}, "toolscout": {"auth": {"tokens": {"t": {"token": "x" * 16, "scope": []}}}}},
            "toolscout.auth.tokens.t.scope",
            "unknown setting",
        ),
        (
            {
                "mcpServers": {"a": OK},
                "toolscout": {"auth": {"tokens": {"t": {"token": "x" * 16}, "u": {"token": "x" * 16}}}},
            },
            "toolscout.auth.tokens",
            "same token",
        ),
    ],
)
def test_every_invalid_setting_names_its_key_and_the_fix(data: dict[str, object], key: str, fix: str) -> None:
    with pytest.raises(ConfigError) as caught:
        GatewayConfig.from_mapping(data)
    assert caught.value.key == key
    assert fix in str(caught.value)


def test_a_separator_change_moves_the_name_check_with_it() -> None:
    config = GatewayConfig.from_mapping({"mcpServers": {"gh__x": OK}, "toolscout": {"separator": "."}})
    assert list(config.servers) == ["gh__x"]


@pytest.mark.parametrize(
    ("name", "content", "fix"),
    [
        ("bad.json", '{"mcpServers": {', "invalid JSON at line 1"),
        ("dup.json", '{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}', "'a' appears twice"),
        ("list.json", "[]", '"mcpServers" key'),
        ("bad.toml", "[mcpServers.a\ncommand = 1", "invalid TOML"),
    ],
)
def test_unreadable_files_name_the_file_and_the_fault(tmp_path: Path, name: str, content: str, fix: str) -> None:
    path = write(tmp_path, name, content)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.key == str(path)
    assert fix in str(caught.value)


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_config(tmp_path / "absent.json")


def test_a_relative_store_path_resolves_from_the_config_folder_and_urls_stay_as_they_are(tmp_path: Path) -> None:
    data = {"mcpServers": {"a": OK}, "toolscout": {"store": "state/sessions.db"}}
    config_file = tmp_path / "gw.json"
    config_file.write_text(json.dumps(data))
    assert load_config(config_file).settings.store == str(tmp_path / "state" / "sessions.db")
    for store in ("memory", "redis://127.0.0.1:6379/0"):
        loaded = GatewayConfig.from_mapping({"mcpServers": {"a": OK}, "toolscout": {"store": store}})
        assert loaded.settings.store == store


def test_a_token_secret_from_the_environment_never_shows_in_errors_or_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TS_TEST_GATEWAY_TOKEN", "s3cret-value-0123456789")
    data = {"mcpServers": {"a": OK}, "toolscout": {"auth": {"tokens": {"ci": {"token": "${TS_TEST_GATEWAY_TOKEN}"}}}}}
    loaded = GatewayConfig.from_mapping(data)
    assert loaded.settings.auth is not None
    assert "s3cret" not in repr(loaded) and "s3cret" not in loaded.model_dump_json()
    bad = {
        "mcpServers": {"a": OK},
        "toolscout": {"auth": {"tokens": {"ci": {"token": "${TS_TEST_GATEWAY_TOKEN}", "x": 1}}}},
    }
    with pytest.raises(ConfigError) as caught:
        GatewayConfig.from_mapping(bad)
    assert "s3cret" not in str(caught.value)


def test_scope_and_grants_name_servers_loosely_and_server_tool_patterns_name_upstream_tools() -> None:
    data = {
        "mcpServers": {"google-sheets": OK, "github": OK},
        "toolscout": {
            "scope": {"servers": ["Google_Sheets"], "tools": ["github:create_*", "github:*", "x*"], "deny": ["*:y"]},
            "auth": {"tokens": {"t": {"token": "x" * 16, "servers": ["github"], "tools": ["google-sheets:get"]}}},
        },
    }
    settings = GatewayConfig.from_mapping(data).settings
    assert settings.scope.servers == ("google-sheets",)
    assert settings.scope.tools == ("github:github__create_*", "github:*", "x*")
    assert settings.scope.deny == ("*:y",)
    assert settings.auth is not None
    grant = settings.auth.section("tokens")["t"]
    assert grant.servers == ("github",) and grant.tools == ("google-sheets:google-sheets__get",)


@pytest.mark.parametrize(
    ("scope", "key", "fix"),
    [
        ({"servers": ["githb"]}, "toolscout.scope.servers[0]", "unknown server 'githb'; did you mean 'github'?"),
        ({"tools": ["gitlab:*"]}, "toolscout.scope.tools[0]", "did you mean 'github'?"),
        ({"servers": "github"}, "toolscout.scope.servers", "must be a list"),
        ({"server": ["github"]}, "toolscout.scope.server", "did you mean 'servers'?"),
    ],
)
def test_a_scope_naming_an_unknown_server_is_an_error_naming_the_closest(scope: object, key: str, fix: str) -> None:
    with pytest.raises(ConfigError) as caught:
        GatewayConfig.from_mapping({"mcpServers": {"github": OK}, "toolscout": {"scope": scope}})
    assert caught.value.key == key
    assert fix in str(caught.value)


@pytest.mark.parametrize(
    ("name", "namespace"),
    [
        ("github", "github"),
        ("google-sheets_v2", "google-sheets_v2"),
        ("Ant Design Components", "Ant-Design-Components"),
        ("Café Tools", "Cafe-Tools"),
        ("my.server", "my-server"),
        ("-lead", "lead"),
        ("My  -- Server!", "My-Server"),
        ("日本語", "server-77710aed"),
        ("日本語 tools", "tools-0bb94d74"),
        ("a" * 65, "a" * 55 + "-635361c4"),
    ],
)
def test_any_server_name_gets_a_namespace_that_providers_accept(name: str, namespace: str) -> None:
    from toolscout.providers._internal import ANTHROPIC_NAMES, GEMINI_NAMES, OPENAI_NAMES

    config = GatewayConfig.from_mapping({"mcpServers": {name: OK}})
    assert list(config.servers) == [namespace]
    assert config.labels == ({} if name == namespace else {namespace: name})
    assert len(namespace) <= 64
    for rules in (OPENAI_NAMES, ANTHROPIC_NAMES, GEMINI_NAMES):  # what "namespace__tool" puts in a tool name
        assert rules.accepts(f"_{namespace[:40]}__tool"), rules.label


def test_settings_name_a_server_by_its_name_as_written_or_its_namespace() -> None:
    data = {
        "mcpServers": {"Ant Design Components": OK, "Time Server": OK},
        "toolscout": {"scope": {"servers": ["Ant Design Components"], "tools": ["Time-Server:get_*"]}},
    }
    scope = GatewayConfig.from_mapping(data).settings.scope
    assert scope.servers == ("Ant-Design-Components",)
    assert scope.tools == ("Time-Server:Time-Server__get_*",)
