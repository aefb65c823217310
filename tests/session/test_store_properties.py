"""Random sequences of store calls, compared against a plain reference model."""

from __future__ import annotations

import tempfile
from collections import OrderedDict
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from toolscout import DiscoveryStore, MemoryStore, SqliteStore

MAX_SESSIONS = 3
MAX_NAMES = 4

session_ids = st.sampled_from(["a", "b", "c", "d", "e"]) | st.text(min_size=1, max_size=8)
names = st.lists(st.sampled_from(["t1", "t2", "t3", "t4", "t5", "t6"]) | st.text(max_size=6), max_size=6)
operations = st.lists(
    st.one_of(
        st.tuples(st.just("discover"), session_ids, names),
        st.tuples(st.just("discovered"), session_ids),
        st.tuples(st.just("forget"), session_ids),
        st.tuples(st.just("sessions")),
        st.tuples(st.just("reopen")),
    ),
    max_size=40,
)


class Model:
    """The contract written as plainly as possible."""

    def __init__(self) -> None:
        self.sessions: OrderedDict[str, list[str]] = OrderedDict()

    def discover(self, session_id: str, new: list[str]) -> tuple[str, ...]:
        if session_id not in self.sessions:
            if not new:
                return ()
            self.sessions[session_id] = []
            if len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        self.sessions.move_to_end(session_id)
        held = self.sessions[session_id]
        added: list[str] = []
        for name in new:
            if name not in held and len(held) < MAX_NAMES:
                held.append(name)
                added.append(name)
        return tuple(added)

    def discovered(self, session_id: str) -> tuple[str, ...]:
        if session_id not in self.sessions:
            return ()
        self.sessions.move_to_end(session_id)
        return tuple(self.sessions[session_id])

    def forget(self, session_id: str) -> None:
        self.sessions.pop(session_id, None)


def run(ops: list[tuple[object, ...]], open_store: type[MemoryStore] | Path) -> None:
    def fresh() -> DiscoveryStore:
        if isinstance(open_store, Path):
            return SqliteStore(open_store, max_sessions=MAX_SESSIONS, max_names=MAX_NAMES)
        return open_store(max_sessions=MAX_SESSIONS, max_names=MAX_NAMES)

    model = Model()
    store = fresh()
    try:
        for op in ops:
            match op:
                case ("discover", str(session_id), list(new)):
                    assert store.discover(session_id, new) == model.discover(session_id, new)
                case ("discovered", str(session_id)):
                    assert store.discovered(session_id) == model.discovered(session_id)
                case ("forget", str(session_id)):
                    store.forget(session_id)
                    model.forget(session_id)
                case ("sessions",):
                    assert store.sessions() == len(model.sessions)
                case ("reopen",) if isinstance(open_store, Path):
                    store.close()
                    store = fresh()
        assert store.sessions() == len(model.sessions)
        for session_id, held in list(model.sessions.items()):
            assert store.discovered(session_id) == tuple(held)
    finally:
        store.close()


@given(operations)
def test_memory_store_behaves_like_the_model(ops: list[tuple[object, ...]]) -> None:
    run(ops, MemoryStore)


@settings(deadline=None)
@given(operations)
def test_sqlite_store_behaves_like_the_model_even_across_reopening(ops: list[tuple[object, ...]]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        run(ops, Path(directory) / "sessions.db")
