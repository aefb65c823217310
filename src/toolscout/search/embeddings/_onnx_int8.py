"""The packaged ONNX model made fast: its matrix products quantized to int8 once, then cached on disk.

The packaged ``model.onnx`` stores int8 weights but dequantizes them when onnxruntime loads it, so
every matrix product runs in fp32, as torch's would. `int8_model` folds those weights (onnxruntime's
basic graph optimisation), then quantizes the matrix products with onnxruntime's dynamic
quantization: int8 weights per output channel, activations scaled per run (one text per run, so a
text's vector never depends on other texts). The feed-forward output projections of the first
three layers stay fp32: their inputs carry the GELU's largest outliers, and quantizing them too
drops 1–4 % of catalog texts below cosine 0.99 of the fp32 model, while the last three cost
nothing measurable (``bench/embedders.py`` shows the speed, ``tests/search/embeddings/test_onnx.py``
the cosines).

The weights are signed (onnxruntime's u8s8 kernels) where the CPU multiplies unsigned by signed bytes
without saturating: x86 with VNNI, and other architectures. An x86 CPU without VNNI (AVX2 alone, as many
AMD EPYC and older Intel servers) sums those products in saturating 16-bit pairs, which moved catalog
texts to cosine 0.987 of the fp32 model; there the weights are unsigned (u8u8 kernels, no saturation:
0.994 worst on the same texts, at about the same speed), as onnxruntime's quantization guide advises.

Built once per source model, weight sign and library versions (a few seconds), written atomically under
``<cache>/models/`` with a sha256 trailer (a damaged file is rebuilt), replacing the builds of
other versions; any failure is logged and the caller runs the packaged model as it is.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import platform
import tempfile
import threading
from pathlib import Path

from ..._files import write_atomically
from ._ort import onnxruntime

__all__ = ["RECIPE", "int8_model", "unsigned_weights"]

logger = logging.getLogger("toolscout.search")

RECIPE = "dynamic-int8-r2"
"""Names this module's quantization recipe; a change of recipe must change it (it keys the cache)."""

_BUILD_LOCK = threading.Lock()
_DIGEST_BYTES = 32
_FFN_HIDDEN = 1536  # all-MiniLM-L6-v2's feed-forward width: a (1536, 384) weight is a feed-forward output projection
_FP32_FFN_OUTPUTS = 3  # the first layers' feed-forward output projections, kept fp32
_X86 = frozenset({"x86_64", "amd64", "i386", "i686", "x86"})
_VNNI = frozenset({"avx512_vnni", "avx_vnni", "amx_int8"})
"""CPU flags (Linux ``/proc/cpuinfo``) of x86 instructions that multiply unsigned by signed bytes without saturating."""


