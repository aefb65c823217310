import threading

import pytest

from toolscout import Catalog, ToolSpec
from toolscout.search._base import SearchIndex
from toolscout.search._cache import IndexCache
from toolscout.search._index import build_index

WEATHER = Catalog([ToolSpec(name="get_weather", description="Current weather for a city.")])
MAIL = Catalog([ToolSpec(name="send_email", description="Send an email.")])


def test_cache_returns_the_same_index_for_the_same_fingerprint() -> None:
    cache = IndexCache()
    first = cache.get(WEATHER)
    again = cache.get(Catalog([ToolSpec(name="get_weather", description="Current weather for a city.")]))
    assert again is first
    assert (cache.hits, cache.misses) == (1, 1)


def test_cache_rebuilds_when_the_catalog_changes() -> None:
    cache = IndexCache()
    before = cache.get(WEATHER)
    changed = Catalog([ToolSpec(name="get_weather", description="Weather forecast for a city.")])
    after = cache.get(changed)
    assert after is not before
    assert after.fingerprint == changed.fingerprint
    assert cache.misses == 2


def test_cache_keys_include_the_builder() -> None:
    built: list[str] = []

    def counting(catalog: Catalog) -> SearchIndex:
        built.append(catalog.fingerprint)
        return build_index(catalog)

    cache = IndexCache()
    default = cache.get(WEATHER)
    custom = cache.get(WEATHER, builder=counting)
    assert custom is not default
    assert cache.get(WEATHER, builder=counting) is custom
    assert built == [WEATHER.fingerprint]


def test_cache_evicts_the_least_recently_used_index() -> None:
    cache = IndexCache(maxsize=1)
    weather = cache.get(WEATHER)
    cache.get(MAIL)
    assert len(cache) == 1
    assert cache.get(WEATHER) is not weather


def test_concurrent_lookups_build_an_index_once() -> None:
    builds: list[int] = []
    gate = threading.Event()

    def slow(catalog: Catalog) -> SearchIndex:
        builds.append(1)
        gate.wait(timeout=5)
        return build_index(catalog)

    cache = IndexCache(slow)
    results: list[SearchIndex] = []
    threads = [threading.Thread(target=lambda: results.append(cache.get(WEATHER))) for _ in range(4)]
    for thread in threads:
        thread.start()
    gate.set()
    for thread in threads:
        thread.join(timeout=10)
    assert len(builds) == 1
    assert len(results) == 4
    assert all(index is results[0] for index in results)


def test_cache_rejects_a_zero_size() -> None:
    with pytest.raises(ValueError, match="maxsize"):
        IndexCache(maxsize=0)
