"""onnxruntime, loaded with its telemetry off unless the user has chosen otherwise.

onnxruntime 1.32 on Linux starts Microsoft's 1DS telemetry client when it loads: it writes a
session file ``.ses`` into the temp folder, keeps a device id and a queue of events under
``~/.cache/Microsoft/DeveloperTools/.onnxruntime/``, and uploads process, model-load and error
events to ``mobile.events.data.microsoft.com``. ``ORT_DISABLE_TELEMETRY=1``, read once when
onnxruntime loads, keeps all of that from starting. toolscout sets it (only when it is unset) before
its first import of onnxruntime; set ``ORT_DISABLE_TELEMETRY=0`` to keep onnxruntime's default.
A process that imported onnxruntime before toolscout did keeps whatever it started with.
"""

from __future__ import annotations

import os

os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

import onnxruntime

__all__ = ["onnxruntime"]
