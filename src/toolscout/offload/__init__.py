"""Context offloading: large tool results become handles the model reads, searches and queries with jq.

```python
from toolscout import ToolScout
from toolscout.offload import Offloader, OffloadSettings

scout = ToolScout(tools, offload=Offloader(OffloadSettings(budget_tokens=4_000)))
```
"""

from .filestore import FileOffloadStore
from .handles import is_handle, new_handle
from .offloader import Offloader
from .settings import Limit, OffloadSettings
from .store import OffloadStore, OutputKind, OutputMeta, OutputMissing
from .tools import OFFLOAD_NAMES, QUERY, READ, SEARCH, offload_tools

__all__ = [
    "FileOffloadStore",
    "Limit",
    "OFFLOAD_NAMES",
    "OffloadSettings",
    "OffloadStore",
    "Offloader",
    "OutputKind",
    "OutputMeta",
    "OutputMissing",
    "QUERY",
    "READ",
    "SEARCH",
    "is_handle",
    "new_handle",
    "offload_tools",
]
