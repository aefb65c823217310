"""Filling a frozen, slotted record's fields directly, for the few records made on every search.

The generated ``__init__`` of a ``@dataclass(frozen=True, slots=True)`` sets each field through
``object.__setattr__``, at twice the cost of the slot's own setter. A hot path that makes one record per hit builds
it with `slot_setters` instead, every field given; a test compares such a record with one made through ``__init__``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

SlotSetter: TypeAlias = Callable[[Any, object], None]
"""Sets one slot of a record: ``setter(record, value)``."""


def slot_setters(record_type: type, *fields: str) -> tuple[SlotSetter, ...]:
    """The slot setters of `record_type`'s `fields`, in the order given."""
    return tuple(record_type.__dict__[name].__set__ for name in fields)
