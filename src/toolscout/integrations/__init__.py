"""Adapters for agent frameworks, each behind its own extra.

- `toolscout.integrations.pydantic_ai`: ``ScoutToolset`` (``toolscout[pydantic-ai]``)
- `toolscout.integrations.openai_agents`: ``scout_tools``, ``scout_instructions`` (``toolscout[openai-agents]``)
- `toolscout.integrations.langchain`: ``ScoutTools`` (``toolscout[langchain]``)

Import the module of the framework you use; this package imports none of them.
"""
