"""Several epochs: each further pass batches the same triples again, in a seeded new order, under the same guard."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from tests.conftest import require

require(
    importlib.util.find_spec("sentence_transformers") is not None,
    "fine-tuning needs the sentence-transformers extra (scripts/dev-setup.sh)",
)

from train._examples import Triple  # noqa: E402
from train._fit import batches, epoch_batches  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def triples(count: int) -> list[Triple]:
    return [
        Triple(f"request {n}", f"tool {n}", f"tool {n + 1}", "apis", "lexical", f"tool{n}", f"tool{n + 1}")
        for n in range(count)
    ]


def test_each_epoch_covers_what_one_epoch_batches_and_later_ones_change_the_order() -> None:
    rows = triples(40)
    one = batches(rows, 4)

    three = epoch_batches(rows, 4, epochs=3, seed=7)

    assert three[: len(one)] == one  # the first epoch is the triples in their order, as before
    rest = three[len(one) :]
    assert len(rest) >= len(one)
    assert {t.query for batch in rest for t in batch} == {t.query for batch in one for t in batch}
    assert [t.query for t in rest[0]] != [t.query for t in one[0]]
    for batch in three:  # the guard holds in every epoch: no row's tool is another row's negative
        assert not {t.positive_key for t in batch} & {t.negative_key for t in batch if t.negative_key}
    assert epoch_batches(rows, 4, epochs=3, seed=7) == three  # seeded


def test_fewer_than_one_epoch_is_refused_by_name(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "train", "fit", "--out", str(tmp_path), "--epochs", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 2
    assert "--epochs must be at least 1, got 0" in done.stderr
    assert not (tmp_path / "checkpoints").exists()
