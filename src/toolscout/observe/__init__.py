"""Observability: the activity log, Prometheus metrics, reports over an activity log, and OpenTelemetry spans.

With the ``tracing`` setting on, every dispatched call is a span named after its activity event's kind
(``toolscout.search``, ``toolscout.describe``, ``toolscout.call``, ``toolscout.refusal``) and every gateway
call to an upstream a ``toolscout.upstream`` span, on the global tracer provider. Attributes:
``toolscout.session.id``, ``gen_ai.tool.name``, ``toolscout.outcome`` (``ok`` or the error code, also in
``error.type``), ``toolscout.hits``, ``toolscout.search.mode``, ``toolscout.upstream``,
``toolscout.upstream.tool``; ``gen_ai.tool.call.arguments`` and ``toolscout.search.query`` only when the
activity log keeps argument values.
"""

from ._activity import ActivityEvent, ActivityKind, ActivityListener, ActivityLog

__all__ = [
    "ActivityEvent",
    "ActivityKind",
    "ActivityListener",
    "ActivityLog",
]
