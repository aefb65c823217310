"""Which way to cut text written without spaces: toolscout's choice next to the alternatives, one run.

Same-language retrieval, where segmentation matters most: Chinese requests against the tools
described in Chinese (``multilingual_zh_catalog.json``), and the Japanese, Korean and Thai
requests of the multilingual probe against 26 sample tools described in those languages
(``multilingual_localized.json``). Each scheme replaces toolscout's own for one script (the
search itself is toolscout's lexical index, defaults otherwise); hit@1/hit@5 per language.

Schemes: Chinese (Han runs): jieba search mode (toolscout's), jieba default mode, character
bigrams. Japanese, Korean, Thai (toolscout: character bigrams of each run): unigrams + bigrams,
trigrams; Japanese: bigrams within each script (kanji / hiragana / katakana), the same without
hiragana, TinySegmenter words; Thai: bigrams of grapheme clusters, newmm dictionary words.

Usage: ``.venv/bin/python bench/segmentation.py`` (needs the ``bench`` extra) -> results/segmentation.md
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path

import rjieba
import tinysegmenter
from newmm_tokenizer.tokenizer import word_tokenize

from toolscout import Catalog, ToolSpec
from toolscout.search import _synonyms, _tokenize
from toolscout.search._index import build_index

DATA = Path(__file__).resolve().parent / "data"
RESULTS = Path(__file__).resolve().parent / "results"
_SCRIPT_RUN = re.compile(r"[\u3040-\u309f]+|[\u30a0-\u30ff\uff66-\uff9f]+|[^\u3040-\u30ff\uff66-\uff9f]+")
_HIRAGANA = re.compile(r"[\u3040-\u309f]+")
_KANA = re.compile(r"[\u3040-\u30ff]")
_THAI = re.compile(r"[\u0e00-\u0e7f]")
_OWN_BIGRAMS = _tokenize._bigrams
_OWN_CHINESE = _tokenize._chinese_words
Cut = Callable[[str], list[str]]


def _uni_bigrams(run: str) -> list[str]:
    return [*run, *_OWN_BIGRAMS(run)] if len(run) > 1 else [run]


def _trigrams(run: str) -> list[str]:
    return [run[i : i + 3] for i in range(len(run) - 2)] or [run]


def _script_bigrams(run: str, *, hiragana: bool = True) -> list[str]:
    if not _KANA.search(run):
        return _OWN_BIGRAMS(run)
    subs = [sub for sub in _SCRIPT_RUN.findall(run) if hiragana or not _HIRAGANA.fullmatch(sub)]
    return [gram for sub in subs for gram in _OWN_BIGRAMS(sub)]


def _tiny(run: str) -> list[str]:
    return list(tinysegmenter.TinySegmenter().tokenize(run)) if _KANA.search(run) else _OWN_BIGRAMS(run)


def _cluster_bigrams(run: str) -> list[str]:
    if not _THAI.search(run):
        return _OWN_BIGRAMS(run)
    clusters: list[str] = []
    for char in run:
        if clusters and unicodedata.category(char) == "Mn":
            clusters[-1] += char
        else:
            clusters.append(char)
    return ["".join(clusters[i : i + 2]) for i in range(len(clusters) - 1)] or ["".join(clusters)]


def _newmm(run: str) -> list[str]:
    return [word for word in word_tokenize(run) if word.strip()] if _THAI.search(run) else _OWN_BIGRAMS(run)


CHINESE: dict[str, Cut] = {
    "jieba search mode (toolscout)": _OWN_CHINESE,
    "jieba default mode": lambda run: rjieba.cut(run, hmm=False),
    "character bigrams": _OWN_BIGRAMS,
}
OTHERS: dict[str, Cut] = {
    "character bigrams (toolscout)": _OWN_BIGRAMS,
    "unigrams + bigrams": _uni_bigrams,
    "trigrams": _trigrams,
    "ja: bigrams within each script": _script_bigrams,
    "ja: same, hiragana dropped": lambda run: _script_bigrams(run, hiragana=False),
    "ja: TinySegmenter words": _tiny,
    "th: bigrams of grapheme clusters": _cluster_bigrams,
    "th: newmm words": _newmm,
}


def _use(chinese: Cut, others: Cut) -> None:
    _tokenize._chinese_words = chinese  # type: ignore[assignment]
    _tokenize._bigrams = others  # type: ignore[assignment]
    _tokenize._memo_words.clear()
    _tokenize._memo_terms.clear()
    _tokenize.stem.cache_clear()
    _synonyms.default_translations.cache_clear()


def _hits(tools: list[ToolSpec], requests: list[dict[str, object]]) -> tuple[int, float, float]:
    index = build_index(Catalog(tools))
    names = {tool.name for tool in tools}
    picked = [r for r in requests if names.intersection(r["gold"])]  # type: ignore[call-overload]
    first = top5 = 0
    for request in picked:
        hits = [hit.name for hit in index.search(str(request["query"]), limit=5).hits]
        first += bool(hits) and hits[0] in request["gold"]  # type: ignore[operator]
        top5 += bool(names.intersection(hits).intersection(request["gold"]))  # type: ignore[call-overload]
    return len(picked), first / len(picked), top5 / len(picked)


def main() -> None:
    probe = [json.loads(line) for line in (DATA / "multilingual_probe.jsonl").read_text(encoding="utf-8").splitlines()]
    chinese_tools = list(Catalog.from_file(DATA / "multilingual_zh_catalog.json").tools)
    localized = json.loads((DATA / "multilingual_localized.json").read_text(encoding="utf-8"))
    lines = ["| script | scheme | n | hit@1 | hit@5 |", "|---|---|---:|---:|---:|"]
    for name, cut in CHINESE.items():
        _use(cut, _OWN_BIGRAMS)
        zh = [r for r in probe if r["set"] == "zh-catalog" and r["lang"] == "zh"]
        n, first, top5 = _hits(chinese_tools, zh)
        lines.append(f"| zh | {name} | {n} | {first:.3f} | {top5:.3f} |")
    for lang in localized["languages"]:
        tools = [
            ToolSpec(name=t["name"], namespace=t["namespace"], description=t["description"][lang])
            for t in localized["tools"]
        ]
        requests = [r for r in probe if r["set"] == "translated" and r["lang"] == lang]
        for name, cut in OTHERS.items():
            if name[:3] in ("ja:", "th:") and not name.startswith(lang):
                continue
            _use(_OWN_CHINESE, cut)
            n, first, top5 = _hits(tools, requests)
            lines.append(f"| {lang} | {name} | {n} | {first:.3f} | {top5:.3f} |")
    _use(_OWN_CHINESE, _OWN_BIGRAMS)
    table = "\n".join(lines) + "\n"
    print(table)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "segmentation.md").write_text(table, encoding="utf-8")


if __name__ == "__main__":
    main()
