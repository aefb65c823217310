import pytest

from toolscout.search._tokenize import STOPWORDS, encode_many, stem, tokenize, words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("get_current_weather", ["get", "current", "weather"], id="snake-case"),
        pytest.param("getCurrentWeather", ["get", "current", "weather"], id="camel-case"),
        pytest.param("HTTPServer", ["http", "server"], id="acronym-before-word"),
        pytest.param("getURL2Text", ["get", "url", "2", "text"], id="acronym-and-digit"),
        pytest.param("sha256sum", ["sha", "256", "sum"], id="digit-boundaries"),
        pytest.param("create-pull-request", ["create", "pull", "request"], id="kebab-case"),
        pytest.param("math.factorial", ["math", "factorial"], id="dots"),
        pytest.param("github:issues/create", ["github", "issues", "create"], id="colon-and-slash"),
        pytest.param("slack__post_message", ["slack", "post", "message"], id="double-underscore"),
        pytest.param("Café Crème", ["cafe", "creme"], id="accents-folded"),
        pytest.param("Straße", ["strasse"], id="casefolded"),
        pytest.param("ПолучитьПогоду", ["получить", "погоду"], id="cyrillic-camel-case"),
        pytest.param("ｆｕｌｌｗｉｄｔｈ", ["fullwidth"], id="nfkc-normalised"),
        pytest.param("天气预报", ["天气", "气预", "预报"], id="chinese-bigrams"),
        pytest.param("天", ["天"], id="single-cjk-character"),
        pytest.param("天気を取得", ["天気", "気を", "を取", "取得"], id="japanese-bigrams"),
        pytest.param("get_天气", ["get", "天气"], id="mixed-scripts"),
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
    assert all(word == word.lower() and word.isalpha() for word in STOPWORDS)


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
