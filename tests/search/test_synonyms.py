from __future__ import annotations

from importlib import resources

import pytest

from toolscout import Catalog, ConfigError, ToolSpec
from toolscout.search._index import IndexConfig, build_index
from toolscout.search._synonyms import ActionSynonyms, synonym_groups
from toolscout.search._tokenize import tokenize

CATALOG = Catalog(
    [
        ToolSpec(name="create_branch", description="Create a branch of a repository."),
        ToolSpec(name="delete_branch", description="Delete a branch of a repository."),
        ToolSpec(name="remove_member", description="Take a member out of a team."),
        ToolSpec(name="delete_member", description="Delete a member account."),
    ]
)


def test_an_action_word_expands_to_the_other_words_of_its_group_by_stem() -> None:
    synonyms = ActionSynonyms()

    assert set(synonyms.expand(tokenize("removing"))) >= {"delet", "eras"}
    assert "remov" not in synonyms.expand(tokenize("removing"))
    assert synonyms.expand(tokenize("weather in Oslo")) == []


def test_a_word_already_in_the_query_is_not_added_again() -> None:
    expanded = ActionSynonyms().expand(tokenize("remove and delete"))

    assert "delet" not in expanded
    assert "remov" not in expanded


def test_custom_groups_replace_the_default_ones() -> None:
    synonyms = ActionSynonyms([("ship", "deploy")])

    assert synonyms.expand(tokenize("ship it")) == ["deploy"]
    assert synonyms.expand(tokenize("remove it")) == []


def test_a_request_in_other_words_finds_the_tool_named_with_the_conventional_verb() -> None:
    index = build_index(CATALOG)

    assert index.search("erase the branch fix/login").hits[0].name == "delete_branch"
    assert index.search("add a branch").hits[0].name == "create_branch"


def test_the_literal_word_outranks_its_synonym() -> None:
    names = [hit.name for hit in build_index(CATALOG).search("remove a member").hits]

    assert names.index("remove_member") < names.index("delete_member")


def test_a_zero_synonym_weight_turns_expansion_off() -> None:
    index = build_index(CATALOG, config=IndexConfig(synonym_weight=0.0))

    assert index.search("erase it").hits == ()
    expanded = {hit.name for hit in build_index(CATALOG).search("erase it").hits}
    assert expanded == {"delete_branch", "remove_member", "delete_member"}


def test_a_negative_synonym_weight_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as caught:
        build_index(CATALOG, config=IndexConfig(synonym_weight=-0.5))

    assert caught.value.key == "synonym_weight"


def test_a_catalog_adds_its_own_synonym_groups_through_the_config() -> None:
    catalog = Catalog([ToolSpec(name="deploy_app", description="Deploy the app."), ToolSpec(name="log_tail")])
    groups = (*synonym_groups(), ("ship", "deploy"))

    assert build_index(catalog).search("ship it").hits == ()
    assert build_index(catalog, config=IndexConfig(synonyms=groups)).search("ship it").hits[0].name == "deploy_app"


MESSAGING = Catalog(
    [
        ToolSpec(name="chat__archive", description="Archive a message of a channel."),
        ToolSpec(name="chat__send", description="Send a message to a channel."),
        ToolSpec(name="calendar__cancel", description="Cancel an event and tell the attendees a new time."),
        ToolSpec(name="clock__now", description="The time now in a timezone."),
    ]
)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("post a message in the channel", "chat__send"),
        ("notify the channel with a message", "chat__send"),
        ("tell me the time in Tokyo", "clock__now"),
        ("let us know the time in Oslo", "clock__now"),
        ("let the team know in the channel that the build is green", "chat__send"),
        ("let everyone know", "chat__send"),
        ("let the team in #deploys know that the build is green", "chat__send"),
        ("préviens l'équipe dans le canal que le build est au vert", "chat__send"),
    ],
)
def test_posting_and_notifying_mean_sending_and_tell_me_only_frames_a_request(query: str, expected: str) -> None:
    hits = build_index(MESSAGING).search(query, limit=2, mode="lexical").hits

    assert hits[0].name == expected


FILES = Catalog(
    [
        ToolSpec(name="files__delete", description="Remove a file, or a directory with everything inside it."),
        ToolSpec(name="mail__delete", description="Move messages to the trash folder."),
        ToolSpec(name="mail__move", description="Move messages between folders."),
        ToolSpec(name="clock__now", description="The time now in a timezone."),
        ToolSpec(name="chat__send", description="Send a message to a channel."),
        ToolSpec(name="chat__history", description="Read the latest messages of a channel."),
    ]
)


@pytest.mark.parametrize(
    "query",
    [
        "delete the folder build/",
        "borra la carpeta build/",
        "удали папку build/",
        "删除 build/ 文件夹",
        "lösch den Ordner build/",
    ],
)
def test_a_folder_is_a_directory_and_a_translated_action_expands_like_its_english_word(query: str) -> None:
    assert build_index(FILES).search(query).hits[0].name == "files__delete"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("告诉我现在东京几点", "clock__now"),
        ("在频道里告诉团队构建通过了", "chat__send"),
    ],
)
def test_tell_me_only_frames_a_request_in_chinese_too(query: str, expected: str) -> None:
    assert build_index(FILES).search(query).hits[0].name == expected


def test_tell_me_in_chinese_asks_for_what_was_said_rather_than_to_send_something() -> None:
    sample = Catalog.from_file(str(resources.files("toolscout") / "data" / "sample_catalog.json"))
    hits = build_index(sample).search("告诉我今天 #incidents 频道里都聊了什么").hits

    assert hits[0].name == "slack__get_channel_history"


REVIEWS = Catalog(
    [
        ToolSpec(name="list_pull_requests", description="List the pull requests of a repository, open or closed."),
        ToolSpec(name="add_comment", description="Comment on an issue in a repository."),
        ToolSpec(name="search_issues", description="Search open issues of a repository by label."),
    ]
)


@pytest.mark.parametrize(
    "query",
    [
        "which PRs are still open in acme/web?",
        "¿qué PR siguen abiertos en acme/web?",
        "quelles PR sont encore ouvertes dans acme/web ?",
        "какие PR ещё открыты в acme/web?",
        "acme/web에서 아직 열려 있는 PR은 뭐야?",
    ],
)
def test_a_pr_is_a_pull_request_in_any_language(query: str) -> None:
    assert build_index(REVIEWS).search(query).hits[0].name == "list_pull_requests"


def test_a_phrase_synonym_counts_only_where_the_catalog_has_the_phrase() -> None:
    catalog = Catalog([ToolSpec(name="pull_image", description="Pull an image."), ToolSpec(name="make_request")])

    assert build_index(catalog).search("PR").hits == ()
