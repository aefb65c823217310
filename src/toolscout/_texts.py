"""Every text the model reads, in one place: guidance, tool descriptions, answer hints and refusals.

Wording is reviewed here and nowhere else; `tests/golden/texts.json` pins every text byte for byte
(regenerate with ``.venv/bin/python -m tests.golden.regen_texts`` after an intended change). Texts that
take values are small functions; the values are inserted verbatim. Texts that name a bridge tool take
the configured `BridgeNames` (the golden file renders them with the defaults).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._settings import BridgeNames

__all__ = [
    "NOT_RUN",
    "STORE_DOWN",
    "SUBSCRIPTION_LIMIT",
    "Bridge",
    "Dispatch",
    "Guidance",
    "Offload",
    "Search",
    "Upstream",
]

NOT_RUN = "The tool was not run."
_NOT_MISSING = "If nothing matches, try other words before deciding a capability is missing."
_NEVER_MISSING = "Never conclude a capability is missing before searching for it."


class Guidance:
    """The system-prompt guidance of each disclosure style."""

    NATIVE_HOSTED = (
        "Some of your tools are loaded on demand. When you need a capability you do not see, use tool search "
        f"to load it, then call it. {_NEVER_MISSING}"
    )
    HOSTED_SEARCH = "tool search"
    """What the listing header calls a provider-hosted search."""

    @staticmethod
    def bridge(names: BridgeNames) -> str:
        """Bridge style."""
        return (
            "Some of your tools are not in your tool list; they are found on demand. "
            f"When you need a capability you do not see, call {names.search} with a few keywords (service + action), "
            f"then {names.describe} to read the parameters, then {names.call} to run the tool. "
            "A tool found this way exists even though it is not listed. "
            f"{_NEVER_MISSING}"
        )

    @staticmethod
    def reveal(names: BridgeNames) -> str:
        """Reveal style."""
        return (
            "Some of your tools are not in your tool list; they are found on demand. "
            f"When you need a capability you do not see, call {names.search} with a few keywords (service + action); "
            "the tools it returns are added to your tool list and you call them directly from your next step. "
            f"{_NEVER_MISSING}"
        )

    @staticmethod
    def native_client(names: BridgeNames) -> str:
        """Native style with toolscout's own search tool."""
        return (
            "Some of your tools are loaded on demand. When you need a capability you do not see, "
            f"call {names.search} with a few keywords (service + action); the tools it finds become available "
            f"to call directly. {_NEVER_MISSING}"
        )

    @staticmethod
    def listing_header(search: str) -> str:
        """The line above the catalog listing; `search` names the search tool."""
        return f"Tools available through {search}:"

    @staticmethod
    def presearched(tools: str) -> str:
        """The line naming the tools a search of the user's message loaded for this turn (`tools`: their names)."""
        return f"Loaded for this request by a search of it: {tools}. Call them directly if they fit."


class Bridge:
    """The bridge tools' descriptions (fixed per `BridgeNames`, so the request prefix stays byte-identical)."""

    QUERY = "Keywords (service + action) or an exact tool name; empty lists every tool."
    NAMES = "Instead of query: exact names of tools to load."
    OFFSET = "For paging."
    PATTERN = "Regex over tool names and descriptions; with query, only matching tools are ranked."
    SEARCH = f"Find tools that exist but are not in your tool list; returns names and descriptions. {_NOT_MISSING}"
    LISTING_HEADER = "Tools it can find:"
    SEARCH_REVEAL = (
        "Find tools that exist but are not in your tool list; the matches are added to your tool list "
        f"for your next step. {_NOT_MISSING}"
    )
    SEARCH_NATIVE = (
        "Find tools that exist but are not loaded yet; the matching tools become available to call directly. "
        f"{_NOT_MISSING}"
    )

    NATIVE_QUERY = "Keywords (service + action) or an exact tool name."
    """A client-executed native search's ``query`` (OpenAI Responses, ``search="client"``)."""

    @staticmethod
    def native_limit(default: int) -> str:
        """A client-executed native search's ``limit``: `default` is ``search_default_limit``."""
        return f"How many tools to load (default {default})."

    @staticmethod
    def describe(names: BridgeNames) -> str:
        """The describe tool's description."""
        return f"Get the parameter schemas of tools found by {names.search}."

    @staticmethod
    def call(names: BridgeNames) -> str:
        """The call tool's description."""
        return f"Run a tool found by {names.search} with arguments matching its schema (not tools already listed)."

    @staticmethod
    def call_unlisted(names: BridgeNames) -> str:
        """Reveal style: the call tool's description, for clients whose tool list does not show a reveal."""
        return (
            f"Run a tool found by {names.search} that your tool list does not show, with arguments matching "
            "the parameters the search returned."
        )

    @staticmethod
    def stub_note(names: BridgeNames) -> str:
        """Appended to a schema stub's description (reveal style with stubs)."""
        return f" (Parameters not loaded: call {names.search} with this exact name first.)"


