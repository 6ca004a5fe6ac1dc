"""web_search as pure-ish logic: settings, metering, the warm result cache, shaping Exa's answer.

No Lambda types here. The I/O it needs (the Exa client, the key, the quota
store, the clock) is injected, so tests run it with fakes and the handler with
the real thing.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from luma_shared.config import OnceSettings
from luma_shared.errors import NotConfigured, ToolError
from luma_shared.observability import no_count
from luma_shared.quota import QuotaStore
from luma_shared.sanitize import safe_http_url, sanitize_external_text
from web_tool.exa import ExaClient, ExaQuery, KeyProvider, Log
from web_tool.schema import TOOL_DEFINITION, TOOL_NAME, WebRequest
from web_tool.settings import ApiKey, WebSettings

TITLE_CHARS = 200
#: The whole tool output, as the JSON the model reads, stays under this many bytes.
MAX_OUTPUT_BYTES = 8 * 1024
CACHE_TTL_S = 300.0
CACHE_ENTRIES = 256
_HIGHLIGHT_SEPARATOR = " … "
#: Raw text looked at per result before sanitizing: enough for any snippet, bounded work for a huge field.
_RAW_TEXT_FACTOR = 8
_DEFAULT_PORTS = {"http": 80, "https": 443}

CacheKey = tuple[object, ...]


def default_keys(settings: WebSettings) -> Callable[[], ApiKey]:
    """The key source for ``settings``: the named SSM parameter, else the env key."""
    return KeyProvider(settings.env_key, settings.key_parameter)


class ResultCache:
    """Answers kept in the warm container: bounded LRU, entries expire after ``ttl`` seconds."""

    def __init__(
        self, ttl: float = CACHE_TTL_S, max_entries: int = CACHE_ENTRIES, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[CacheKey, tuple[float, str]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: CacheKey) -> dict[str, Any] | None:
        """A fresh copy of the answer stored under ``key``, or None if absent or expired."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        stored_at, answer = entry
        if self._clock() - stored_at >= self.ttl:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        loaded: dict[str, Any] = json.loads(answer)
        return loaded

    def put(self, key: CacheKey, answer: dict[str, Any]) -> None:
        """Store ``answer`` (as JSON, so later mutation of the caller's dict cannot reach it)."""
        self._entries[key] = (self._clock(), json.dumps(answer, ensure_ascii=False))
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def clear(self) -> None:
        """Forget every answer."""
        self._entries.clear()


def normalize_query(query: str) -> str:
    """The query as the cache compares it: casefolded, whitespace collapsed."""
    return " ".join(query.casefold().split())


def cache_key(request: WebRequest, snippet_chars: int) -> CacheKey:
    """Everything that changes Exa's answer or our shaping of it."""
    return (
        normalize_query(request.base.query),
        request.num_results,
        tuple(sorted(request.include_domains)),
        tuple(sorted(request.exclude_domains)),
        request.start_published_date,
        snippet_chars,
    )


def normalize_url(url: str) -> str:
    """The URL as duplicates are compared: scheme and host lowercased, default port, fragment,
    trailing slash and ``utm_*`` parameters dropped."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not k.lower().startswith("utm_")]
    )
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), query, ""))


def published_date(value: object) -> str | None:
    """Exa's ``publishedDate`` (ISO date or timestamp) as ``YYYY-MM-DD``; anything else is None."""
    if not isinstance(value, str) or not 8 <= len(value.strip()) <= 40:
        return None
    try:
        return datetime.fromisoformat(value.strip()).date().isoformat()
    except ValueError:
        return None


def _snippet_source(result: dict[str, Any], snippet_chars: int) -> str:
    """The joined highlights, else a summary, else the text: whichever Exa sent first."""
    budget = snippet_chars * _RAW_TEXT_FACTOR
    highlights = result.get("highlights")
    if isinstance(highlights, list):
        parts = [h[:budget] for h in highlights[:10] if isinstance(h, str) and h.strip()]
        if parts:
            return _HIGHLIGHT_SEPARATOR.join(parts)
    for name in ("summary", "text"):
        value = result.get(name)
        if isinstance(value, str) and value.strip():
            return value[:budget]
    return ""


def reduce_result(result: dict[str, Any], snippet_chars: int) -> dict[str, Any] | None:
    """One Exa result as ``{title, url, snippet, published}`` (WEB-02); None when its URL is not http(s)."""
    url = safe_http_url(result.get("url"))
    if url is None:
        return None
    title = sanitize_external_text(result.get("title"), TITLE_CHARS) or (urlsplit(url).hostname or url)
    return {
        "title": title,
        "url": url,
        "snippet": sanitize_external_text(_snippet_source(result, snippet_chars), snippet_chars),
        "published": published_date(result.get("publishedDate")),
    }


