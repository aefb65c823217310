"""`check_schema`: is a parameter schema valid JSON Schema? Fast, with `jsonschema`'s own errors.

Checking each tool's schema against its dialect's metaschema with `jsonschema` takes about a
millisecond, most of a 10,000-tool catalog's load time. So a schema is first checked against
the same metaschema by `jsonschema_rs` (compiled; ~20 µs a schema), with the formats
`jsonschema` checks checked by `jsonschema`'s own format checker. Only a schema that
`jsonschema_rs` rejects goes through `jsonschema`'s ``check_schema``: an invalid schema raises
exactly the `SchemaError` it always did, and a schema that only `jsonschema_rs` objects to (it
checks more formats, e.g. that ``$id`` is a URI) still passes. (A cache of schemas already seen,
keyed by canonical JSON, was measured and left out: making the key costs twice the check.)
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial

import jsonschema_rs
from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for

from .._types import JsonObject

__all__ = ["check_schema"]


def check_schema(schema: JsonObject) -> None:
    """Check `schema` against the metaschema of its ``$schema`` dialect (default: Draft 2020-12).

    Raises:
        jsonschema.SchemaError: The schema is invalid (the error `jsonschema` reports).
    """
    dialect = validator_for(schema, default=Draft202012Validator)
    if not _valid_for_rust(dialect, schema):
        dialect.check_schema(schema)


def _valid_for_rust(dialect: type[Validator], schema: JsonObject) -> bool:
    metaschema = _metaschema(dialect)
    try:
        return metaschema is not None and metaschema.is_valid(schema)
    except (TypeError, ValueError, OverflowError, RecursionError):  # a value Rust cannot take: jsonschema decides
        return False


@cache
def _metaschema(dialect: type[Validator]) -> jsonschema_rs.Validator | None:
    """A compiled validator of `dialect`'s metaschema, checking formats as ``dialect.check_schema`` does.

    None for a dialect `jsonschema_rs` does not support (Draft 3): `jsonschema` checks those.
    """
    checker = validator_for(dialect.META_SCHEMA, default=dialect).FORMAT_CHECKER
    formats: dict[str, Callable[..., bool]] = {
        name: partial(checker.conforms, format=name) for name in checker.checkers
    }
    try:
        return jsonschema_rs.validator_for(dialect.META_SCHEMA, formats=formats, validate_formats=True, offline=True)
    except ValueError:
        return None
