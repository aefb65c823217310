import os
import threading
from pathlib import Path

import pytest

from toolscout import StoreError
from toolscout.offload import OutputMissing
from toolscout.offload._internal import FileOffloadStore, is_handle

MIB = 1 << 20


@pytest.fixture
def store(tmp_path):
    with FileOffloadStore(tmp_path / "outputs", session_bytes=MIB) as opened:
        yield opened


def put(store, session="s", data=b"hello", kind="text"):
    return store.put(session, data, kind=kind, content_type="text/plain", tool="read_file")


def files_under(path: Path) -> set[Path]:
    return {item for item in path.rglob("*") if item.is_file()}


def test_put_returns_an_opaque_handle_and_read_returns_the_bytes(store):
    meta = put(store, data=b"caf\xc3\xa9\r\n")
    assert is_handle(meta.handle)
    assert meta.size == 7
    assert store.read("s", meta.handle) == b"caf\xc3\xa9\r\n"
    assert store.meta("s", meta.handle) == meta


def test_files_live_in_a_per_session_folder_not_named_by_the_session_id(store):
    meta = put(store, session="../../etc")
    files = files_under(store.root)
    assert {path.parent for path in files} == {next(iter(files)).parent}
    assert all(path.resolve().is_relative_to(store.root) for path in files)
    assert "etc" not in next(iter(files)).parent.name
    assert any(meta.handle in path.name for path in files)


def test_files_are_private_to_the_owner(store):
    put(store)
    assert all(os.stat(path).st_mode & 0o077 == 0 for path in files_under(store.root))


def test_another_sessions_handle_is_unknown_exactly_like_a_made_up_one(store):
    meta = put(store, session="alice")
    with pytest.raises(OutputMissing) as theirs:
        store.read("bob", meta.handle)
    with pytest.raises(OutputMissing) as made_up:
        store.read("bob", "out_" + "0" * 20)
    assert theirs.value.reason == made_up.value.reason == "unknown"
    assert str(theirs.value) == str(made_up.value)


@pytest.mark.parametrize(
    "handle",
    [
        "../outputs",
        "../../../../etc/passwd",
        "/etc/passwd",
        "out_0123456789abcdef0123/../x",
        "out_0123456789abcdef012\x00",
        "%2e%2e%2fetc%2fpasswd",
        "..%2F..%2Fetc%2Fpasswd",
        "out_0123456789abcdef0123.data",
        "",
    ],
)
def test_traversal_attempts_are_rejected_before_touching_the_disk(store, handle):
    put(store)
    with pytest.raises(OutputMissing) as info:
        store.read("s", handle)
    assert info.value.reason == "invalid"


def test_a_handle_plus_the_data_suffix_does_not_reach_the_file(store):
    meta = put(store)
    with pytest.raises(OutputMissing):
        store.read("s", meta.handle + ".data")


def test_oldest_outputs_are_evicted_first_and_report_expired(store):
    first = put(store, data=b"a" * (400 * 1024))
    second = put(store, data=b"b" * (400 * 1024))
    third = put(store, data=b"c" * (400 * 1024))
    with pytest.raises(OutputMissing) as info:
        store.read("s", first.handle)
    assert info.value.reason == "expired"
    assert "call the tool again" in str(info.value)
    assert store.read("s", second.handle)[:1] == b"b"
    assert store.read("s", third.handle)[:1] == b"c"
    assert store.used("s") == 800 * 1024
    assert len(files_under(store.root)) == 4  # two outputs, each with its record


def test_eviction_is_per_session(store):
    mine = put(store, session="alice", data=b"a" * (900 * 1024))
    put(store, session="bob", data=b"b" * (900 * 1024))
    assert store.read("alice", mine.handle)[:1] == b"a"


def test_an_output_larger_than_the_session_cap_is_refused(store):
    with pytest.raises(StoreError, match="larger than the per-session cap"):
        put(store, data=b"x" * (MIB + 1))


def test_forget_deletes_the_session_and_its_handles(store):
    meta = put(store, session="alice")
    kept = put(store, session="bob")
    store.forget("alice")
    with pytest.raises(OutputMissing) as info:
        store.read("alice", meta.handle)
    assert info.value.reason == "unknown"
    assert store.read("bob", kept.handle) == b"hello"
    assert len(files_under(store.root)) == 2


