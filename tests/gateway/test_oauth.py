"""OAuth access tokens checked against a real local issuer's JWKS (served over HTTP), signed by the test."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from pydantic import RootModel

from tests.gateway.issuer import RESOURCE, Issuer, SigningKey, oauth_settings, running_issuer
from toolscout import Scope, ToolSpec
from toolscout._errors import ConfigError
from toolscout._validation import validate_section
from toolscout.gateway import AuthSettings, Credentials, GatewayConfig, Grant, Refusal, register_authenticator
from toolscout.gateway._identity._grants import SchemeSettings, authenticator_for
from toolscout.gateway._internal import JwtAuthenticator, OAuthSettings

pytestmark = pytest.mark.anyio


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    with running_issuer() as running:
        yield running


def authenticator(issuer: Issuer, **overrides: Any) -> JwtAuthenticator:
    return JwtAuthenticator(OAuthSettings.model_validate(oauth_settings(issuer, **overrides)))


async def check(auth: JwtAuthenticator, token: str) -> Grant | Refusal | None:
    with anyio.fail_after(30):
        return await auth.authenticate(Credentials(bearer=token))


def refusal(answer: Grant | Refusal | None) -> Refusal:
    assert isinstance(answer, Refusal), answer
    return answer


def spec(name: str) -> ToolSpec:
    return ToolSpec(name=name, namespace=name.split("__")[0])


async def test_a_valid_token_gets_the_grant_its_scopes_pick_named_after_its_subject(issuer: Issuer) -> None:
    auth = authenticator(issuer)
    reader = await check(auth, issuer.token())
    admin = await check(auth, issuer.token(sub="bob", scope="toolscout.read toolscout.admin"))
    assert isinstance(reader, Grant) and isinstance(admin, Grant)
    assert (reader.label, reader.subject, reader.issuer, reader.admin) == ("oauth/alice", "alice", issuer.issuer, False)
    assert reader.scope.permits(spec("time__get_current_time")) and not reader.scope.permits(spec("git__git_log"))
    assert admin.label == "oauth/bob" and admin.admin and admin.scope.permits(spec("git__git_log"))


async def test_a_scope_list_claim_and_a_claim_condition_are_read_as_configured(issuer: Issuer) -> None:
    auth = authenticator(
        issuer,
        scope_claim="scp",
        grants={
            "staff": {"claims": {"groups": "staff"}, "tools": ["memory__read_*"]},
            "rest": {"scopes": ["x"], "servers": ["time"]},
        },
    )
    staff = await check(auth, issuer.token(scope=None, scp=["x"], groups=["eng", "staff"]))
    scoped = await check(auth, issuer.token(scope=None, scp=["x"], groups=["eng"]))
    assert isinstance(staff, Grant) and staff.scope.permits(spec("memory__read_graph"))
    assert isinstance(scoped, Grant) and not scoped.scope.permits(spec("memory__read_graph"))


async def test_a_subject_with_characters_a_label_must_not_hold_is_hashed_into_a_stable_label(issuer: Issuer) -> None:
    auth = authenticator(issuer)
    first = await check(auth, issuer.token(sub="tenant:alice smith"))
    again = await check(auth, issuer.token(sub="tenant:alice smith"))
    other = await check(auth, issuer.token(sub="tenant:bob"))
    assert isinstance(first, Grant) and isinstance(again, Grant) and isinstance(other, Grant)
    assert first.label == again.label != other.label
    assert ":" not in first.label and " " not in first.label and first.label.startswith("oauth/")


async def test_an_expired_token_is_refused_beyond_the_clock_skew_and_accepted_within_it(issuer: Issuer) -> None:
    auth = authenticator(issuer, leeway_s=60)
    now = int(time.time())
    expired = refusal(await check(auth, issuer.token(exp=now - 120)))
    skewed = await check(auth, issuer.token(exp=now - 20))
    assert (expired.status, expired.error) == (401, "invalid_token") and "expired" in expired.description
    assert isinstance(skewed, Grant)


async def test_a_token_not_valid_yet_is_refused(issuer: Issuer) -> None:
    answer = refusal(await check(authenticator(issuer, leeway_s=5), issuer.token(nbf=int(time.time()) + 300)))
    assert "not valid yet" in answer.description


async def test_a_token_for_another_audience_is_refused_and_a_listed_one_accepted(issuer: Issuer) -> None:
    auth = authenticator(issuer)
    other = refusal(await check(auth, issuer.token(aud="https://another.example.test/mcp")))
    assert "not issued for this resource" in other.description and RESOURCE in other.description
    listed = authenticator(issuer, audience=["api://toolscout", RESOURCE])
    assert isinstance(await check(listed, issuer.token(aud=["api://toolscout"])), Grant)
    assert isinstance(refusal(await check(auth, issuer.token(aud=None))), Refusal)


async def test_a_token_from_another_issuer_is_refused(issuer: Issuer) -> None:
    answer = refusal(await check(authenticator(issuer), issuer.token(iss="https://evil.example.test/")))
    assert "another issuer" in answer.description


async def test_a_token_without_exp_or_sub_is_refused(issuer: Issuer) -> None:
    auth = authenticator(issuer)
    assert refusal(await check(auth, issuer.token(exp=None))).status == 401
    assert refusal(await check(auth, issuer.token(sub=None))).status == 401


async def test_a_rotated_key_is_fetched_when_a_token_names_it(issuer: Issuer) -> None:
    auth = authenticator(issuer, jwks_refetch_min_s=0)
    before = await check(auth, issuer.token())
    new_key = SigningKey("key-2", "ES256")
    issuer.rotate(new_key)
    after = await check(auth, issuer.token(new_key))
    fetched = issuer.fetches
    retired = await check(auth, issuer.token(SigningKey("key-1")))  # a key the issuer no longer publishes
    assert isinstance(before, Grant) and isinstance(after, Grant)
    assert fetched == 2
    assert isinstance(retired, Refusal)


async def test_unknown_key_ids_refetch_the_keys_at_most_once_per_interval(issuer: Issuer) -> None:
    auth = authenticator(issuer, jwks_refetch_min_s=3600)
    assert isinstance(await check(auth, issuer.token()), Grant)
    stranger = SigningKey("made-up")
    answers = [await check(auth, issuer.token(stranger, kid=f"made-up-{n}")) for n in range(20)]
    for answer in answers:
        assert "a key the issuer does not publish" in refusal(answer).description
    assert issuer.fetches == 1  # the first fetch was within the interval: no fetch at all


async def test_concurrent_tokens_naming_a_new_key_share_one_fetch(issuer: Issuer) -> None:
    auth = authenticator(issuer, jwks_refetch_min_s=0)
    assert isinstance(await check(auth, issuer.token()), Grant)
    new_key = SigningKey("key-3")
    issuer.rotate(new_key)
    answers: list[Grant | Refusal | None] = []

    async def one() -> None:
        answers.append(await check(auth, issuer.token(new_key)))

    async with anyio.create_task_group() as group:
        for _ in range(10):
            group.start_soon(one)
    assert all(isinstance(answer, Grant) for answer in answers) and len(answers) == 10
    assert issuer.fetches == 2


async def test_a_token_with_alg_none_is_refused_without_fetching_keys(issuer: Issuer) -> None:
    answer = refusal(await check(authenticator(issuer), issuer.unsigned()))
    assert "'none' is not accepted" in answer.description
    assert issuer.fetches == 0


async def test_a_token_hmac_signed_with_the_public_key_is_refused(issuer: Issuer) -> None:
    auth = authenticator(issuer)
    answer = refusal(await check(auth, issuer.hmac_with_public_key()))
    assert "'HS256' is not accepted" in answer.description


async def test_a_token_whose_alg_differs_from_its_key_is_refused(issuer: Issuer) -> None:
    key = issuer.keys[0]  # an RS256 key; the token claims PS256 (also allowed) with it
    forged = SigningKey(key.kid, "PS256")
    forged.private = key.private
    answer = refusal(await check(authenticator(issuer), issuer.token(forged)))
    assert "a key the issuer does not publish" in answer.description


async def test_a_token_without_kid_uses_the_only_key_for_its_algorithm(issuer: Issuer) -> None:
    assert isinstance(await check(authenticator(issuer), issuer.token(kid=None)), Grant)


async def test_a_valid_token_matching_no_grant_is_403_naming_the_scopes_that_would_do(issuer: Issuer) -> None:
    answer = refusal(await check(authenticator(issuer), issuer.token(scope="profile email")))
    assert (answer.status, answer.error) == (403, "insufficient_scope")
    assert answer.scope == "toolscout.admin toolscout.read"


async def test_an_unreachable_issuer_is_503_and_known_keys_outlive_a_failed_refresh(issuer: Issuer) -> None:
    issuer.available = False
    down = refusal(await check(authenticator(issuer), issuer.token()))
    assert (down.status, down.error) == (503, "temporarily_unavailable")
    issuer.available = True
    auth = authenticator(issuer, jwks_refetch_min_s=0)
    assert isinstance(await check(auth, issuer.token()), Grant)
    issuer.available = False
    assert isinstance(refusal(await check(auth, issuer.token(kid="rotated"))), Refusal)  # the refetch fails
    assert isinstance(await check(auth, issuer.token()), Grant)


async def test_a_gateway_that_never_got_the_keys_answers_503_and_retries_once_per_interval(issuer: Issuer) -> None:
    issuer.available = False
    patient = authenticator(issuer, jwks_refetch_min_s=3600)
    answers = [refusal(await check(patient, issuer.token())) for _ in range(3)]
    assert [(answer.status, answer.error) for answer in answers] == [(503, "temporarily_unavailable")] * 3
    assert issuer.fetches == 1  # no stream of fetches at an issuer that is down
    eager = authenticator(issuer, jwks_refetch_min_s=0)
    assert refusal(await check(eager, issuer.token())).status == 503
    issuer.available = True
    assert isinstance(await check(eager, issuer.token()), Grant)


async def test_a_bearer_token_that_is_not_a_jwt_is_left_to_the_other_schemes(issuer: Issuer) -> None:
    auth = authenticator(issuer)
    assert await check(auth, "static-token-3f9d2c71e5b84a06") is None
    assert await auth.authenticate(Credentials(bearer=None)) is None


async def test_static_tokens_and_oauth_together_each_recognise_their_own(issuer: Issuer) -> None:
    settings = AuthSettings.model_validate(
        {"tokens": {"ci": {"token": "ci-token-3f9d2c71e5b84a06", "servers": ["git"]}}, "oauth": oauth_settings(issuer)}
    )
    auth = authenticator_for(settings.sections())
    static = await auth.authenticate(Credentials(bearer="ci-token-3f9d2c71e5b84a06"))
    oauth = await auth.authenticate(Credentials(bearer=issuer.token()))
    unknown = await auth.authenticate(Credentials(bearer="not-a-token-at-all"))
    assert isinstance(static, Grant) and static.label == "ci" and static.subject is None
    assert isinstance(oauth, Grant) and oauth.label == "oauth/alice"
    assert unknown is None
    assert auth.challenge == {
        "resource_metadata": "https://tools.example.test/.well-known/oauth-protected-resource/mcp"
    }


async def test_a_registered_authenticator_is_built_from_its_section() -> None:
    class HeaderKeySettings(RootModel[dict[str, str]], SchemeSettings):
        pass

    class HeaderKeys:
        def __init__(self, section: HeaderKeySettings) -> None:
            self.section = section

        async def authenticate(self, credentials: Credentials) -> Grant | Refusal | None:
            label = self.section.root.get(credentials.headers.get("x-api-key", ""))
            return None if label is None else Grant(label=label, scope=Scope.select(servers=["time"]))

        challenge: dict[str, str] = {}
        routes = ()

    register_authenticator("test-header-keys", HeaderKeys, settings=HeaderKeySettings)
    auth = authenticator_for([("test-header-keys", HeaderKeySettings({"k-123": "robot"}))])
    grant = await auth.authenticate(Credentials(bearer=None, headers={"x-api-key": "k-123"}))
    assert isinstance(grant, Grant) and grant.label == "robot"
    assert await auth.authenticate(Credentials(bearer=None, headers={"x-api-key": "nope"})) is None
    with pytest.raises(LookupError, match="toolscout.auth.nothing"):
        authenticator_for([("nothing", {})])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"algorithms": ["RS256", "none"]}, "'none' is not accepted"),
        ({"algorithms": ["HS256"]}, "'HS256' is not accepted"),
        ({"issuer": "http://login.example.test/"}, "must use https://"),
        ({"jwks_uri": "ftp://login.example.test/keys"}, "must be an https:// URL"),
        ({"grants": {"all": {}, "readers": {"scopes": ["r"]}}}, "grant 'all' matches every token"),
        ({"grants": {}}, "must not be empty"),
        ({"leeway_s": 900}, "must be at most 300"),
    ],
)
def test_oauth_settings_refuse_unsafe_or_useless_values_naming_the_key(change: dict[str, Any], message: str) -> None:
    section = {
        "issuer": "https://login.example.test/",
        "jwks_uri": "https://login.example.test/keys",
        "resource": RESOURCE,
        "grants": {"readers": {"scopes": ["r"]}},
        **change,
    }
    with pytest.raises(ConfigError) as raised:
        validate_section(AuthSettings, {"oauth": section}, "toolscout.auth")
    assert message in str(raised.value) and "toolscout.auth.oauth" in str(raised.value)


def test_the_readme_identity_provider_example_is_a_valid_config() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    block = next(block for block in re.findall(r"```json\n(.*?)```", readme, flags=re.DOTALL) if '"oauth"' in block)
    servers = {"time": {"command": "x"}, "github": {"command": "y"}}
    config = GatewayConfig.from_mapping({"mcpServers": servers, **json.loads(block)})
    assert config.settings.auth is not None
    oauth = config.settings.auth.section("oauth")
    assert isinstance(oauth, OAuthSettings) and list(oauth.grants) == ["ops", "readers", "staff"]


async def test_a_key_server_that_drips_its_answer_is_given_up_after_jwks_timeout_s_in_all(issuer: Issuer) -> None:
    issuer.drip_s = 0.2  # every byte well within the timeout; the whole set would take minutes
    answer = refusal(await check(authenticator(issuer, jwks_timeout_s=1), issuer.token()))
    assert (answer.status, answer.error) == (503, "temporarily_unavailable")


async def test_known_keys_keep_serving_while_a_refresh_of_the_set_hangs(issuer: Issuer) -> None:
    auth = authenticator(issuer, jwks_max_age_s=1, jwks_refetch_min_s=0, jwks_timeout_s=30)
    assert isinstance(await check(auth, issuer.token()), Grant)
    issuer.drip_s = 0.2
    await anyio.sleep(1.1)  # the keys are now due for a refresh, which will hang
    with anyio.fail_after(10):  # well under jwks_timeout_s: no request waits for the refresh
        answers = [await auth.authenticate(Credentials(bearer=issuer.token())) for _ in range(5)]
    with anyio.fail_after(10):
        while issuer.fetches < 2:  # the refresh started in the background
            await anyio.sleep(0.05)
    assert all(isinstance(answer, Grant) for answer in answers)
    assert issuer.fetches == 2  # one refresh for all five


async def test_a_huge_key_set_is_refused_once_past_the_cap_without_reading_the_rest(issuer: Issuer) -> None:
    issuer.huge_bytes = 256 << 20
    answer = refusal(await check(authenticator(issuer), issuer.token()))
    assert (answer.status, answer.error) == (503, "temporarily_unavailable")
    assert issuer.sent_bytes < 64 << 20  # the 1 MiB cap, plus what the sockets' buffers took
