import random
import subprocess
import sys

import pytest

from toolscout.search._tokenize import encode_many, stem, stopwords, tokenize, words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("get_current_weather", ["get", "current", "weather"], id="snake-case"),
        pytest.param("getCurrentWeather", ["get", "current", "weather"], id="camel-case"),
        pytest.param("HTTPServer", ["http", "server"], id="acronym-before-word"),
        pytest.param("getURL2Text", ["get", "url", "2", "text"], id="acronym-and-digit"),
        pytest.param("sha256sum", ["sha", "256", "sum"], id="digit-boundaries"),
        pytest.param("2024 007", ["2024", "007"], id="numbers-as-written"),
        pytest.param("listPRs getAPIsNow IDs", ["list", "pr", "get", "api", "now", "id"], id="plural-acronyms"),
        pytest.param("create-pull-request", ["create", "pull", "request"], id="kebab-case"),
        pytest.param("math.factorial", ["math", "factorial"], id="dots"),
        pytest.param("github:issues/create", ["github", "issues", "create"], id="colon-and-slash"),
        pytest.param("slack__post_message", ["slack", "post", "message"], id="double-underscore"),
        pytest.param("Café Crème", ["cafe", "creme"], id="accents-folded"),
        pytest.param("Straße", ["strasse"], id="casefolded"),
        pytest.param("ПолучитьПогоду", ["получить", "погоду"], id="cyrillic-camel-case"),
        pytest.param("ｆｕｌｌｗｉｄｔｈ", ["fullwidth"], id="nfkc-normalised"),
        pytest.param("天气预报", ["天气", "预报", "天气预报"], id="chinese-words-and-their-inner-words"),
        pytest.param("发送消息到频道", ["发送", "消息", "到", "频道"], id="chinese-segmented"),
        pytest.param("天", ["天"], id="single-cjk-character"),
        pytest.param("天気を取得", ["天気", "気を", "を取", "取得"], id="japanese-bigrams"),
        pytest.param("메시지를 보내", ["메시", "시지", "지를", "보내"], id="korean-bigrams-per-word"),
        pytest.param("ส่งข้อความ", ["ส่", "่ง", "งข", "ข้", "้อ", "อค", "คว", "วา", "าม"], id="thai-bigrams"),
        pytest.param("get_天气", ["get", "天气"], id="mixed-scripts"),
        pytest.param("发送消息到Slack频道", ["发送", "消息", "到", "slack", "频道"], id="latin-inside-chinese"),
        pytest.param("在GitHub上创建Issue", ["在", "git", "hub", "上", "创建", "issue"], id="camel-in-chinese"),
        pytest.param("Slackにメッセージ", ["slack", "にメ", "メッ", "ッセ", "セー", "ージ"], id="latin-in-japanese"),
        pytest.param("Überprüfe die Straßenkarte", ["uberprufe", "die", "strassenkarte"], id="german-accents-folded"),
        pytest.param("Envíame la canción", ["enviame", "la", "cancion"], id="spanish-accents-folded"),
    ],
)
def test_words_split_identifiers_and_scripts(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_tokenize_stems_and_drops_stopwords() -> None:
    assert tokenize("Fetches the pages of a website") == ["fetch", "page", "websit"]


def test_tokenize_stems_cyrillic_with_the_russian_stemmer() -> None:
    assert tokenize("погода") == tokenize("погоды")


def test_tokenize_drops_possessive_and_contraction_tails() -> None:
    assert tokenize("Einstein's theory isn't new") == ["einstein", "theori", "isn", "new"]


def test_stopwords_are_lowercase_words() -> None:
    assert all(word == word.lower() and word.isalpha() for word in stopwords())


def test_tokenize_drops_chinese_function_words() -> None:
    assert tokenize("帮我查一下上海的天气") == ["查", "上海", "天气"]


def test_latin_words_in_chinese_text_match_the_same_words_in_english() -> None:
    assert set(tokenize("post_message")) <= set(tokenize("用post message发送"))


def test_text_without_han_characters_never_loads_the_chinese_segmenter() -> None:
    code = (
        "import sys; from toolscout.search._internal import tokenize; "
        "tokenize('Send a message, café, 메시지, 天気を取得'); print('rjieba' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_stem_leaves_numbers_and_cjk_alone() -> None:
    assert (stem("2021"), stem("天气"), stem("running")) == ("2021", "天气", "run")


def test_encode_many_matches_tokenize_text_by_text() -> None:
    texts = ["getWeather in Paris", "", "the a of", "café crème", "getWeather in Paris", "a\x00b", "天气", "the"]
    vocabulary = {"paris": 0}
    ids, counts = encode_many(texts, vocabulary)
    expected = [tokenize(text) for text in texts]
    assert counts.tolist() == [len(terms) for terms in expected]
    by_id = {i: term for term, i in vocabulary.items()}
    assert [by_id[i] for i in ids.tolist()] == [term for terms in expected for term in terms]
    assert vocabulary["paris"] == 0


def test_encode_many_of_wordless_texts_is_empty() -> None:
    ids, counts = encode_many(["", "...", "the of"], {})
    assert (ids.tolist(), counts.tolist()) == ([], [0, 0, 0])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("list open PRs", ["list", "open", "pr"]),
        ("call two APIs", ["call", "two", "api"]),
        ("fetch these URLs", ["fetch", "these", "url"]),
        ("user IDs", ["user", "id"]),
        ("getURLs", ["get", "url"]),
        ("HTTPServer", ["http", "server"]),
        ("iOS and macOS", ["i", "os", "and", "mac", "os"]),
    ],
)
def test_a_plural_acronym_is_its_acronym(text: str, expected: list[str]) -> None:
    assert words(text) == expected
    vocabulary: dict[str, int] = {}
    ids, _ = encode_many([text], vocabulary)
    assert tokenize(text) == [list(vocabulary)[i] for i in ids.tolist()]


def test_ascii_text_splits_into_the_words_the_word_pattern_finds() -> None:
    """ASCII text is split by byte routines; the same text with a non-ASCII word goes through the word regex."""
    rng = random.Random(38)
    alphabet = [chr(code) for code in range(128)]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(24)))
        assert words(text) == words(f"{text} é")[:-1], repr(text)


def test_the_word_memos_stop_growing_at_their_bound_and_answers_stay_the_same(monkeypatch) -> None:
    # what requests and catalogs bring is kept per word, bounded: past the bound nothing more is kept, nothing is lost
    from toolscout.search import _tokenize

    _tokenize._forget()
    monkeypatch.setattr(_tokenize, "_MEMO_LIMIT", 50)
    try:
        texts = [f"fetchWidget{i} sends report{i} quickly" for i in range(200)]
        encode_many(texts[:100], {})
        found = [tokenize(text) for text in texts]
        assert all(len(memo) <= 50 + 10 for memo in (_tokenize._memo_words, _tokenize._memo_stems))
        _tokenize._forget()
        monkeypatch.setattr(_tokenize, "_MEMO_LIMIT", 500_000)
        assert found == [tokenize(text) for text in texts]
        assert found[7] == ["fetch", "widget", "7", "send", "report", "7", "quick"]
    finally:
        _tokenize._forget()