SUBSCRIPTION_LIMIT = "Subscription limit reached"
STORE_DOWN = "toolscout's session store is unavailable; try again shortly"


class Search:
    """Hints in the answers of the search and describe tools."""

    REVEALED = "These tools are now in your tool list: call them directly from your next step."
    LISTED = "Tools marked listed are already in your tool list: call them directly."
    NOTHING = (
        "No tool matched. Search again with other keywords (the service name plus an action), "
        "or with an empty query to list every tool, before deciding the capability is missing."
    )
    NO_FIT = (
        "No tool fits this request: the nearest tools are listed under suggestions, and none looked likely to "
        "serve it. If none of them does, tell the user this capability is not available here; otherwise search "
        "again with other keywords."
    )
    LOADED = "Call these tools directly from your next step; tools in already_listed are in your tool list already."
    LAST_PAGE = "Search by keyword to see descriptions, or describe a tool by its exact name."
    REPHRASE = "Rephrase the query as plain keywords."
    QUERY_NOT_STRING = "'query' must be a string of keywords or a tool name (empty to list tools)."
    QUERY_OR_NAMES = "Give either 'query' or 'pattern' (to search) or 'names' (exact tool names to load), not both."
    PATTERN_NOT_STRING = "'pattern' must be a string: a regular expression such as 'issue|ticket'."

    @staticmethod
    def invalid_pattern(detail: str) -> str:
        """The regex pattern of a search does not compile (`detail` is the regex engine's reason)."""
        return f"The pattern is not a valid regular expression: {detail}."

    @staticmethod
    def fix_pattern(limit: int) -> str:
        """How to write a pattern that compiles."""
        return (
            f"Fix the pattern: Python regex syntax without backreferences or look-around, at most {limit} "
            "characters, e.g. 'get_.*weather'."
        )

    @staticmethod
    def revealed_or_call(names: BridgeNames) -> str:
        """Reveal style with the call tool listed: what to do with revealed tools."""
        return (
            f"{Search.REVEALED} If your tool list does not show one of them, run it with {names.call}(name, arguments)."
        )

    @staticmethod
    def loaded_or_call(names: BridgeNames) -> str:
        """Reveal style with the call tool listed: what to do with tools loaded by name."""
        return (
            f"{Search.LOADED} If your tool list does not show one of them, run it with {names.call}(name, arguments)."
        )

    @staticmethod
    def reveal_unseen(names: BridgeNames) -> str:
        """Reveal style, for a client known not to see reveals (it keeps its first tool list, or has no session)."""
        return (
            f"Your tool list does not change during this conversation: run these tools with "
            f"{names.call}(name, arguments), with arguments matching the parameters given here."
        )

    @staticmethod
    def revealed_first(limit: int, names: BridgeNames) -> str:
        """A reveal-style search found more tools than one search may reveal."""
        return (
            f"The first {limit} of these tools are now in your tool list: call them directly from your next step. "
            f"To add one listed under not_revealed, call {names.search} with its exact name."
        )

    @staticmethod
    def too_many_names(limit: int) -> str:
        """A load by name (describe, or search with names) asked for more than `limit` names."""
        return f"Load at most {limit} tools per call."

    @staticmethod
    def describe_then_call(names: BridgeNames) -> str:
        """Bridge style: what to do with search hits."""
        return f"Call {names.describe} with the names you need, then {names.call}."

    @staticmethod
    def listed_or_describe(names: BridgeNames) -> str:
        """Bridge style: what to do with search hits of which some are listed and some are not."""
        return (
            "Call tools marked listed directly; for the others, call "
            f"{names.describe} with the names you need, then {names.call}."
        )

    @staticmethod
    def bad_limit(maximum: int) -> str:
        """A search's `limit` that is not a positive whole number."""
        return f"'limit' must be a whole number from 1 to {maximum} (larger asks get {maximum} hits)."

    BAD_OFFSET = "'offset' must be a whole number, 0 or more."

    @staticmethod
    def described(names: BridgeNames) -> str:
        """Bridge style: what to do with loaded schemas."""
        return f"Run a tool with {names.call}(name, arguments); tools in already_listed are called directly."

    @staticmethod
    def next_page(names: BridgeNames) -> str:
        """A browse page with more after it."""
        return f"Call {names.search} with an empty query and this offset for the next page, or search by keyword."

    @staticmethod
    def names_list(names: BridgeNames) -> str:
        """A load by name without a usable list of names."""
        return f"'names' must be a non-empty list of exact tool names from {names.search}."

    @staticmethod
    def unknown_names(names: BridgeNames) -> str:
        """A load by name where no name is a tool."""
        return f"Check the candidates, or find the exact names with {names.search} keywords."


