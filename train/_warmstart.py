"""Warm start: a trainable checkpoint rebuilt from an exported int8 ONNX model (the packaged one by default).

`_export` stores each large weight as int8 plus one fp32 scale per output channel (per row for the
embedding tables) and keeps the rest fp32. This module reads such a file back: every weight is
dequantized (``int8 * scale``), each matrix product's weight is matched to its torch parameter by
the node that consumes it (``/inner/encoder/layer.0/attention/self/query/MatMul`` ->
``encoder.layer.0.attention.self.query.weight``, transposed back), and the base model's
sentence-transformers checkpoint is saved with those weights. Fine-tuning can then continue from
the model toolscout ships when its fp32 checkpoints are gone; the int8 rounding it inherits is
below a 254th of each channel's largest weight. The pooler, which mean pooling never runs, keeps
the base model's weights.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import cast

import numpy as np
import torch
from onnx import load, numpy_helper

from ._fit import load_model

__all__ = ["checkpoint_from_onnx", "packaged_model_path"]

_INNER = "inner."
_UNUSED = ("pooler.", "embeddings.position_ids")  # not in the exported graph: mean pooling never runs the pooler
_MATMUL_OUTPUT = re.compile(r"^/inner/(?P<module>.+)/MatMul_output_0$")


def packaged_model_path() -> Path:
    """The tool-retrieval model inside the installed toolscout package."""
    return Path(str(resources.files("toolscout.data") / "models" / "toolscout-minilm-tools-int8.onnx"))


def _weights(path: Path) -> dict[str, np.ndarray]:
    model = load(str(path))
    graph = model.graph
    stored = {item.name: numpy_helper.to_array(item) for item in graph.initializer}
    values: dict[str, np.ndarray] = {}
    for name, array in stored.items():
        if name.endswith("_scale"):
            continue
        if name.endswith("_q") and f"{name[:-2]}_scale" in stored:
            values[name[:-2]] = array.astype(np.float32) * stored[f"{name[:-2]}_scale"]
        else:
            values[name] = array
    named: dict[str, np.ndarray] = {}
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in values:
            continue
        match = _MATMUL_OUTPUT.match(node.output[0])
        if match is None:
            raise ValueError(f"{path}: cannot tell which layer the weight {node.input[1]!r} belongs to")
        module = match.group("module").replace("/", ".")
        named[f"{module}.weight"] = values[node.input[1]].T  # MatMul B is (in, out); torch's Linear is (out, in)
    named.update({name[len(_INNER) :]: array for name, array in values.items() if name.startswith(_INNER)})
    return named


def checkpoint_from_onnx(source: Path, target: Path) -> Path:
    """Save the base model with `source`'s weights as a sentence-transformers checkpoint at `target`.

    Raises:
        ValueError: `source` lacks one of the base model's parameters or holds one of another shape.
    """
    weights = _weights(source)
    model = load_model(None)
    inner = cast(torch.nn.Module, model[0].auto_model)
    state = inner.state_dict()
    missing = sorted(name for name in state if name not in weights and not name.startswith(_UNUSED))
    if missing:
        raise ValueError(f"{source}: no weights for {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}")
    for name, tensor in state.items():
        if name not in weights:
            continue
        value = torch.from_numpy(np.array(weights[name], dtype=np.float32)).to(tensor.dtype)
        if value.shape != tensor.shape:
            raise ValueError(f"{source}: {name} has shape {tuple(value.shape)}, expected {tuple(tensor.shape)}")
        state[name] = value
    inner.load_state_dict(state)
    target.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(target))
    return target
