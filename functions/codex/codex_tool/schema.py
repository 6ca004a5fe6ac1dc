"""The codex_search tool as the model sees it, and the request it accepts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codex_tool.inscriptions import DEFAULT_LANG, LANGS
from luma_shared.edge import BaseRequest, parse_base
from luma_shared.errors import RequestError

TOOL_NAME = "codex_search"
MAX_RESULTS = 5

TOOL_DEFINITION: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": (
            "Search the Codex Mechanicus at binaric.tech, the archive of Cult Mechanicus lore, "
            f"and get up to {MAX_RESULTS} ranked inscriptions as {{title, summary, collection, url}}. "
            "Use it whenever a pilgrim asks about Adeptus Mechanicus lore, rites, litanies or history. "
            "Answer Mechanicus lore only from these results and offer the binaric.tech link to read "
            "the full inscription; never invent lore the results do not hold. If the result says "
            "fallback is true, nothing matched in the requested tongue and the results are in other tongues."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "What to look up, in a few words (e.g. 'machine spirit', 'Litany of Ignition').",
                },
                "lang": {
                    "type": "string",
                    "enum": list(LANGS),
                    "description": "Tongue of the inscriptions to prefer (default en).",
                },
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}


@dataclass(frozen=True, slots=True)
class CodexRequest:
    """A validated codex_search call."""

    base: BaseRequest
    lang: str
    lang_note: str | None = None


def parse_request(body: Any) -> CodexRequest:
    """Validate a request body; raise ``RequestError`` for what the caller must fix."""
    base = parse_base(body)
    lang = body.get("lang", DEFAULT_LANG)
    if lang is None:
        lang = DEFAULT_LANG
    if not isinstance(lang, str):
        raise RequestError("lang must be a string such as 'en' or 'de'")
    code = lang.strip().lower()
    if code in LANGS:
        return CodexRequest(base, code)
    # SPEC-014 CDX-04: an unknown tongue is not an error, it falls back to en (and says so).
    return CodexRequest(base, DEFAULT_LANG, f"unknown lang; searched {DEFAULT_LANG} (known: {', '.join(LANGS)})")
