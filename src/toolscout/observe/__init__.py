"""Observability: the activity log, Prometheus metrics, and reports over an activity log."""

from ._activity import ActivityEvent, ActivityKind, ActivityListener, ActivityLog
from ._metrics import CONTENT_TYPE, Metrics
from ._report import ActivityReport, UpstreamErrors, summarise

__all__ = [
    "ActivityEvent",
    "ActivityKind",
    "ActivityListener",
    "ActivityLog",
    "ActivityReport",
    "CONTENT_TYPE",
    "Metrics",
    "summarise",
    "UpstreamErrors",
]
