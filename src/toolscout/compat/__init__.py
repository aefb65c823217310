"""Other tool-search systems' config blocks, read as toolscout settings.

Users of Hermes Agent (``tools.tool_search``), everruns (``capabilities``), AstrBot
(``provider_settings``) and mcpagent (an ``mcpagent`` section) keep their config: the gateway
reads those blocks from its config file, ``toolscout config import FILE`` prints the equivalent
``toolscout`` section with a note per key, and `translate_config` does either for a library host.
Each system is one `ConfigTranslator` in a registry (`register_translator` adds another).
"""

from . import _astrbot, _everruns, _hermes, _mcpagent
from ._base import ConfigTranslator, KeyNote, Translated
from ._registry import Translation, register_translator, translate_config

for _translator in (
    _hermes.HermesTranslator(),
    _everruns.EverrunsTranslator(),
    _astrbot.AstrBotTranslator(),
    _mcpagent.McpAgentTranslator(),
):
    register_translator(_translator)

__all__ = [
    "ConfigTranslator",
    "KeyNote",
    "register_translator",
    "translate_config",
    "Translated",
    "Translation",
]
