import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from toolscout import CharsPerToken
from toolscout._tokens import default_token_counter
from toolscout.offload._measure import count_tokens, fit_prefix, over_budget, safe_cut

COUNTER = CharsPerToken()


@pytest.mark.parametrize(
    ("chars", "over"),
    [
        pytest.param(799, False, id="just-under"),
        pytest.param(800, False, id="at-budget"),
        pytest.param(801, True, id="just-over"),
    ],
)
def test_budget_edges_count_at_the_budget_as_within(chars, over):
    assert over_budget("x" * chars, 200, COUNTER) is over


def test_a_huge_text_is_over_budget_without_counting_all_of_it():
    assert over_budget("word " * 2_000_000, 4_000, default_token_counter())


def test_a_huge_run_of_whitespace_is_measured_whole():
    counter = default_token_counter()
    text = " " * 300_000
    assert over_budget(text, 200, counter) == (count_tokens(text, counter) > 200)


def test_counting_a_text_longer_than_a_counter_accepts_works():
    text = "abc def " * 400_000  # 3.2M characters: some counters refuse ~1M at once
    estimate = count_tokens(text, default_token_counter())
    exact_per_copy = default_token_counter().count("abc def " * 1000) / 1000
    assert abs(estimate - exact_per_copy * 400_000) / estimate < 0.05


@pytest.mark.parametrize(
    ("text", "index", "expected"),
    [
        pytest.param("ab\r\ncd", 3, 2, id="never-between-cr-and-lf"),
        pytest.param("ab\r\ncd", 4, 4, id="after-crlf-is-fine"),
        pytest.param("cafe\u0301!", 4, 3, id="never-before-a-combining-accent"),
        pytest.param("x👍🏽y", 2, 1, id="never-before-a-skin-tone"),
        pytest.param("x👩\u200d💻y", 2, 1, id="never-before-a-zero-width-joiner"),
        pytest.param("x👩\u200d💻y", 3, 1, id="never-after-a-zero-width-joiner"),
        pytest.param("x❤\ufe0fy", 2, 1, id="never-before-a-variation-selector"),
        pytest.param("plain", 3, 3, id="ascii-anywhere"),
    ],
)
def test_safe_cut_moves_back_to_a_safe_point(text, index, expected):
    assert safe_cut(text, index) == expected


def test_fit_prefix_prefers_a_line_end():
    text = "".join(f"line {i}\n" for i in range(100))
    kept = fit_prefix(text, 20, COUNTER)
    assert text[:kept].endswith("\n")
    assert COUNTER.count(text[:kept]) <= 20


def test_fit_prefix_of_a_single_enormous_line_cuts_inside_it():
    text = "é" * 100_000
    kept = fit_prefix(text, 50, COUNTER)
    assert kept == 200


@given(st.text(alphabet=st.sampled_from(["a", "\r", "\n", "é", "😀", "\u0301", "\u200d", "漢"]), max_size=300))
@example("a\u0301\u200d\r\n")  # no fully safe cut before the CRLF: found by Hypothesis in CI
def test_fit_prefix_never_splits_crlf_and_stays_in_budget(text):
    for budget in (1, 5, 20):
        kept = fit_prefix(text, budget, COUNTER, prefer_line_end=False)
        assert COUNTER.count(text[:kept]) <= budget
        assert not (0 < kept < len(text) and text[kept - 1] == "\r" and text[kept] == "\n")
