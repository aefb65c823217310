"""Context offloading: large tool results become handles the model reads, searches and queries with jq.

```python
from toolscout import ToolScout
from toolscout.offload import Offloader, OffloadSettings

scout = ToolScout(tools, offload=Offloader(OffloadSettings(budget_tokens=4_000)))
```
"""

from ._filestore import FileOffloadStore
from ._handles import is_handle, new_handle
from ._offloader import Offloader
from ._registry import OutputStoreFactory, open_output_store, output_store_schemes, register_output_store
from ._settings import Limit, OffloadSettings
from ._store import OffloadStore, OutputKind, OutputMeta, OutputMissing
from ._tools import OFFLOAD_NAMES, QUERY, READ, SEARCH, offload_tools

__all__ = [
    "FileOffloadStore",
    "is_handle",
    "Limit",
    "new_handle",
    "OFFLOAD_NAMES",
    "offload_tools",
    "Offloader",
    "OffloadSettings",
    "OffloadStore",
    "open_output_store",
    "output_store_schemes",
    "OutputKind",
    "OutputMeta",
    "OutputMissing",
    "OutputStoreFactory",
    "QUERY",
    "READ",
    "register_output_store",
    "SEARCH",
]
