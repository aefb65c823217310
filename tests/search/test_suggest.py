import numpy as np

from toolscout import ToolSpec
from toolscout.search._suggest import NameSuggester

TOOLS = [ToolSpec(name="send_email"), ToolSpec(name="get_weather"), ToolSpec(name="list_channels", namespace="slack")]


def test_suggestions_rank_names_by_similarity() -> None:
    assert NameSuggester(TOOLS).suggest("sendemail", limit=2)[0] == "send_email"


def test_suggestions_respect_limit_and_mask() -> None:
    suggester = NameSuggester(TOOLS)
    assert len(suggester.suggest("slack channels weather", limit=1)) == 1
    assert suggester.suggest("sendemail", limit=3, mask=np.array([False, True, True])) != ()
    assert "send_email" not in suggester.suggest("sendemail", limit=3, mask=np.array([False, True, True]))


def test_punctuation_only_query_gets_no_suggestions() -> None:
    assert NameSuggester(TOOLS).suggest("?!", limit=3) == ()
