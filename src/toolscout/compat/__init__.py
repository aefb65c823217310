"""Other tool-search systems' config blocks, read as toolscout settings.

Users of Hermes Agent (``tools.tool_search``), everruns (``capabilities``), AstrBot
(``provider_settings``) and mcpagent (an ``mcpagent`` section) keep their config: the gateway
reads those blocks from its config file, ``toolscout config import FILE`` prints the equivalent
``toolscout`` section with a note per key, and `translate_config` does either for a library host.
Each system is one `ConfigTranslator` in a registry (`register_translator` adds another).
"""

from ._astrbot import AstrBotTranslator
from ._base import ConfigTranslator, KeyNote, Translated
from ._everruns import EverrunsTranslator
from ._hermes import HermesTranslator
from ._mcpagent import McpAgentTranslator
from ._registry import Translation, register_translator, translate_config, translators

for _translator in (HermesTranslator(), EverrunsTranslator(), AstrBotTranslator(), McpAgentTranslator()):
    register_translator(_translator)

__all__ = [
    "AstrBotTranslator",
    "ConfigTranslator",
    "EverrunsTranslator",
    "HermesTranslator",
    "KeyNote",
    "McpAgentTranslator",
    "register_translator",
    "translate_config",
    "Translated",
    "Translation",
    "translators",
]