def reduce_results(results: Sequence[dict[str, Any]], snippet_chars: int, limit: int) -> list[dict[str, Any]]:
    """Reduced results in Exa's order, duplicates (by normalized URL) dropped, at most ``limit``."""
    seen: set[str] = set()
    reduced = []
    for result in results:
        item = reduce_result(result, snippet_chars)
        if item is None:
            continue
        key = normalize_url(item["url"])
        if key in seen:
            continue
        seen.add(key)
        reduced.append(item)
        if len(reduced) == limit:
            break
    return reduced


def output_bytes(answer: dict[str, Any]) -> int:
    """Size of ``answer`` as the edge serializes it."""
    return len(json.dumps(answer, ensure_ascii=False).encode("utf-8"))


def fit_output(answer: dict[str, Any], max_bytes: int = MAX_OUTPUT_BYTES) -> dict[str, Any]:
    """Drop trailing results until the answer (even marked cached) fits in ``max_bytes``."""
    results: list[dict[str, Any]] = answer["results"]
    while results and output_bytes({**answer, "cached": True, "truncated": True}) > max_bytes:
        results.pop()
        answer["truncated"] = True
        answer["count"] = len(results)
    return answer


class WebService:
    """web_search: validated request in, JSON-ready result out."""

    def __init__(
        self,
        settings_loader: Callable[[], WebSettings],
        exa: Callable[[WebSettings], ExaClient],
        quota: Callable[[WebSettings], QuotaStore],
        logger: Log,
        keys: Callable[[WebSettings], Callable[[], ApiKey]] = default_keys,
        cache: ResultCache | None = None,
        count: Callable[[str], None] = no_count,
    ) -> None:
        self._settings = OnceSettings(settings_loader)
        self._exa = exa
        self._quota = quota
        self._keys = keys
        self.logger = logger
        self.cache = cache if cache is not None else ResultCache()
        self._count = count

    @property
    def settings(self) -> WebSettings:
        """Settings, validated on first use and kept; a bad value raises ``ConfigError`` each time."""
        return self._settings.get()

    def reset(self) -> None:
        """Forget settings and cached answers (a new container does the same)."""
        self._settings.reset()
        self.cache.clear()

    def tools(self) -> list[dict[str, Any]]:
        """The tool list for ``GET /tools``: web_search only while enabled and a key source is set (WEB-01).

        No SSM call here: a named parameter counts as a key; if it is unreadable,
        the search says ``not_configured``.
        """
        try:
            settings = self.settings
        except ToolError:
            return []
        return [TOOL_DEFINITION] if settings.enabled and settings.has_key_source else []

    def search(self, request: WebRequest) -> dict[str, Any]:
        """Check the key, meter, answer from the warm cache or Exa, and shape the results (WEB-02..05)."""
        settings = self.settings
        if not settings.enabled:
            raise NotConfigured(f"{TOOL_NAME} is not enabled on this deployment")
        if not settings.has_key_source:
            raise NotConfigured("web search is not configured: no Exa API key is set")
        # The key first: a broken key setup refuses without spending the user's allowance.
        key = self._keys(settings)()
        self._quota(settings).consume(TOOL_NAME, request.base.user_id, settings.daily_per_user)
        key_of_request = cache_key(request, settings.snippet_chars)
        cached = self.cache.get(key_of_request)
        self._count("CacheHits" if cached is not None else "CacheMisses")
        if cached is not None:
            self.logger.info("web search answered from cache", extra={"results": cached["count"]})
            return {**cached, "cached": True}
        query = ExaQuery(
            query=request.base.query,
            num_results=request.num_results,
            highlight_chars=settings.snippet_chars,
            include_domains=request.include_domains,
            exclude_domains=request.exclude_domains,
            start_published_date=request.start_published_date,
        )
        answer = self._exa(settings).search(query, key)
        results = reduce_results(answer.results, settings.snippet_chars, request.num_results)
        shaped: dict[str, Any] = {"results": results, "count": len(results), "source": "exa"}
        if not results:
            shaped["note"] = "the web search found nothing for this query; do not invent an answer"
        shaped = fit_output(shaped)
        self.cache.put(key_of_request, shaped)
        return shaped