class Dispatch:
    """Refusals of a call before (or instead of) running a tool."""

    NO_NAME = "The tool call has no tool name."
    CALL_BY_NAME = "Call a tool by its exact name."
    FIX_CALL = "Fix the call and try again."
    FIX_ARGUMENTS = f"Fix the arguments to match the tool's schema and call it again. {NOT_RUN}"
    TOO_DEEP = "The arguments are nested too deeply to process."
    FLATTER = f"Send flatter arguments. {NOT_RUN}"
    JSON_EXAMPLE = f'Send the arguments as a JSON object, e.g. {{"key": "value"}}. {NOT_RUN}'
    OBJECT_EXAMPLE = f'Send an object such as {{"name": value}}; use {{}} for no arguments. {NOT_RUN}'
    REFUSED_HINT = "Do not retry the same call; ask the user or choose another approach."
    NO_HANDLER_HINT = "Tell the user this tool cannot be run here."
    FAILED_HINT = "Check the arguments, or try another approach."
    UNPROCESSABLE_HINT = "Try again with arguments that produce a smaller result."

    SHORTER = f"Send a shorter value. {NOT_RUN}"
    VALID_TEXT = f"Send the text as valid Unicode (whole characters, no lone surrogate). {NOT_RUN}"

    @staticmethod
    def not_unicode(what: str) -> str:
        r"""A model-supplied text holding a lone surrogate (``\ud800`` in JSON): it cannot be written as UTF-8."""
        return f"The {what} holds a lone surrogate, which is not valid Unicode and cannot be passed on."

    @staticmethod
    def too_long(what: str, length: int, limit: int) -> str:
        """A model-supplied value over its size limit (never echoed back)."""
        return f"The {what} is {length:,} long; the limit is {limit:,}."

    @staticmethod
    def call_needs_name(names: BridgeNames) -> str:
        """The call tool without a tool name."""
        return f"{names.call} needs 'name': the exact name of the tool to run."

    @staticmethod
    def find_then_call(names: BridgeNames) -> str:
        """The hint for a call tool without a tool name."""
        return f"Find the name with {names.search}, then call {names.call}(name, arguments)."

    @staticmethod
    def unknown_hint(names: BridgeNames) -> str:
        """The hint for a name that is not a tool of this session."""
        return f"Use {names.search} to find the exact name."

    @staticmethod
    def bridge_recursion(name: str, names: BridgeNames) -> str:
        """The call tool was asked to run a bridge tool."""
        return f"{name} is a bridge tool and cannot be run through {names.call}."

    @staticmethod
    def already_listed(name: str, names: BridgeNames) -> str:
        """The call tool was asked to run a tool the model can call directly."""
        return f"{name} is already in your tool list and cannot be run through {names.call}."

    REBUILD_AGENT_HINT = (
        "Do not search again: tell the user that this agent cannot load tools on demand as it is built."
    )

    @staticmethod
    def reveal_unreachable(names: BridgeNames) -> str:
        """Reveal style in a LangChain agent whose model was bound to its tools once."""
        return (
            f"This agent's model was bound to its tools once, so a tool found by {names.search} is never offered "
            "to it. Build the agent with create_agent(chat_model, middleware=[ScoutMiddleware(session)]), "
            "or use the bridge style (style: bridge)."
        )

    @staticmethod
    def reveal_unrunnable(names: BridgeNames) -> str:
        """Reveal style in a LangGraph agent whose tool executor holds only one turn's tools."""
        return (
            f"This agent's tool executor was given one turn's tools, so a tool found by {names.search} could not run. "
            "Build the agent with create_agent(chat_model, middleware=[ScoutMiddleware(session)]) "
            "(or give the executor tools.all()), or use the bridge style (style: bridge)."
        )

    @staticmethod
    def call_directly(name: str) -> str:
        """The hint to call `name` directly."""
        return f"Call {name} directly."

    @staticmethod
    def unknown(shown: str) -> str:
        """No such tool in this session (never says whether it exists elsewhere)."""
        return f"No tool named {shown} is available in this session."

    @staticmethod
    def invalid_json(problem: str, line: int, column: int) -> str:
        """The arguments are not JSON."""
        return f"The arguments are not valid JSON: {problem} at line {line}, column {column}."

    @staticmethod
    def missing_argument(detail: str) -> str:
        """A required argument is missing."""
        return f"Missing required argument: {detail}."

    @staticmethod
    def unexpected_argument(where: str, detail: str) -> str:
        """An argument the schema does not allow."""
        return f"Unexpected argument in {where}: {detail}."

    @staticmethod
    def invalid_argument(where: str, detail: str) -> str:
        """An argument breaks the schema."""
        return f"Invalid {where}: {detail}."

    @staticmethod
    def invalid_arguments(count: int, problems: str) -> str:
        """Several arguments break the schema: `problems` is each one's message, most relevant first."""
        return f"{count} problems with the arguments: {problems}"

    @staticmethod
    def not_object(kind: str) -> str:
        """The arguments are JSON but not an object."""
        return f"The arguments must be a JSON object of named arguments, got {kind}."

    @staticmethod
    def refused(name: str, reason: str) -> str:
        """A before-call hook refused the call."""
        return f"The call to {name} was refused: {reason}"

    @staticmethod
    def no_handler(name: str) -> str:
        """Nothing in this process runs `name`."""
        return f"{name} has no handler in this process."

    @staticmethod
    def failed(name: str, error: str, detail: str) -> str:
        """The tool raised."""
        return f"{name} failed: {error}: {detail}"

    @staticmethod
    def unprocessable(name: str, error: str) -> str:
        """The tool ran but its result could not be turned into an answer."""
        return f"{name} ran, but its result could not be processed ({error})."


