"""`redact`: credentials in URLs, bearer credentials and registered secret values never survive it."""

from __future__ import annotations

from urllib.parse import quote

from toolscout._redact import add_secrets, names_a_secret, redact


def test_url_userinfo_and_every_query_value_are_hidden_but_the_keys_and_host_stay() -> None:
    text = "cannot reach https://alice:pa55w0rd@search.example:8443/mcp?exaApiKey=k-123&tier=pro#frag: refused"
    assert redact(text) == "cannot reach https://***@search.example:8443/mcp?exaApiKey=***&tier=***#frag: refused"


def test_a_url_inside_quotes_keeps_its_closing_quote() -> None:
    assert redact("for url 'http://h/v1?key=abc'") == "for url 'http://h/v1?key=***'"
    assert redact('{"url": "redis://:hunter22@redis:6379/0"}') == '{"url": "redis://***@redis:6379/0"}'


def test_bearer_and_basic_credentials_are_hidden() -> None:
    assert redact("Authorization: Bearer abc.def-123") == "Authorization: Bearer ***"
    assert redact("sent basic dXNlcjpwYXNz=") == "sent basic ***"


def test_registered_secrets_are_hidden_as_written_and_url_encoded() -> None:
    secret = "s3cr3t/value+with spaces"
    add_secrets([secret])
    assert redact(f"key {secret} and {quote(secret, safe='')} end") == "key *** and *** end"


def test_values_too_short_to_be_secrets_are_not_registered() -> None:
    add_secrets(["on", "UTC"])
    assert redact("time zone UTC is on") == "time zone UTC is on"


def test_text_without_credentials_is_unchanged() -> None:
    text = "upstream 'time': tool 'get_current_time' did not answer within 60 s (see http://127.0.0.1:8765/healthz)"
    assert redact(text) == text


def test_names_of_credentials_are_told_from_plain_names() -> None:
    secret = ["GITHUB_TOKEN", "OPENAI_API_KEY", "dbPassword", "client_secret", "ACCESSTOKEN", "GITHUB_PAT", "DB_PASS"]
    plain = ["BRANCH", "REGION", "args[0]", "MONKEY", "MEMORY_FILE_PATH", "KEYBOARD", "SESSION_ID", "compass"]
    assert [name for name in secret if not names_a_secret(name)] == []
    assert [name for name in plain if names_a_secret(name)] == []
