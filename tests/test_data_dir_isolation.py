"""Every test keeps the gateway's files (sessions, learned pairs) in a data dir of its own."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from toolscout.gateway import GatewaySettings

_seen: list[Path] = []


def _store() -> Path:
    return Path(GatewaySettings().usage_store_spec())


def test_the_default_store_is_in_a_folder_of_this_test_not_the_users() -> None:
    store = _store()
    assert store.is_relative_to(tempfile.gettempdir())
    assert not store.is_relative_to(Path.home())
    _seen.append(store.parent)


def test_a_second_test_gets_another_folder() -> None:
    if not _seen:
        pytest.skip("compares with the test above, which did not run")
    assert _store().parent not in _seen