def int8_model(source: Path, source_sha256: str, cache_root: Path, *, name: str = "all-MiniLM-L6-v2") -> bytes | None:
    """The int8 model derived from `source`, read from `cache_root` or built there; None if it cannot be had.

    Args:
        source: The packaged ONNX file (int8 weights, fp32 compute).
        source_sha256: Its checked sha256 (part of the cache key).
        cache_root: The cache directory; the model goes under its ``models/`` folder.
        name: The packaged model's name (the cached file's prefix).
    """
    try:
        onnx_version = importlib.metadata.version("onnx")
    except importlib.metadata.PackageNotFoundError:
        logger.warning(
            "the ONNX embedder runs its matrix products in fp32 (slower): the onnx package is missing; "
            "pip install 'toolscout[semantic]'"
        )
        return None
    unsigned = unsigned_weights()
    variant = "-u8u8" if unsigned else ""
    key = f"{source_sha256[:16]}-{RECIPE}{variant}-ort{onnxruntime.__version__}-onnx{onnx_version}"
    cached = cache_root / "models" / f"{name}-{key}.onnx"
    with _BUILD_LOCK:
        stored = _read(cached)
        if stored is not None:
            return stored
        try:
            with tempfile.TemporaryDirectory(prefix="toolscout-int8-") as scratch:
                folded = Path(scratch, "folded.onnx")
                quantized = Path(scratch, "int8.onnx")
                import onnx  # only to build: reading the cached model needs neither onnx nor the quantizer
                from onnxruntime.quantization import QuantType, quantize_dynamic

                _fold_weights(source, folded)
                model = onnx.load(str(folded))
                weights = {item.name: tuple(item.dims) for item in model.graph.initializer}
                ffn_outputs = [  # in graph order, which is layer order
                    node.name
                    for node in model.graph.node
                    if node.op_type == "MatMul" and weights.get(node.input[1], (0,))[0] == _FFN_HIDDEN
                ]
                keep_fp32 = ffn_outputs[:_FP32_FFN_OUTPUTS]
                root = logging.getLogger()
                root.addFilter(_not_the_quantizer)
                try:
                    quantize_dynamic(
                        str(folded),
                        str(quantized),
                        weight_type=QuantType.QUInt8 if unsigned else QuantType.QInt8,
                        per_channel=True,
                        nodes_to_exclude=keep_fp32,
                        extra_options={"MatMulConstBOnly": True},
                    )
                finally:
                    root.removeFilter(_not_the_quantizer)
                built = quantized.read_bytes()
        except Exception as exc:  # onnx and the quantizer raise many types; any failure means "run as is"
            logger.warning("the ONNX embedder runs its matrix products in fp32 (slower): quantizing failed: %s", exc)
            return None
        _store(cached, built)
        _forget_older_builds(cached, f"{name}-{source_sha256[:16]}")
        return built


def unsigned_weights(machine: str | None = None, cpuinfo: str | None = None) -> bool:
    """Whether this CPU needs unsigned int8 weights: an x86 CPU without VNNI (see the module docstring).

    Args:
        machine: The architecture (default: `platform.machine`).
        cpuinfo: The text of Linux's ``/proc/cpuinfo`` (default: read it); an x86 CPU whose flags cannot be read
            gets unsigned weights, which are right on every CPU.
    """
    if (machine if machine is not None else platform.machine()).lower() not in _X86:
        return False
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return True
    flags = {
        flag for line in cpuinfo.splitlines() if line.startswith("flags") for flag in line.partition(":")[2].split()
    }
    return flags.isdisjoint(_VNNI)


def _fold_weights(source: Path, target: Path) -> None:
    """Write `source` with its weight dequantization folded into fp32 constants (standard ONNX ops only)."""
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = str(target)
    options.log_severity_level = 3
    onnxruntime.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])


def _not_the_quantizer(record: logging.LogRecord) -> bool:
    """Drops the quantizer's advice to its own users (pre-processing), which it logs on the root logger."""
    return f"onnxruntime{os.sep}quantization" not in record.pathname


def _forget_older_builds(current: Path, prefix: str) -> None:
    """Delete models built from the same source by other recipes or library versions (each ~30 MB), if allowed."""
    for older in current.parent.glob(f"{prefix}-*.onnx"):
        if older != current:
            try:
                older.unlink(missing_ok=True)
            except OSError as exc:
                logger.info("cannot delete an older int8 embedding model %s: %s", older, exc)


def _read(path: Path) -> bytes | None:
    """The model cached at `path` if it is there and intact (its sha256 trailer matches), else None."""
    try:
        stored = path.read_bytes()
    except OSError:
        return None
    data, trailer = stored[:-_DIGEST_BYTES], stored[-_DIGEST_BYTES:]
    return data if len(stored) > _DIGEST_BYTES and hashlib.sha256(data).digest() == trailer else None


def _store(path: Path, data: bytes) -> None:
    """Write `data` and its sha256 to `path` atomically; a cache that cannot be written only costs a rebuild."""
    try:
        write_atomically(path, lambda file: file.write(data + hashlib.sha256(data).digest()))
    except OSError as exc:
        logger.warning("cannot cache the int8 embedding model in %s: %s", path.parent, exc)
