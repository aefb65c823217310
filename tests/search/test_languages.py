"""Languages as data: the built-in files, a bad file's errors, and a new language added as one file."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from toolscout import ConfigError
from toolscout.search import load_language, register_language
from toolscout.search.languages import Language, get_language, languages
from toolscout.search.languages._internal import SCRIPTS

BUILT_IN = ("en", "zh", "ja", "ko", "th", "es", "fr", "de", "pt", "ru")

ITALIAN = """\
code = "it"
name = "Italian"
stemmer = "italian"
function_words = "il lo la i gli le un una di del della che e per con su al alla"
frames = ['(?i)\\bper favore\\b']

[lexicon]
send = ["inviare", "mandare"]
delete = ["eliminare", "cancellare"]
"""

# One process per check: registering a language changes the process's tokenizer and lexicon.
ADD_ITALIAN = """
import json, sys
from toolscout import Catalog, ScoutSettings, ToolScout, ToolSpec
from toolscout.search import load_language, register_language
from toolscout.search._expanders import plain_request
from toolscout.search._language import word_languages
from toolscout.search._synonyms import default_translations

catalog = Catalog([
    ToolSpec(name="send_email", description="Send an email to a recipient."),
    ToolSpec(name="delete_file", description="Delete a file from the workspace."),
    ToolSpec(name="create_event", description="Create an event in the calendar."),
])

def run(query):
    session = ToolScout(catalog, settings=ScoutSettings(search_mode="lexical")).session("it")
    content = session.dispatch_sync("tool_search", {"query": query, "limit": 3}).content
    return [tool["name"] for tool in content.get("tools", [])]

def state():
    query = "per favore invia subito il promemoria a Marco"
    return {
        "send": run(query),
        "delete": run("cancella il vecchio rapporto"),
        "plain": plain_request(query),
        "ignored": sorted(default_translations().translate(query).ignored),
        "languages": word_languages("invia il promemoria"),
    }

before = state()
register_language(load_language(sys.argv[1]))
print(json.dumps({"before": before, "after": state()}))
"""


def test_each_built_in_language_is_one_file_that_validates() -> None:
    folder = resources.files("toolscout.search.languages")
    files = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".toml"))

    assert files == sorted(f"{code}.toml" for code in BUILT_IN)
    assert tuple(language.code for language in languages()) == BUILT_IN
    for code in BUILT_IN:
        with resources.as_file(folder / f"{code}.toml") as path:
            assert load_language(path) == get_language(code)


def test_every_script_a_built_in_language_owns_is_named_once() -> None:
    owners = [language.script for language in languages() if not language.detected]

    assert len(owners) == len(set(owners))
    assert set(owners) <= {script.name for script in SCRIPTS}
    assert [language.code for language in languages() if language.detected] == ["es", "fr", "de", "pt"]


def test_a_new_language_is_one_file_that_search_uses_once_registered(tmp_path: Path) -> None:
    italian = tmp_path / "it.toml"
    italian.write_text(ITALIAN, encoding="utf-8")

    done = subprocess.run(
        [sys.executable, "-c", ADD_ITALIAN, str(italian)], capture_output=True, text=True, timeout=120, check=True
    )
    found = json.loads(done.stdout)

    assert found["before"]["send"][:1] != ["send_email"]
    assert found["before"]["delete"][:1] != ["delete_file"]
    assert found["before"]["languages"] == ["en", "en", "en"]
    assert found["after"]["send"][:1] == ["send_email"]
    assert found["after"]["delete"][:1] == ["delete_file"]
    assert "per favore" not in found["after"]["plain"]
    assert "per favore" in found["before"]["plain"]
    assert found["after"]["ignored"] == ["il", "per"]
    assert found["after"]["languages"] == ["it", "it", "it"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            'code = "it"\nname = "Italian"\nstemer = "italian"\n',
            "language.stemer: unknown setting; did you mean 'stemmer'?",
            id="unknown-field",
        ),
        pytest.param(
            'code = "it"\nname = "Italian"\nscript = "klingon"\n',
            "language.script: unknown script 'klingon'; use one of: kana",
            id="unknown-script",
        ),
        pytest.param(
            'code = "it"\nname = "Italian"\nstemmer = "elvish"\n',
            "language.stemmer: unknown Snowball stemmer 'elvish'",
            id="unknown-stemmer",
        ),
        pytest.param(
            'code = "it"\nname = "Italian"\nsegmenter = "mecab"\n',
            "language.segmenter: unknown segmenter 'mecab'; use one of: jieba, bigrams",
            id="unknown-segmenter",
        ),
        pytest.param(
            'code = "it"\nname = "Italian"\nframes = ["(per"]\n',
            "language.frames[0]: is not a valid regular expression",
            id="bad-regex",
        ),
        pytest.param('code = "Italian"\nname = "Italian"\n', "language.code: must match the pattern", id="bad-code"),
        pytest.param('code = "it"\n', "language.name: this setting is required", id="no-name"),
        pytest.param(
            'code = "it"\nname = "Italian"\n[lexicon]\nsend = ["' + "x" * 101 + '"]\n',
            "language.lexicon.send[0]: must be at most 100 characters",
            id="entry-too-long",
        ),
        pytest.param('code = "it"\nname = [', "cannot read the language file", id="not-toml"),
    ],
)
def test_a_bad_language_file_is_an_error_naming_the_file_the_field_and_the_limit(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "it.toml"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(ConfigError) as caught:
        load_language(path)

    assert message in str(caught.value)
    assert str(path) in str(caught.value)


def test_a_second_language_owning_a_script_is_refused_and_nothing_changes() -> None:
    before = languages()

    with pytest.raises(ConfigError, match="script 'latin' already belongs to 'en'; a second language of one script"):
        register_language(Language(code="it", name="Italian", stemmer="italian"))

    assert languages() == before


def test_a_lexicon_concept_without_english_words_is_refused_naming_it() -> None:
    before = languages()
    italian = Language(code="it", name="Italian", function_words="il la", lexicon={"teleport": ("teletrasportare",)})

    with pytest.raises(ConfigError, match="concept 'teleport' is not in the English lexicon"):
        register_language(italian)

    assert languages() == before
