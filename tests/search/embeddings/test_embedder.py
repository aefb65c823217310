from __future__ import annotations

import numpy as np
import pytest

from toolscout.search.embeddings._base import EmbeddingError, normalize_rows


def test_normalize_rows_scales_every_row_to_unit_length() -> None:
    rows = normalize_rows([[3.0, 4.0], [0.0, 2.0]], expected_rows=2, source="test")

    assert rows.dtype == np.float32
    np.testing.assert_allclose(rows, [[0.6, 0.8], [0.0, 1.0]], rtol=1e-6)


@pytest.mark.parametrize(
    ("matrix", "rows"),
    [
        pytest.param([[0.0, 0.0], [1.0, 0.0]], 2, id="zero-vector"),
        pytest.param([[1.0, float("nan")]], 1, id="nan"),
        pytest.param([[1.0, 2.0]], 2, id="too-few-rows"),
        pytest.param([[1.0, 2.0], [1.0]], 2, id="ragged"),
        pytest.param([["a", "b"]], 1, id="not-numbers"),
        pytest.param([1.0, 2.0], 2, id="flat"),
    ],
)
def test_normalize_rows_rejects_malformed_embeddings(matrix: object, rows: int) -> None:
    with pytest.raises(EmbeddingError):
        normalize_rows(matrix, expected_rows=rows, source="test")
