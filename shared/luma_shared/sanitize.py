"""Hygiene for external text and links before a model or a Discord channel sees them.

Pure functions, no I/O. ``sanitize_external_text`` makes text inert (no pings,
no invisible or direction-flipping characters, bounded length);
``safe_http_url`` keeps only absolute http(s) links in a conservative spelling.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

# Characters that are invisible, reorder text or are not text at all: C0/C1 controls
# (whitespace controls are handled by the whitespace pass), every Unicode "Cf" format
# character (soft hyphen, zero-width, bidi embeddings/overrides/isolates, BOM, tags,
# interlinear annotations, Egyptian/Brahmi/shorthand format controls), lone surrogates,
# noncharacters and the blank "filler" letters used to fake empty names.
_INVISIBLE = re.compile(
    "["
    "\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f"
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164"
    "\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\ufdd0-\ufdef\ufffe\uffff"
    "\ud800-\udfff"
    "\U000110bd\U000110cd\U00013430-\U0001345f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
    "]+"
)
_WHITESPACE = re.compile(r"\s+")
# @everyone / @here, and Discord's <@id>, <@!id>, <@&id>, <#id>, </cmd:id> markup.
# The sigil becomes its fullwidth twin: it reads the same, it never pings, and a
# model that copies it copies the harmless character.
_MASS_MENTION = re.compile(r"@(?=(?:everyone|here)\b)", re.IGNORECASE)
_MARKUP_MENTION = re.compile(r"<(@[!&]?|#|/)(?=[\w:\- ]*\d)")
_FULLWIDTH = str.maketrans({"@": "\uff20", "#": "\uff03", "/": "\uff0f"})
_ELLIPSIS = "…"


def _neutralize_markup(match: re.Match[str]) -> str:
    return "<" + match.group(1).translate(_FULLWIDTH)


def sanitize_external_text(text: object, max_chars: int) -> str:
    """Return ``text`` made inert for a prompt and a Discord channel, at most ``max_chars`` long."""
    if not isinstance(text, str) or max_chars <= 0:
        return ""
    text = _INVISIBLE.sub("", text)
    text = _WHITESPACE.sub(" ", text).strip()
    if "@" in text:
        text = _MASS_MENTION.sub("\uff20", text)
    if "<" in text:
        text = _MARKUP_MENTION.sub(_neutralize_markup, text)
    if len(text) <= max_chars:
        return text
    return _truncate(text, max_chars)


def _truncate(text: str, max_chars: int) -> str:
    """Cut to ``max_chars`` including an ellipsis, never between a letter and its marks."""
    cut = max_chars - 1
    while cut > 0 and unicodedata.combining(text[cut]):
        cut -= 1
    return text[:cut].rstrip() + _ELLIPSIS


# Kept as-is in paths and queries; everything else is percent-encoded. "@" is
# deliberately absent so a link can never carry "@everyone" into a channel.
_URL_SAFE = "/:;=?&+,$!*'()~%-._[]"


def safe_http_url(url: object, base: str | None = None) -> str | None:
    """Resolve ``url`` against ``base`` and return it if it is a clean http(s) link, else None."""
    if not isinstance(url, str):
        return None
    url = url.strip()
    if not url or len(url) > 2048 or _INVISIBLE.search(url):
        return None
    try:
        absolute = urljoin(base, url) if base else url
        parts = urlsplit(absolute)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host or "@" in parts.netloc:
        return None
    if any(ch.isspace() for ch in parts.netloc):
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc = f"{netloc}:{port}"
    return urlunsplit(
        (
            parts.scheme,
            netloc,
            quote(parts.path or "/", safe=_URL_SAFE),
            quote(parts.query, safe=_URL_SAFE),
            quote(parts.fragment, safe=_URL_SAFE),
        )
    )
