from __future__ import annotations

import subprocess
import sys
from importlib import resources

import pytest

from toolscout import Catalog, ConfigError
from toolscout.search._index import IndexConfig, build_index
from toolscout.search._synonyms import Translation, Translations, default_translations
from toolscout.search._tokenize import tokenize
from toolscout.search.languages import get_language, languages

SAMPLE = Catalog.from_file(str(resources.files("toolscout") / "data" / "sample_catalog.json"))


def test_every_language_file_names_english_concepts_and_the_lexicon_is_large() -> None:
    english = get_language("en").lexicon

    assert len(english) > 100
    assert all(words for words in english.values())
    for language in languages():
        assert set(language.lexicon) <= set(english), language.code


def test_no_lexicon_entry_is_made_only_of_stopwords() -> None:
    entries = [
        (language, entry) for language in languages() for column in language.lexicon.values() for entry in column
    ]

    assert [entry for language, entry in entries if not language.detected and not tokenize(entry)] == []


def test_translations_read_only_the_languages_given() -> None:
    spanish_only = Translations([get_language("en"), get_language("es")])

    assert "delet" in spanish_only.translate("borra el archivo").terms
    assert spanish_only.translate("删除文件") == Translation()
    assert "delet" in Translations().translate("删除文件").terms


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        pytest.param("发送消息到 slack 频道", {"send", "messag", "channel"}, id="chinese"),
        pytest.param("Slackのチャンネルにメッセージを送信して", {"send", "messag", "channel"}, id="japanese"),
        pytest.param("슬랙 채널에 메시지를 보내줘", {"send", "messag", "channel"}, id="korean"),
        pytest.param("ส่งข้อความไปที่ช่อง Slack", {"send", "messag", "channel"}, id="thai"),
        pytest.param("Отправь сообщение в канал", {"send", "messag", "channel"}, id="russian-inflected"),
        pytest.param("envía un mensaje al canal", {"send", "messag", "channel"}, id="spanish-inflected"),
        pytest.param("Muéstrame los archivos", {"show", "file"}, id="spanish-imperative-with-pronoun"),
        pytest.param("envoie un message dans le canal", {"send", "channel"}, id="french"),
        pytest.param("lösch den Projektordner", {"delet", "folder"}, id="german-compound-head"),
        pytest.param("cambia a la segunda pestaña", {"tab"}, id="spanish-with-few-function-words"),
        pytest.param("welches Datum ist in 45 Arbeitstagen?", {"date", "busi", "day"}, id="german-question"),
        pytest.param("¿qué fecha será dentro de 45 días laborables?", {"date", "busi", "day"}, id="spanish-phrase"),
        pytest.param("从今天起 45 个工作日后是几号？", {"date", "busi", "day"}, id="chinese-workdays"),
        pytest.param("quelles PR sont encore ouvertes ?", {"open"}, id="french-participle"),
        pytest.param("führ die Unit-Tests mit pytest aus", {"run"}, id="german-separable-verb"),
        pytest.param("把整个页面截个图", {"screenshot"}, id="chinese-split-verb"),
    ],
)
def test_words_in_other_languages_stand_for_their_english_words(query: str, expected: set[str]) -> None:
    assert expected <= set(default_translations().translate(query).terms)


def test_english_queries_are_not_translated_even_with_words_shared_with_other_languages() -> None:
    assert default_translations().translate("list the data in the table of Los Angeles") == Translation()


def test_a_short_stem_is_compared_as_the_whole_word() -> None:
    terms = default_translations().translate("¿cómo está organizada la carpeta?").terms

    assert "folder" in terms
    assert "command" not in terms  # Spanish "como" and "comando" both stem to "com"


def test_a_word_the_catalog_has_is_taken_as_it_is_not_translated() -> None:
    translations = default_translations()

    assert "date" in translations.translate("data").terms  # Portuguese for "date"
    assert translations.translate("data", {"data"}.__contains__) == Translation()


