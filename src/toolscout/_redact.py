"""Credentials kept out of every error, log line and page: `redact`, and the secret values it hides.

What `redact` hides, wherever it appears in a text: the userinfo of a URL (``https://***@host``),
every query value of a URL (``?key=***``), the credential after ``Bearer`` or ``Basic``, and every
value registered with `add_secrets` (as written and URL-encoded). The registry is per process, so one
config's secrets stay hidden in every later error and log line.

A registered value is hidden wherever it appears, inside other words too, so only credentials are
registered: the gateway registers its HTTP upstreams' header values, its bearer tokens, and the values
that `names_a_secret` (a stdio server's env variable such as ``GITHUB_TOKEN``, the variable of a
``${VAR}``, the key a ``${VAR}`` is written under). Registering every ``${VAR}`` value would hide a
``BRANCH=main`` in every ``domain`` of every message; a secret passed under a plain name (``--key
${GH}``) is shown, so name it like one (``${GH_TOKEN}``) or send it in a header or an env variable.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable
from urllib.parse import quote, quote_plus, urlsplit, urlunsplit

__all__ = ["MIN_SECRET_CHARS", "add_secrets", "names_a_secret", "redact", "redacted_url"]

MIN_SECRET_CHARS = 4
"""Shorter values are not registered: hiding every ``on`` or ``UTC`` would garble every message."""

_SECRET_WORDS = frozenset({"key", "pass", "pwd", "pat", "auth", "authorization", "jwt", "bearer", "signature"})
"""Words of a name that make it a secret's name on their own (``API_KEY``, ``DB_PASS``, ``GITHUB_PAT``)."""
_SECRET_PARTS = ("token", "secret", "passw", "credential", "apikey", "cookie", "private")
"""Parts of a word that make a name a secret's name wherever they are (``ACCESSTOKEN``, ``dbPassword``)."""
_WORD_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")

_MASK = "***"
_URL_RE = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<rest>[^\s'\"<>`]+)")
_CREDENTIAL_RE = re.compile(r"\b(?P<scheme>[Bb]earer|[Bb]asic)(?P<gap>\s+)[A-Za-z0-9._~+/=-]{8,}")
_TRAILING = ".,;:!?)]}"

_lock = threading.Lock()
_secrets: set[str] = set()
_secret_re: re.Pattern[str] | None = None


def add_secrets(values: Iterable[str]) -> None:
    """Hide `values` (as written, URL-encoded and JSON-escaped) from every later `redact` in this process.

    Values under `MIN_SECRET_CHARS` characters are ignored.
    """
    global _secret_re
    added = set()
    for value in values:
        if len(value) >= MIN_SECRET_CHARS:
            added |= {value, quote(value, safe=""), quote_plus(value, safe=""), json.dumps(value)[1:-1]}
    with _lock:
        if added <= _secrets:
            return
        _secrets.update(added)
        # Longest first, so a secret containing another is hidden whole.
        _secret_re = re.compile("|".join(re.escape(secret) for secret in sorted(_secrets, key=len, reverse=True)))


def names_a_secret(name: str) -> bool:
    """Whether `name` (an env variable, a ``${VAR}``, a config key) names a credential.

    ``GITHUB_TOKEN``, ``OPENAI_API_KEY``, ``dbPassword`` and ``client_secret`` do; ``BRANCH``, ``REGION`` and
    ``args[0]`` do not.
    """
    words = [word.lower() for word in _WORD_RE.findall(name)]
    return any(word in _SECRET_WORDS or any(part in word for part in _SECRET_PARTS) for word in words)


def redact(text: str) -> str:
    """`text` with URL userinfo and query values, bearer credentials and registered secrets replaced by ``***``."""
    pattern = _secret_re
    if pattern is not None:
        text = pattern.sub(_MASK, text)
    text = _URL_RE.sub(_redact_url, text)
    return _CREDENTIAL_RE.sub(lambda match: f"{match['scheme']}{match['gap']}{_MASK}", text)


def _redact_url(match: re.Match[str]) -> str:
    rest = match["rest"]
    stripped = rest.rstrip(_TRAILING)
    rest, after = stripped, rest[len(stripped) :]
    authority_end = min((index for index in map(rest.find, "/?#") if index >= 0), default=len(rest))
    authority, tail = rest[:authority_end], rest[authority_end:]
    if "@" in authority:
        authority = f"{_MASK}@{authority.rpartition('@')[2]}"
    path, mark, query = tail.partition("?")
    if mark:
        query, hash_mark, fragment = query.partition("#")
        hidden = "&".join(_hide_value(pair) for pair in query.split("&"))
        tail = f"{path}?{hidden}{hash_mark}{fragment}"
    return f"{match['scheme']}{authority}{tail}{after}"


def _hide_value(pair: str) -> str:
    key, equals, value = pair.partition("=")
    return f"{key}={_MASK}" if equals and value else pair


def redacted_url(url: str) -> str:
    """`url` without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))
