"""Dump what the language rules make of every dev-probe request, and the lexical ranking each one gets.

A change to the language layer (the files under ``src/toolscout/search/languages/``, the tokenizer,
the lexicon matcher) that should change nothing is checked by dumping before and after and
comparing the two files byte for byte:

    .venv/bin/python bench/language_dump.py --out /tmp/before.json      # on the old tree
    .venv/bin/python bench/language_dump.py --out /tmp/after.json       # on the new tree
    cmp /tmp/before.json /tmp/after.json

For each request it records its words, its search terms, the request without framing verbs
(idioms), what the lexicon translates it to and which function words it ignores, the synonym
expansion of its terms, the language of each word (what the dense ranker trusts), and the top 10
of ``tool_search`` (lexical engine, every query rule on) with their scores. Sets: the packaged sample
requests, the multilingual probe (eight languages), the no-tool probe, BFCL's tuning categories
(``bench/bfcl.py`` fetches them) and the tooldata dev split (40 requests per source; ``--tooldata``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import multilingual
from bfcl import TUNING_CATEGORIES, load_bfcl
from model_compare import ROOT, tooldata_dev

from toolscout import Catalog, ScoutSettings, ToolScout
from toolscout.data import sample_catalog_path, sample_queries_path
from toolscout.search._expanders import plain_request
from toolscout.search._internal import ActionSynonyms, tokenize, words
from toolscout.search._language import word_languages
from toolscout.search._synonyms import default_translations


def request_rules(query: str) -> dict[str, object]:
    translation = default_translations().translate(query)
    return {
        "words": words(query),
        "terms": tokenize(query),
        "plain": plain_request(query),
        "translated": list(translation.terms),
        "ignored": sorted(translation.ignored),
        "synonyms": ActionSynonyms().expand(tokenize(query)),
        "languages": word_languages(query),
    }


def lexical_top(catalog: Catalog, queries: Sequence[str]) -> list[list[object]]:
    scout = ToolScout(catalog, settings=ScoutSettings(search_mode="lexical"))
    session = scout.session("dump")
    out: list[list[object]] = []
    for query in queries:
        content = session.dispatch_sync("tool_search", {"query": query, "limit": 10}).content
        assert isinstance(content, dict)
        out.append([[t["name"], t.get("score"), t.get("confidence")] for t in content.get("tools", [])])
    return out


def dump_set(catalog: Catalog, queries: Sequence[str]) -> list[dict[str, object]]:
    tops = lexical_top(catalog, queries)
    return [{"query": q, **request_rules(q), "top": top} for q, top in zip(queries, tops, strict=True)]


def main(argv: Sequence[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--tooldata", type=Path, default=ROOT.parent / "shared" / "tooldata")
    args = parser.parse_args(argv)
    sample = Catalog.from_file(sample_catalog_path())
    sample_rows = [json.loads(line) for line in sample_queries_path().read_text(encoding="utf-8").splitlines() if line]
    probe_catalog = Catalog([*sample.tools, *Catalog.from_file(multilingual.ZH_CATALOG).tools])
    probe = [json.loads(line) for line in multilingual.PROBE.read_text(encoding="utf-8").splitlines()]
    no_tool = multilingual.DATA / "no_tool_probe.jsonl"
    no_tool_rows = [json.loads(line) for line in no_tool.read_text(encoding="utf-8").splitlines() if line]
    tuning = load_bfcl(TUNING_CATEGORIES)
    sets = {
        "sample": (sample, [r["query"] for r in sample_rows]),
        "multilingual": (probe_catalog, [r["query"] for r in probe]),
        "no-tool": (sample, [r["query"] for r in no_tool_rows]),
        "BFCL tuning": (tuning.catalog, [q.query for q in tuning.queries]),
        **{
            f"tooldata dev/{source}": (data.catalog, data.queries)
            for source, data in tooldata_dev(args.tooldata).items()
        },
    }
    dumped = {}
    for name, (catalog, queries) in sets.items():
        dumped[name] = dump_set(catalog, queries)
        print(name, len(queries), file=sys.stderr, flush=True)
    args.out.write_text(json.dumps(dumped, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{sum(map(len, dumped.values()))} requests -> {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
