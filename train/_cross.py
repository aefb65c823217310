"""A cross-encoder reranker: the first layers of a MiniLM checkpoint reading a request and a tool's text together.

The model is the checkpoint's first `CrossConfig.layers` transformer layers with a fresh one-logit
head (``BertForSequenceClassification``). Each training example is a `Group` (a request, one of its
tools and `CrossConfig.negatives` mined tools that do not serve it); the loss is cross-entropy over
the group's logits with the positive as the answer (listwise), so the model learns to order exactly
what a reranker is handed: the engine's top candidates. The head learns at its own, higher rate.
Checkpoints go under ``cross/checkpoints/``; the last one is exported to ``cross/model.onnx`` (inputs
``input_ids``, ``attention_mask``, ``token_type_ids``; output ``logits``, one per pair), its weights
stored as int8 the way `_export` stores the embedding model's.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import torch

from ._examples import Group
from ._export import export_graph, quantize_weights
from ._fit import base_model_path, device

__all__ = ["CrossConfig", "export_cross", "fit_cross", "load_cross"]


@dataclass(frozen=True)
class CrossConfig:
    """Hyper-parameters of one cross-encoder run."""

    layers: int = 2
    negatives: int = 7
    groups_per_step: int = 16
    learning_rate: float = 5e-5
    head_learning_rate: float = 1e-3
    warmup_steps: int = 20
    max_seq_length: int = 96
    """The request and a tool's text together, in tokens: what toolscout's runner reads (``MAX_TOKENS``)."""
    minutes: float = 30.0
    max_steps: int = 100_000
    checkpoint_minutes: float = 10.0
    threads: int = 2
    seed: int = 0
    init: str | None = None
    """The checkpoint whose first layers start the model (None: the base all-MiniLM-L6-v2)."""


def load_cross(path: str | Path | None, *, layers: int | None = None) -> tuple[Any, Any]:
    """(model, tokenizer) from `path` (None: the base model), cut to its first `layers` layers when given."""
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    source = str(path or base_model_path())
    overrides: dict[str, int] = {"num_labels": 1} | ({"num_hidden_layers": layers} if layers else {})
    config = AutoConfig.from_pretrained(source, local_files_only=True, **overrides)
    model = AutoModelForSequenceClassification.from_pretrained(source, config=config, local_files_only=True)
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
    return model.to(device()), tokenizer


def _encode(tokenizer: Any, queries: Sequence[str], texts: Sequence[str], max_length: int) -> dict[str, torch.Tensor]:
    encoded = tokenizer(
        list(queries), list(texts), truncation="longest_first", max_length=max_length, padding=True, return_tensors="pt"
    )
    return {key: value.to(device()) for key, value in encoded.items()}


def group_loss(model: Any, tokenizer: Any, groups: Sequence[Group], max_length: int) -> torch.Tensor:
    """Listwise cross-entropy: each group's positive against its negatives (groups may hold fewer negatives)."""
    width = 1 + max(len(group.negatives) for group in groups)
    queries: list[str] = []
    texts: list[str] = []
    slots: list[int] = []
    for row, group in enumerate(groups):
        for column, text in enumerate((group.positive, *group.negatives)):
            queries.append(group.query)
            texts.append(text)
            slots.append(row * width + column)
    logits = model(**_encode(tokenizer, queries, texts, max_length)).logits.view(-1)
    table = torch.full((len(groups) * width,), float("-inf"), device=logits.device)
    table = table.index_put((torch.tensor(slots, device=logits.device),), logits)
    answers = torch.zeros(len(groups), dtype=torch.long, device=logits.device)
    return torch.nn.functional.cross_entropy(table.view(len(groups), width), answers)


def fit_cross(
    groups: Sequence[Group], out: Path, config: CrossConfig, *, log: Callable[[str], None] = print
) -> list[Path]:
    """Train on `groups` (shuffled with the seed) for `config.minutes` or one pass; returns the checkpoints written."""
    torch.set_num_threads(config.threads)
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    checkpoints = out / "checkpoints"
    checkpoints.mkdir(parents=True, exist_ok=True)
    order = random.Random(config.seed).sample(list(groups), len(groups))
    steps = [order[i : i + config.groups_per_step] for i in range(0, len(order), config.groups_per_step)]
    model, tokenizer = load_cross(config.init, layers=config.layers)
    model.train()
    head = [p for name, p in model.named_parameters() if name.startswith("classifier")]
    body = [p for name, p in model.named_parameters() if not name.startswith("classifier")]
    rates = (config.learning_rate, config.head_learning_rate)
    optimizer = torch.optim.AdamW([{"params": body, "lr": rates[0]}, {"params": head, "lr": rates[1]}])
    total = min(len(steps), config.max_steps)
    (out / "cross_config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    log(f"{len(groups)} groups, {len(steps)} steps of {config.groups_per_step} on {device()}")
    began = last_save = time.monotonic()
    written: list[Path] = []
    losses: list[float] = []
    step = 0
    while step < total:
        share = min(1.0, (step + 1) / config.warmup_steps) * (total - step) / total
        for group, rate in zip(optimizer.param_groups, rates, strict=True):
            group["lr"] = rate * share
        loss = group_loss(model, tokenizer, steps[step], config.max_seq_length)
        optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]  # torch leaves Tensor.backward unannotated
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
        step += 1
        elapsed = time.monotonic() - began
        if step == 5:  # fit the schedule to the measured step time
            total = min(total, int(config.minutes * 60 / (elapsed / 5)))
            log(f"{elapsed / 5:.2f} s per step: schedule {total} steps ({config.minutes} min)")
        if step % 20 == 0:
            log(f"step {step}/{total} loss {sum(losses[-20:]) / 20:.4f} {elapsed / 60:.1f} min")
        if time.monotonic() - last_save >= config.checkpoint_minutes * 60 or step >= total:
            written.append(_save(model, tokenizer, checkpoints / f"step-{step:05d}"))
            last_save = time.monotonic()
            log(f"checkpoint {written[-1]}")
    return written


def _save(model: Any, tokenizer: Any, target: Path) -> Path:
    scratch = target.with_name(f".{target.name}")
    shutil.rmtree(scratch, ignore_errors=True)
    model.save_pretrained(str(scratch))
    tokenizer.save_pretrained(str(scratch))
    shutil.rmtree(target, ignore_errors=True)
    scratch.rename(target)
    return target


def export_cross(checkpoint: Path, target: Path, *, stochastic: bool) -> int:
    """Write `checkpoint` as an ONNX cross-encoder with int8 weights at `target`; returns the int8 tensors.

    `stochastic` rounds as `_export` does for a model warm-started from the packaged file.
    """
    model, tokenizer = load_cross(checkpoint)
    inner = cast(torch.nn.Module, model).to("cpu").eval()
    example = tokenizer(["find the weather"], ["get_weather. Current weather for a city."], return_tensors="pt")
    fp32 = target.with_name(f"{target.stem}-fp32.onnx")
    export_graph(inner, example, fp32, output="logits", output_axes={0: "batch"})
    return quantize_weights(fp32, target, stochastic=stochastic)
