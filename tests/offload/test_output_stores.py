"""The `OffloadStore` contract on every store, and what the Redis store adds: replicas sharing outputs and caps.

Redis runs as a real `redis-server` (the `redis_url` fixture); each test writes under its own key prefix.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from toolscout import ConfigError, StoreError
from toolscout.offload import OffloadSettings, OffloadStore, OutputMissing
from toolscout.offload._internal import FileOffloadStore, is_handle, open_output_store, output_store_schemes

MIB = 1 << 20
Make = Callable[..., OffloadStore]


@pytest.fixture(params=["file", "redis"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Make]:
    opened: list[OffloadStore] = []

    def build(**caps: int) -> OffloadStore:
        store: OffloadStore
        if request.param == "redis":
            from toolscout.offload._redisstore import RedisOffloadStore

            store = RedisOffloadStore(request.getfixturevalue("redis_url"), prefix=tmp_path.name, **caps)
        else:
            store = FileOffloadStore(tmp_path / "outputs", **caps)
        opened.append(store)
        return store

    yield build
    for store in opened:
        store.close()


def put(store: OffloadStore, session: str = "s", data: bytes = b"hello", principal: str = "local") -> str:
    meta = store.put(session, data, kind="text", content_type="text/plain", tool="read_file", principal=principal)
    return meta.handle


def reason(store: OffloadStore, session: str, handle: str) -> str:
    with pytest.raises(OutputMissing) as missing:
        store.read(session, handle)
    return missing.value.reason


def test_put_returns_a_handle_whose_record_and_bytes_read_back(make: Make) -> None:
    store = make()
    meta = store.put("s", b"caf\xc3\xa9\r\n", kind="json", content_type="application/json", tool="t")
    assert is_handle(meta.handle) and meta.size == 7
    assert store.read("s", meta.handle) == b"caf\xc3\xa9\r\n"
    assert store.meta("s", meta.handle) == meta
    assert store.used("s") == 7


def test_sessions_are_sealed_and_bad_handles_never_reach_storage(make: Make) -> None:
    store = make()
    handle = put(store, session="alice")
    assert reason(store, "bob", handle) == reason(store, "bob", "out_" + "0" * 20) == "unknown"
    assert reason(store, "alice", "../" + handle) == "invalid"
    with pytest.raises(StoreError, match="session id"):
        put(store, session="")


def test_the_session_cap_evicts_the_oldest_first_and_refuses_an_output_larger_than_it(make: Make) -> None:
    store = make(session_bytes=MIB)
    first, second = put(store, data=b"a" * (MIB // 2)), put(store, data=b"b" * (MIB // 2))
    other = put(store, session="other", data=b"c" * (MIB // 2))
    third = put(store, data=b"d" * 10)
    assert reason(store, "s", first) == "expired"
    assert store.read("s", second)[:1] == b"b" and store.read("s", third) == b"d" * 10
    assert store.read("other", other)[:1] == b"c"
    with pytest.raises(StoreError, match="larger than the per-session cap"):
        put(store, data=b"x" * (MIB + 1))


def test_the_total_cap_evicts_the_oldest_output_of_any_session_of_the_same_principal(make: Make) -> None:
    store = make(session_bytes=MIB, total_bytes=2 * MIB)
    oldest = put(store, session="a", data=b"a" * (MIB - 10))
    younger = put(store, session="a", data=b"y" * 10)
    kept = put(store, session="b", data=b"b" * MIB)
    newest = put(store, session="c", data=b"c" * 10)
    assert reason(store, "a", oldest) == "expired"
    assert store.read("a", younger) == b"y" * 10
    assert store.read("b", kept)[:1] == b"b" and store.read("c", newest) == b"c" * 10


def test_a_principal_filling_the_total_never_pushes_out_another_principals_outputs(make: Make) -> None:
    store = make(session_bytes=MIB, total_bytes=2 * MIB, principal_bytes=2 * MIB)
    alice = [put(store, session="a", data=b"a" * (MIB // 2), principal="alice") for _ in range(2)]
    bobs = [put(store, session=f"b{n}", data=b"b" * (MIB // 2), principal="bob") for n in range(8)]
    assert [store.read("a", handle)[:1] for handle in alice] == [b"a", b"a"]
    # Bob made room from his own oldest outputs only.
    assert all(reason(store, f"b{n}", bobs[n]) in ("expired", "unknown") for n in range(6))
    assert store.read("b6", bobs[6])[:1] == b"b"
    assert store.read("b7", bobs[7])[:1] == b"b"


def test_a_principal_with_nothing_of_its_own_to_evict_is_refused_naming_the_total(make: Make) -> None:
    store = make(session_bytes=MIB, total_bytes=2 * MIB, principal_bytes=2 * MIB)
    alice = [put(store, session=f"a{n}", data=b"a" * MIB, principal="alice") for n in range(2)]
    with pytest.raises(StoreError, match="total_bytes"):
        put(store, session="b", data=b"b" * 10, principal="bob")
    with pytest.raises(StoreError, match="another principal"):
        put(store, session="a0", data=b"b" * 10, principal="bob")
    assert store.read("a0", alice[0])[:1] == store.read("a1", alice[1])[:1] == b"a"
    assert store.used("b") == 0


def test_a_principal_holds_at_most_its_share_its_own_oldest_output_out_first(make: Make) -> None:
    store = make(session_bytes=MIB, total_bytes=4 * MIB, principal_bytes=MIB)
    first = put(store, session="a1", data=b"1" * (MIB // 2), principal="alice")
    second = put(store, session="a2", data=b"2" * (MIB // 4), principal="alice")
    later = put(store, session="a1", data=b"l" * (MIB // 4), principal="alice")
    third = put(store, session="a3", data=b"3" * (MIB // 2), principal="alice")
    bob = put(store, session="b", data=b"b" * MIB, principal="bob")
    assert reason(store, "a1", first) == "expired"
    assert store.read("a2", second)[:1] == b"2" and store.read("a3", third)[:1] == b"3"
    assert store.read("a1", later)[:1] == b"l"
    assert store.read("b", bob)[:1] == b"b"


def test_a_principal_share_outside_session_and_total_caps_is_refused(make: Make) -> None:
    with pytest.raises(StoreError, match="principal_bytes"):
        make(session_bytes=2 * MIB, total_bytes=4 * MIB, principal_bytes=MIB)
    with pytest.raises(StoreError, match="principal_bytes"):
        make(session_bytes=MIB, total_bytes=2 * MIB, principal_bytes=4 * MIB)


def test_forget_deletes_a_session_and_only_it(make: Make) -> None:
    store = make()
    gone, kept = put(store, session="a"), put(store, session="b")
    store.forget("a")
    store.forget("never-seen")
    assert reason(store, "a", gone) == "unknown" and store.used("a") == 0
    assert store.read("b", kept) == b"hello"


def test_concurrent_puts_keep_the_session_under_its_cap(make: Make) -> None:
    store = make(session_bytes=MIB)

    def fill() -> None:
        for _ in range(8):
            put(store, data=b"x" * (MIB // 4))

    threads = [threading.Thread(target=fill) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 0 < store.used("s") <= MIB


def test_two_replicas_read_each_others_outputs_and_share_one_session_cap(
    redis_url: str, request: pytest.FixtureRequest
) -> None:
    from toolscout.offload._redisstore import RedisOffloadStore

    prefix = f"replicas-{request.node.name}"
    with (
        RedisOffloadStore(redis_url, prefix=prefix, session_bytes=MIB) as a,
        RedisOffloadStore(redis_url, prefix=prefix, session_bytes=MIB) as b,
    ):
        on_a = put(a, data=b"a" * (MIB // 2 + 1))
        assert b.read("s", on_a)[:1] == b"a" and b.meta("s", on_a).size == MIB // 2 + 1
        on_b = put(b, data=b"b" * (MIB // 2 + 1))  # the session's bytes are counted once, in Redis
        assert reason(a, "s", on_a) == reason(b, "s", on_a) == "expired"
        assert a.used("s") == b.used("s") == MIB // 2 + 1
        b.forget("s")
        assert reason(a, "s", on_b) == "unknown"


def test_replicas_count_each_principals_share_in_redis_and_a_session_dropped_frees_it(
    redis_url: str, request: pytest.FixtureRequest
) -> None:
    from toolscout.offload._redisstore import RedisOffloadStore

    prefix = f"shares-{request.node.name}"
    caps = {"session_bytes": MIB, "total_bytes": 2 * MIB, "principal_bytes": MIB}
    with (
        RedisOffloadStore(redis_url, prefix=prefix, **caps) as a,
        RedisOffloadStore(redis_url, prefix=prefix, **caps) as b,
    ):
        alice = put(a, session="a", data=b"a" * MIB, principal="alice")
        bobs = [put(replica, session=f"b{n}", data=b"b" * MIB, principal="bob") for n, replica in enumerate((a, b, a))]
        assert b.read("a", alice)[:1] == b"a" and a.read("b2", bobs[2])[:1] == b"b"
        with pytest.raises(StoreError, match="another principal"):
            put(b, session="a", principal="bob")
        b.forget("b2")  # bob's bytes go with his session: alice's share is still hers alone
        carol = put(b, session="c", data=b"c" * MIB, principal="carol")
        assert a.read("c", carol)[:1] == b"c" and a.read("a", alice)[:1] == b"a"
        assert a.total() == 2 * MIB


def test_a_session_unused_for_its_ttl_is_dropped_and_any_use_keeps_it(
    redis_url: str, request: pytest.FixtureRequest
) -> None:
    from toolscout.offload._redisstore import RedisOffloadStore

    prefix = f"ttl-{request.node.name}"
    with (
        RedisOffloadStore(redis_url, prefix=prefix, ttl_s=1.0) as a,
        RedisOffloadStore(redis_url, prefix=prefix, ttl_s=1.0) as b,
    ):
        busy, idle = put(a, session="busy"), put(a, session="idle")
        for _ in range(3):
            time.sleep(0.5)
            assert b.read("busy", busy) == b"hello"  # a read on another replica is a use too
        assert reason(b, "idle", idle) == "unknown"
        put(b, session="new")  # a store sweeps what expired: its bytes stop counting
        assert a.total() == len(b"hello") * 2


def test_closing_one_replica_keeps_the_outputs_for_the_others(redis_url: str, request: pytest.FixtureRequest) -> None:
    from toolscout.offload._redisstore import RedisOffloadStore

    prefix = f"close-{request.node.name}"
    with RedisOffloadStore(redis_url, prefix=prefix) as b:
        a = RedisOffloadStore(redis_url, prefix=prefix)
        handle = put(a)
        a.close()
        assert a.shared and b.read("s", handle) == b"hello"
        with pytest.raises(StoreError, match="closed"):
            put(a)


def test_an_unreachable_redis_is_a_store_error_naming_the_url_without_its_password() -> None:
    from tests.conftest import free_port

    settings = OffloadSettings(store=f"redis://user:secret@127.0.0.1:{free_port()}/0")
    with pytest.raises(StoreError, match="cannot reach the Redis output store") as failed:
        open_output_store(settings)
    assert "secret" not in str(failed.value) and "***" in str(failed.value)


def test_the_registry_opens_a_file_store_by_default_and_names_the_known_schemes(tmp_path: Path) -> None:
    store = open_output_store(OffloadSettings(folder=tmp_path / "out", session_bytes=2 * MIB))
    assert isinstance(store, FileOffloadStore) and store.session_bytes == 2 * MIB and not store.shared
    store.close()
    assert {"file", "redis", "rediss", "unix"} <= set(output_store_schemes())
    with pytest.raises(ConfigError, match="unknown output store 's3'") as unknown:
        open_output_store(OffloadSettings(store="s3://bucket"))
    assert unknown.value.key == "offload.store" and "redis://" in str(unknown.value)