class Offload:
    """The offload tools' descriptions and the refusals of reads of stored outputs."""

    READ = (
        "Read a stored tool output (by its handle) by lines from start_line (1-based), or by characters "
        "from offset (0-based) with length. Pages are capped; `next` gives the arguments for the next page."
    )
    SEARCH = (
        "Find lines of a stored tool output containing a text (or matching an RE2 regex if regex is true; "
        "case-insensitive unless case_sensitive), with line numbers and `context` lines around. "
        "`next` continues."
    )
    QUERY = (
        "Run a jq expression on a stored JSON output, e.g. `.items | length` or "
        '`.items[] | select(.state == "open") | .id`. Results are capped.'
    )
    BINARY_HINT = "Tell the user what the output is instead of reading it."
    CALL_AGAIN = "Call the original tool again."
    EXPIRED = "This output expired: it was removed to make room for newer outputs."
    EXPIRED_HINT = "Call the tool that produced it again to get a fresh handle."
    HANDLE_HINT = "Use the exact handle from an offloaded result of this session, or call the original tool again."
    LINES_OR_CHARS = "Give either start_line/lines or offset/length, not both."
    LINES_OR_CHARS_HINT = "Read by lines (start_line, lines) or by characters (offset, length)."

    SMALLER_OFFSET = "Use a smaller offset."
    SMALLER_LINE = "Use a smaller start_line."
    EMPTY_PATTERN = "The pattern is empty."
    GIVE_PATTERN = "Give the text or regex to look for."
    SHORTEN = "Shorten it."
    RE2_HINT = "Use RE2 syntax (no backreferences or look-around), or set regex to false for a literal search."
    NARROW = "Narrow the query, e.g. `keys`, `length`, `.items[:20]`, `.items[] | {id, name}`."
    FIX_EXPRESSION = "Fix the expression; jq syntax, e.g. `.items | length`."
    NO_JQ = "jq is not installed here."
    NO_JQ_HINT = "Use output_search or output_read instead."
    OUT_OF_MEMORY = "The query stopped without an answer (it probably ran out of memory)."
    MEMORY_LIMIT = "The query needed more memory than allowed and was stopped."
    NO_ANSWER = "The query stopped without an answer."
    FIX_SYNTAX = "Fix the syntax, e.g. `.items[] | .name`."
    NOT_JSON_HINT = "Use output_search or output_read on it instead."
    CHECK_SHAPE = "Check the expression against the shape of the data."
    EMPTY_EXPRESSION = "The jq expression is empty."
    NO_MODULES = "jq modules (import, include, modulemeta) are not available here."
    BUSY_HINT = "Retry in a few seconds, or use output_search or output_read meanwhile."

    @staticmethod
    def offset_past_end(offset: int, total: int) -> str:
        """A read or search starts after the last character."""
        return f"offset {offset} is past the end ({total} characters)."

    @staticmethod
    def line_past_end(line: int, lines: int) -> str:
        """A read or search starts after the last line."""
        return f"start_line {line} is past the end ({lines} lines)."

    @staticmethod
    def pattern_too_long(length: int, limit: int) -> str:
        """A search pattern over the length limit."""
        return f"The pattern is {length} characters long; the limit is {limit}."

    @staticmethod
    def invalid_regex(pattern: str, detail: str) -> str:
        """A regex RE2 cannot compile."""
        return f"Invalid regex {pattern!r}: {detail}."

    @staticmethod
    def expression_too_long(length: int, limit: int) -> str:
        """A jq expression over the length limit."""
        return f"The jq expression is {length} characters long; the limit is {limit}."

    @staticmethod
    def busy(workers: int, waited_s: float) -> str:
        """Every jq worker stayed busy while the query waited for one."""
        return f"Too many jq queries are running (at most {workers} at once); none became free within {waited_s:g} s."

    @staticmethod
    def query_timeout(seconds: float) -> str:
        """A jq query ran past its time limit."""
        return f"The query did not finish within {seconds:g} s and was stopped."

    @staticmethod
    def invalid_expression(detail: str) -> str:
        """Jq could not compile the expression."""
        return f"Invalid jq expression: {detail}"

    @staticmethod
    def not_json(detail: str) -> str:
        """The stored output is not JSON."""
        return f"This output is not valid JSON, so jq cannot read it ({detail})."

    @staticmethod
    def jq_error(detail: str) -> str:
        """Jq failed at run time."""
        return f"jq error: {detail}"

    BINARY_PART = "Binary content: stored, not readable as text."

    @staticmethod
    def stored(tokens: int, budget: int, read: str, search: str, query: str) -> str:
        """The stub's message: the result was stored, and how to read it back."""
        return (
            f"The result (~{tokens:,} tokens) is over the {budget:,}-token budget, so it was stored. "
            f"Page through it with {read}, find lines with {search}, query JSON with {query} (jq)."
        )

    @staticmethod
    def not_stored(reason: str) -> str:
        """A part of the result that could not be stored."""
        return f"Not stored ({reason}); only this preview is available."

    @staticmethod
    def binary(handle: str, content_type: str, size: int) -> str:
        """A binary output cannot be read as text."""
        return f"{handle} is binary content ({content_type}, {size} bytes); it cannot be read as text."

    @staticmethod
    def unreadable(reason: str) -> str:
        """The stored output could not be read."""
        return f"The stored output cannot be read: {reason}."


