"""Reading the Codex index: tolerant parsing of untrusted JSON into inscriptions.

The index is a JSON array of inscriptions, or an object holding that array.
Field names vary between site generators, so common aliases are accepted;
entries that are not usable are skipped, and an index with none is an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from luma_shared.errors import FetchError
from luma_shared.sanitize import safe_http_url

LANGS: tuple[str, ...] = ("en", "de", "eo", "no", "uk")
DEFAULT_LANG = "en"

_LIST_KEYS = ("inscriptions", "entries", "items", "documents", "docs", "pages", "results", "data", "index")
_TITLE = ("title", "name", "heading")
_SUMMARY = ("summary", "description", "excerpt", "abstract")
_BODY = ("body", "content", "text", "rawContent")
_COLLECTION = ("collection", "category", "section", "type")
_URL = ("url", "href", "link", "path", "permalink", "slug")
# Bounds on what one entry may hold, so a hostile index cannot make us tokenize megabytes of one field.
# A site-relative link made only of characters safe_http_url keeps as they are: joining it to the
# origin is all that cleaning it would do, at a fraction of the cost (an index has thousands).
_PLAIN_PATH = re.compile(r"/(?!/)[A-Za-z0-9_~/-]*")
_MAX_FIELD_CHARS = {"title": 500, "summary": 5_000, "body": 200_000, "collection": 200}


@dataclass(frozen=True, slots=True)
class Inscription:
    """One searchable page of the Codex."""

    title: str
    summary: str
    body: str
    collection: str
    url: str  # absolute, http(s) only
    lang: str


def site_origin(index_url: str) -> str:
    """``scheme://host[:port]/`` of the index URL: relative inscription links resolve against it."""
    parts = urlsplit(index_url)
    return f"{parts.scheme}://{parts.netloc}/"


def lang_of(url: str) -> str:
    """The tongue named by the first path segment of an inscription URL (default ``en``)."""
    segment = urlsplit(url).path.lstrip("/").split("/", 1)[0].lower()
    return segment if segment in LANGS else DEFAULT_LANG


def _site(host: str) -> str:
    """A host name without a leading ``www.``: binaric.tech and www.binaric.tech are one site."""
    return host.removeprefix("www.")


def on_site(url: str, site: str) -> bool:
    """True when ``url``'s host is the index's site or one of its subdomains."""
    host = _site(urlsplit(url).hostname or "")
    return host == site or host.endswith("." + site)


def _first_text(entry: dict[str, Any], names: Iterable[str], field: str) -> str:
    for name in names:
        value = entry.get(name)
        if isinstance(value, str) and value.strip():
            return value[: _MAX_FIELD_CHARS[field]]
    return ""


def _entries(document: Any) -> list[Any]:
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        for key in _LIST_KEYS:
            found = document.get(key)
            if isinstance(found, list):
                return found
        for value in document.values():
            if isinstance(value, list) and any(isinstance(v, dict) for v in value):
                return value
    raise FetchError("the codex index has an unexpected shape (no list of inscriptions)")


def parse_index(raw: bytes, index_url: str) -> list[Inscription]:
    """Parse index bytes into inscriptions; raise ``FetchError`` if nothing usable is in them."""
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError) as e:
        raise FetchError("the codex index is not valid JSON") from e
    origin = site_origin(index_url)
    clean_origin = (safe_http_url("/", origin) or origin).rstrip("/")
    plain_path = _PLAIN_PATH.fullmatch
    site = _site(urlsplit(index_url).hostname or "")
    inscriptions = []
    for entry in _entries(document):
        if not isinstance(entry, dict):
            continue
        title = _first_text(entry, _TITLE, "title")
        link = next((entry[k] for k in _URL if isinstance(entry.get(k), str)), None)
        if link is not None and plain_path(link):
            url: str | None = clean_origin + link
            segment = link[1:].split("/", 1)[0].lower()
            lang = segment if segment in LANGS else DEFAULT_LANG
        else:
            url = safe_http_url(link, origin)
            # Every inscription lives on the Codex's own site: a link elsewhere (a tampered index
            # pointing Luma's "read the full inscription" offer at a phishing page) is dropped.
            if url is not None and not on_site(url, site):
                url = None
            lang = lang_of(url) if url is not None else DEFAULT_LANG
        if not title or url is None:
            continue
        inscriptions.append(
            Inscription(
                title=title,
                summary=_first_text(entry, _SUMMARY, "summary"),
                body=_first_text(entry, _BODY, "body"),
                collection=_first_text(entry, _COLLECTION, "collection"),
                url=url,
                lang=lang,
            )
        )
    if not inscriptions:
        raise FetchError("the codex index holds no valid inscriptions")
    return inscriptions
