"""Exporting int8 weights: a warm-started model's small moves off the starting grid survive stochastic rounding."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

from tests.conftest import require

require(
    all(importlib.util.find_spec(name) for name in ("onnx", "onnxruntime", "torch")),
    "the training pipeline needs the sentence-transformers and semantic extras (scripts/dev-setup.sh)",
)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # train/ is a directory beside the package, run as python -m train

import onnxruntime  # noqa: E402
from onnx import TensorProto, helper, numpy_helper, save  # noqa: E402

from train._export import quantize_weights, unchanged_int8_share  # noqa: E402

ROWS, COLUMNS = 384, 64
SCALE = 0.01  # one int8 step of every column: the largest weight of each is 127 steps


def on_grid_weights() -> np.ndarray:
    """A (384, 64) MatMul weight whose every value is a whole number of steps, as a warm start's are."""
    rng = np.random.default_rng(1)
    steps = rng.integers(-60, 61, size=(ROWS, COLUMNS)).astype(np.float32)
    steps[0] = 127  # pins each column's scale to SCALE
    return steps * SCALE


def matmul_model(weights: np.ndarray, path: Path) -> Path:
    node = helper.make_node("MatMul", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [node],
        "one-matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ROWS])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, COLUMNS])],
        [numpy_helper.from_array(weights.astype(np.float32), "w")],
    )
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def stored_weights(path: Path) -> np.ndarray:
    """The weight matrix the exported file computes with: ``x = I`` rows read it back through onnxruntime."""
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rows = [session.run(None, {"x": np.eye(ROWS, dtype=np.float32)[i : i + 1]})[0][0] for i in range(ROWS)]
    return np.array(rows)


def test_a_move_of_under_half_a_step_is_rounded_away_to_the_nearest_step_and_kept_on_average_stochastically(
    tmp_path: Path,
) -> None:
    start = on_grid_weights()
    moved = start.copy()
    moved[1:] += 0.3 * SCALE  # fine-tuning moved every weight by 0.3 of a step
    reference = tmp_path / "start-int8.onnx"
    quantize_weights(matmul_model(start, tmp_path / "start.onnx"), reference)
    source = matmul_model(moved, tmp_path / "moved.onnx")

    quantize_weights(source, tmp_path / "nearest.onnx")
    quantize_weights(source, tmp_path / "stochastic.onnx", stochastic=True, seed=3)
    nearest, stochastic = stored_weights(tmp_path / "nearest.onnx"), stored_weights(tmp_path / "stochastic.onnx")

    assert np.allclose(nearest, start, atol=1e-6)  # the move is gone
    assert unchanged_int8_share(tmp_path / "nearest.onnx", reference) == 1.0
    kept = float((stochastic - start)[1:].mean() / SCALE)
    assert abs(kept - 0.3) < 0.02, kept  # the move survives on average
    assert np.abs(stochastic - moved).max() < SCALE * 1.0001  # each value one of the two steps around it
    share = unchanged_int8_share(tmp_path / "stochastic.onnx", reference)
    assert share is not None and 0.65 < share < 0.75  # about 70 % stay down, 30 % go up a step
    # seeded: the same file each time
    quantize_weights(source, tmp_path / "again.onnx", stochastic=True, seed=3)
    assert (tmp_path / "again.onnx").read_bytes() == (tmp_path / "stochastic.onnx").read_bytes()