def test_close_deletes_a_private_temporary_folder():
    store = FileOffloadStore()
    put(store)
    root = store.root
    assert root.is_dir()
    store.close()
    assert not root.exists()
    store.close()
    with pytest.raises(StoreError, match="closed"):
        put(store)


def test_close_deletes_what_it_wrote_in_a_given_folder_and_keeps_the_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    store = FileOffloadStore(tmp_path)
    put(store)
    store.close()
    assert [path.name for path in tmp_path.iterdir()] == ["keep.txt"]


def test_a_new_store_on_the_same_folder_finds_earlier_outputs(tmp_path):
    first = FileOffloadStore(tmp_path)
    meta = put(first, data=b"persisted")
    second = FileOffloadStore(tmp_path)
    assert second.read("s", meta.handle) == b"persisted"
    assert second.used("s") == len(b"persisted")


def test_a_symlinked_session_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    store = FileOffloadStore(tmp_path / "root")
    put(store, session="victim")
    folder = next(path for path in store.root.iterdir() if path.is_dir())
    for item in folder.iterdir():
        item.unlink()
    folder.rmdir()
    folder.symlink_to(outside, target_is_directory=True)
    fresh = FileOffloadStore(tmp_path / "root")
    with pytest.raises(StoreError, match="not a plain folder"):
        put(fresh, session="victim")
    assert list(outside.iterdir()) == []


def test_invalid_session_ids_are_refused(store):
    with pytest.raises(StoreError):
        put(store, session="")
    with pytest.raises(StoreError):
        put(store, session=None)


def test_concurrent_puts_keep_the_session_under_its_cap(store):
    def work():
        for _ in range(20):
            put(store, data=b"z" * (100 * 1024))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert store.used("s") <= MIB
    data_files = [path for path in files_under(store.root) if path.name.endswith(".data")]
    assert sum(path.stat().st_size for path in data_files) == store.used("s")


def test_all_sessions_together_stay_under_the_total_cap_oldest_output_out_first(tmp_path):
    with FileOffloadStore(tmp_path, session_bytes=2 * MIB, total_bytes=3 * MIB) as capped:
        first = put(capped, session="a", data=b"1" * MIB)
        second = put(capped, session="b", data=b"2" * MIB)
        third = put(capped, session="a", data=b"3" * MIB)
        fourth = put(capped, session="c", data=b"4" * MIB)

        assert capped.total() == 3 * MIB
        assert sum(path.stat().st_size for path in files_under(tmp_path) if path.suffix == ".data") == 3 * MIB
        with pytest.raises(OutputMissing) as info:
            capped.read("a", first.handle)
        assert info.value.reason == "expired"
        assert capped.read("b", second.handle) == b"2" * MIB
        assert capped.read("a", third.handle) == b"3" * MIB
        assert capped.read("c", fourth.handle) == b"4" * MIB


def test_a_session_emptied_by_the_total_cap_leaves_no_folder_behind(tmp_path):
    with FileOffloadStore(tmp_path, session_bytes=MIB, total_bytes=MIB) as capped:
        put(capped, session="old", data=b"x" * MIB)
        put(capped, session="new", data=b"y" * MIB)

        assert len([item for item in tmp_path.iterdir() if item.is_dir()]) == 1
        assert capped.used("old") == 0
        assert capped.total() == MIB


def test_outputs_left_by_an_earlier_process_count_against_the_total_and_go_first(tmp_path):
    earlier = FileOffloadStore(tmp_path, session_bytes=2 * MIB, total_bytes=2 * MIB)
    left = put(earlier, session="a", data=b"1" * MIB)
    put(earlier, session="b", data=b"2" * MIB)  # the earlier process stops without closing

    with FileOffloadStore(tmp_path, session_bytes=2 * MIB, total_bytes=2 * MIB) as later:
        assert later.total() == 2 * MIB
        put(later, session="c", data=b"3" * MIB)

        assert later.total() == 2 * MIB
        with pytest.raises(OutputMissing):
            later.read("a", left.handle)


def test_a_total_cap_below_the_session_cap_is_refused(tmp_path):
    with pytest.raises(StoreError, match="total_bytes"):
        FileOffloadStore(tmp_path, session_bytes=2 * MIB, total_bytes=MIB)
