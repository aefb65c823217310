"""`RevealReach`: which sessions' clients see their reveals, and how many sessions it remembers."""

from __future__ import annotations

from toolscout._scope import Scope
from toolscout.gateway._sessions._callers import Caller, Lifetime
from toolscout.gateway._sessions._relisting import MAX_TRACKED, RevealReach


def caller(session_id: str, lifetime: Lifetime = "durable") -> Caller:
    return Caller(session_id=session_id, principal="local", scope=Scope(), legacy=True, lifetime=lifetime)


def test_a_client_that_calls_after_a_change_without_listing_keeps_its_list_until_it_lists_again() -> None:
    reach = RevealReach()
    reach.called("s")
    reach.changed("s")
    assert reach.sees_reveals(caller("s"))  # told of the change; nothing shows it kept its list yet
    reach.called("s")
    assert not reach.sees_reveals(caller("s"))
    reach.listed("s")
    assert reach.sees_reveals(caller("s"))
    reach.changed("s")
    reach.listed("s")
    reach.called("s")
    assert reach.sees_reveals(caller("s"))


def test_a_stateless_request_never_sees_a_reveal_and_an_ended_session_is_forgotten() -> None:
    reach = RevealReach()
    assert not reach.sees_reveals(caller("r", "request"))
    reach.changed("s")
    reach.called("s")
    reach.forget("s")
    assert reach.sees_reveals(caller("s"))


def test_at_most_max_tracked_sessions_are_remembered_the_oldest_forgotten_first() -> None:
    reach = RevealReach()
    for number in range(MAX_TRACKED + 1):
        reach.changed(f"s{number}")
        reach.called(f"s{number}")
    assert reach.sees_reveals(caller("s0"))
    assert not reach.sees_reveals(caller("s1")) and not reach.sees_reveals(caller(f"s{MAX_TRACKED}"))