def test_the_function_words_of_a_detected_language_are_ignored_and_english_words_are_not_added_again() -> None:
    translation = default_translations().translate("muestra la lista de los archivos de GitHub")

    assert {"la", "de", "los"} <= translation.ignored
    assert "github" not in translation.terms


def test_a_chinese_request_finds_the_english_tool_that_does_it() -> None:
    index = build_index(SAMPLE)

    assert index.search("发送消息到 slack 频道").hits[0].name == "slack__post_message"


@pytest.mark.parametrize(
    "query",
    [
        "Slackのチャンネルにメッセージを送信して",
        "Slack 채널에 메시지 보내줘",
        "Отправь в Slack сообщение в канал",
        "envía un mensaje al canal de Slack",
        "schick eine Nachricht in den Slack-Kanal",
    ],
)
def test_requests_in_other_languages_find_the_english_tool_that_does_it(query: str) -> None:
    assert build_index(SAMPLE).search(query).hits[0].name == "slack__post_message"


@pytest.mark.parametrize(
    ("query", "tool"),
    [
        pytest.param("显示 PR 57 的差异", "github__get_pull_request_diff", id="chinese-diff"),
        pytest.param("PR 57 の差分を見せて", "github__get_pull_request_diff", id="japanese-diff"),
        pytest.param("PR 57의 차이를 보여줘", "github__get_pull_request_diff", id="korean-diff"),
        pytest.param("покажи различия в PR 57", "github__get_pull_request_diff", id="russian-diff"),
        pytest.param("muestra las diferencias del PR 57", "github__get_pull_request_diff", id="spanish-diff"),
        pytest.param(
            "zeig mir die Unterschiede in PR 57",
            "github__get_pull_request_diff",
            id="german-with-as-many-german-as-english-function-words",
        ),
        pytest.param("列出工作区的成员", "slack__list_users", id="chinese-workspace"),
        pytest.param(
            "lanza el servidor de desarrollo en segundo plano",
            "shell__start_background_process",
            id="spanish-background",
        ),
        pytest.param("在登录框里输入我的邮箱地址然后提交", "browser__type_text", id="chinese-submit"),
        pytest.param("로그인 창에 내 이메일 주소를 입력하고 제출해줘", "browser__type_text", id="korean-submit"),
        pytest.param(
            "콘텐츠 캘린더 데이터베이스에 3월 게시물 항목을 추가해줘", "notion__create_page", id="korean-content"
        ),
    ],
)
def test_words_of_real_tool_descriptions_are_in_the_lexicon(query: str, tool: str) -> None:
    assert build_index(SAMPLE).search(query).hits[0].name == tool


@pytest.mark.parametrize(
    "query",
    [
        "ロードマップのデータベースを表示して",
        "แสดงฐานข้อมูลโรดแมป",
        "покажи базу данных дорожной карты",
        "montre la base de données",
    ],
)
def test_a_word_inside_a_longer_one_does_not_stand_for_its_own_concept(query: str) -> None:
    terms = set(default_translations().translate(query).terms)

    assert "databas" in terms
    assert not terms & {"map", "data"}


def test_a_zero_translation_weight_turns_translation_off() -> None:
    index = build_index(SAMPLE, config=IndexConfig(translation_weight=0.0))

    assert index.search("发送消息到 slack 频道").hits[0].name != "slack__post_message"


def test_a_negative_translation_weight_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        build_index(SAMPLE, config=IndexConfig(translation_weight=-1.0))

    assert caught.value.key == "translation_weight"


def test_english_catalogs_and_queries_never_load_the_chinese_segmenter() -> None:
    code = (
        "import sys; from toolscout import Catalog, ToolSpec; from toolscout.search._internal import build_index; "
        "index = build_index(Catalog([ToolSpec(name='send_email', description='Send an email.')])); "
        "index.search('send an email'); index.search('envía un correo'); print('rjieba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
