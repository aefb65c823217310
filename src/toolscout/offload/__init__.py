"""Context offloading: large tool results become handles the model reads, searches and queries with jq.

```python
from toolscout import ToolScout
from toolscout.offload import Offloader, OffloadSettings

scout = ToolScout(tools, offload=Offloader(OffloadSettings(budget_tokens=4_000)))
```
"""

from ._offloader import Offloader
from ._registry import OutputStoreFactory, register_output_store
from ._settings import OffloadSettings
from ._store import OffloadStore, OutputKind, OutputMeta, OutputMissing

__all__ = [
    "Offloader",
    "OffloadSettings",
    "OffloadStore",
    "OutputKind",
    "OutputMeta",
    "OutputMissing",
    "OutputStoreFactory",
    "register_output_store",
]
