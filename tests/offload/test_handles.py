import pytest

from toolscout.offload._internal import is_handle, new_handle


def test_new_handles_are_valid_and_unique():
    handles = {new_handle() for _ in range(1000)}
    assert len(handles) == 1000
    assert all(is_handle(handle) for handle in handles)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param("", id="empty"),
        pytest.param("out_", id="prefix-only"),
        pytest.param("out_0123456789abcdef012", id="too-short"),
        pytest.param("out_0123456789abcdef01234", id="too-long"),
        pytest.param("out_0123456789ABCDEF0123", id="uppercase"),
        pytest.param("../out_0123456789abcdef0123", id="dot-dot"),
        pytest.param("out_0123456789abcdef0123/..", id="trailing-path"),
        pytest.param("/etc/passwd", id="absolute-path"),
        pytest.param("out_0123456789abcdef012\x00", id="nul-byte"),
        pytest.param("out_0123456789abcdef0123\n", id="trailing-newline"),
        pytest.param(" out_0123456789abcdef0123", id="leading-space"),
        pytest.param("out_%2e%2e%2f0123456789ab", id="url-encoded"),
        pytest.param("out_０123456789abcdef0123", id="fullwidth-digit"),
        pytest.param(None, id="none"),
        pytest.param(42, id="number"),
        pytest.param(["out_0123456789abcdef0123"], id="list"),
    ],
)
def test_anything_but_the_exact_handle_form_is_rejected(value):
    assert not is_handle(value)
