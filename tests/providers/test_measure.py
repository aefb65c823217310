from toolscout import CharsPerToken
from toolscout.providers import anthropic, openai_chat, openai_responses
from toolscout.providers._measure import measure_rendering

COUNTER = CharsPerToken()


def test_anthropic_native_reads_only_the_non_deferred_part_up_front(make_scout):
    rendering = anthropic.render(make_scout().session("s"), style="native", search="bm25")
    size = measure_rendering(rendering, COUNTER)
    assert (size.declared, size.deferred) == (10, 9)
    assert size.context_tokens < size.request_tokens / 2


def test_hosted_openai_search_still_shows_namespace_names_and_descriptions(make_scout):
    rendering = openai_responses.render(make_scout().session("s"), style="native")
    size = measure_rendering(rendering, COUNTER)
    assert (size.declared, size.deferred) == (10, 9)
    assert 0 < size.context_tokens < size.request_tokens


def test_client_side_styles_are_read_in_full(make_scout):
    size = measure_rendering(openai_chat.render(make_scout().session("s")), COUNTER)
    assert size.context_tokens == size.request_tokens and (size.declared, size.deferred) == (4, 0)