class Upstream:
    """Failures of an upstream MCP server, as the gateway reports them to the model."""

    UNAVAILABLE_HINT = (
        f"{NOT_RUN} Try again in a little while or use another tool; tell the user if the server stays unavailable."
    )
    TIMEOUT_HINT = (
        "The tool may still have run: check its effect before calling it again. If the server keeps hanging, "
        "tell the user."
    )
    CRASHED_HINT = (
        "The tool may have partly run: check its effect, then call it again (the server comes back by itself). "
        "If it crashes again, do not retry; tell the user."
    )
    TOO_LARGE_HINT = (
        "The tool may have run. Do not repeat the same call: ask for less (a filter, a smaller page or range), "
        "or tell the user the answer is too large for the gateway."
    )
    INVALID_HINT = (
        "The tool may have run. Do not repeat the same call; try another tool or tell the user the server is "
        "misbehaving."
    )
    STILL_STARTING = (
        "The MCP servers in servers_not_ready with state starting are still starting, so their tools are missing "
        "from these results. Search again in a little while before deciding a capability is missing."
    )
    FAILED_TO_START = (
        "The MCP servers in servers_not_ready with an error failed to start (the error says why), so their tools "
        "are missing from these results. Do not wait for them: tell the user if the request needs one of them."
    )

    @staticmethod
    def unavailable(server: str, tool: str, reason: str) -> str:
        """The server is not connected."""
        return f"The MCP server {server!r} that provides {tool} is not available: {reason}."

    @staticmethod
    def timeout(tool: str, seconds: float, server: str) -> str:
        """The call did not finish in time."""
        return f"{tool} did not answer within {seconds:g} s (MCP server {server!r})."

    @staticmethod
    def crashed(server: str, tool: str) -> str:
        """The server died during the call."""
        return f"The MCP server {server!r} crashed or exited during the call to {tool}; the gateway is restarting it."

    @staticmethod
    def too_large(server: str, tool: str, reason: str) -> str:
        """The server's answer was over the gateway's message size limit."""
        return f"The MCP server {server!r} answered {tool} with more than the gateway accepts: {reason}."

    @staticmethod
    def invalid(server: str, tool: str, reason: str) -> str:
        """The server's answer broke the protocol."""
        return f"The MCP server {server!r} gave an invalid answer to {tool}: {reason}."

    @staticmethod
    def too_many_waiting(whose: str, value: int, limit: str) -> str:
        """A 2026-07-28 call refused: too many calls of the caller (or of everyone) run or wait for answers."""
        return (
            f"{NOT_RUN} {whose} already has {value:,} tool calls running or waiting for answers, the most "
            f"{limit} allows. Wait for one to finish (or answer its questions), then call again."
        )

    @staticmethod
    def unrouted_hint(names: BridgeNames) -> str:
        """The hint for a tool no connected server offers any more."""
        return f"{NOT_RUN} Search again with {names.search}; the server's tool list may have changed."

    @staticmethod
    def unrouted(tool: str) -> str:
        """No connected server offers the tool any more."""
        return f"{tool} is no longer offered by any connected MCP server."
