"""codex_search as pure-ish logic: settings, metering, the warm index cache, ranking.

No Lambda types here. The I/O it needs (the bounded fetch, the quota store,
the clock) is injected, so tests run it with fakes and the handler with the
real thing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from codex_tool.inscriptions import site_origin
from codex_tool.ranking import SearchIndex, load_index
from codex_tool.schema import MAX_RESULTS, TOOL_DEFINITION, TOOL_NAME, CodexRequest
from codex_tool.settings import CodexSettings
from codex_tool.text import query_terms
from luma_shared.config import OnceSettings
from luma_shared.errors import FetchError, NotConfigured, ToolError
from luma_shared.observability import no_count
from luma_shared.quota import QuotaStore
from luma_shared.sanitize import sanitize_external_text

TITLE_CHARS = 200
COLLECTION_CHARS = 80
#: After a failed refresh, wait this long before trying the upstream again.
RETRY_AFTER_FAILURE_S = 30.0

Fetcher = Callable[[str, int], bytes]  # (url, max_bytes) -> body


class Loaded(NamedTuple):
    """What the cache hands out: the index, whether it is stale, and whether it came from the cache."""

    search_index: SearchIndex
    stale: bool
    hit: bool


@dataclass(slots=True)
class _Cached:
    index: SearchIndex
    url: str
    loaded_at: float


class IndexCache:
    """The parsed, precomputed index kept in the warm container for the TTL.

    A failed refresh keeps serving the previous index (marked stale) while one
    exists, and is not retried for ``RETRY_AFTER_FAILURE_S`` so an outage does not
    turn every search into a slow timeout.
    """

    def __init__(self, fetch: Fetcher, clock: Callable[[], float] = time.monotonic) -> None:
        self._fetch = fetch
        self._clock = clock
        self._cached: _Cached | None = None
        self._failure: tuple[str, float, ToolError] | None = None

    def clear(self) -> None:
        """Forget the index and any remembered failure."""
        self._cached = None
        self._failure = None

    def get(self, url: str, max_bytes: int, ttl: int) -> Loaded:
        """The index for ``url``; raise ``ToolError`` if none can be had."""
        now = self._clock()
        cached = self._cached
        if cached is not None and cached.url == url and now - cached.loaded_at < ttl:
            return Loaded(cached.index, stale=False, hit=True)
        failure = self._failure
        if failure is not None and failure[0] == url and now - failure[1] < RETRY_AFTER_FAILURE_S:
            return self._fallback(url, failure[2])
        try:
            index = load_index(self._fetch(url, max_bytes), url)
        except ToolError as e:
            self._failure = (url, now, e)
            return self._fallback(url, e)
        self._cached = _Cached(index, url, now)
        self._failure = None
        return Loaded(index, stale=False, hit=False)

    def _fallback(self, url: str, error: ToolError) -> Loaded:
        if self._cached is not None and self._cached.url == url:
            return Loaded(self._cached.index, stale=True, hit=True)
        raise FetchError(f"the Codex index is unavailable: {error.message}") from error


class CodexService:
    """codex_search: validated request in, JSON-ready result out."""

    def __init__(
        self,
        settings_loader: Callable[[], CodexSettings],
        cache: IndexCache,
        quota: Callable[[CodexSettings], QuotaStore],
        count: Callable[[str], None] = no_count,
    ) -> None:
        self._settings = OnceSettings(settings_loader)
        self.cache = cache
        self._quota = quota
        self._count = count

    @property
    def settings(self) -> CodexSettings:
        """Settings, validated on first use and kept; a bad value raises ``ConfigError`` each time."""
        return self._settings.get()

    def reset(self) -> None:
        """Forget settings and the cached index (a new container does the same)."""
        self._settings.reset()
        self.cache.clear()

    def tools(self) -> list[dict[str, Any]]:
        """The tool list for ``GET /tools``: codex_search only while enabled (CDX-01)."""
        try:
            return [TOOL_DEFINITION] if self.settings.enabled else []
        except ToolError:
            return []

    def search(self, request: CodexRequest) -> dict[str, Any]:
        """Meter, load the index, rank and shape the results (CDX-02..06)."""
        settings = self.settings
        if not settings.enabled:
            raise NotConfigured(f"{TOOL_NAME} is not enabled on this deployment")
        self._quota(settings).consume(TOOL_NAME, request.base.user_id, settings.daily_per_user)
        loaded = self.cache.get(settings.index_url, settings.max_bytes, settings.cache_ttl)
        self._count("CacheHits" if loaded.hit else "CacheMisses")
        hits, fallback = loaded.search_index.search(query_terms(request.base.query), request.lang, MAX_RESULTS)
        fallback = fallback and bool(hits)
        results = [
            {
                "title": sanitize_external_text(hit.inscription.title, TITLE_CHARS),
                "summary": sanitize_external_text(hit.inscription.summary, settings.summary_chars),
                "collection": sanitize_external_text(hit.inscription.collection, COLLECTION_CHARS),
                "url": hit.inscription.url,
            }
            for hit in hits
        ]
        answer: dict[str, Any] = {
            "results": results,
            "count": len(results),
            "lang": request.lang,
            "fallback": fallback,
            "source": site_origin(settings.index_url),
        }
        if fallback:
            answer["note"] = f"nothing matched in '{request.lang}'; these results come from all tongues"
        if not results:
            answer["note"] = "no inscription in the Codex matches this query; do not invent an answer"
        if request.lang_note:
            answer["lang_note"] = request.lang_note
        if loaded.stale:
            answer["stale"] = True
        return answer
