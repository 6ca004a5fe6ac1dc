"""codex_search logic: fetch-once caching (CDX-02), sanitized results and reported failure (CDX-05),
metering before the index is touched (CDX-06)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from codex_tool.schema import CodexRequest, parse_request
from codex_tool.service import RETRY_AFTER_FAILURE_S, CodexService, IndexCache
from codex_tool.settings import CodexSettings
from luma_shared.errors import FetchError, NotConfigured, QuotaExceeded, RequestError, ToolError, UnsafeUrlError
from luma_shared.quota import QuotaStore

INDEX = [
    {
        "title": "The Machine Spirit",
        "summary": "Every engine has a spirit.",
        "body": "Appease it with rites.",
        "collection": "codex",
        "url": "/en/codex/machine-spirit/",
    },
    {
        "title": "Der Maschinengeist",
        "description": "Jede Maschine hat einen Geist.",
        "content": "Riten.",
        "category": "codex",
        "href": "/de/codex/maschinengeist/",
    },
    {
        "title": "Servitor Upkeep",
        "summary": "Oil the servitors @everyone <@123>",
        "body": "servitor",
        "collection": "rites",
        "url": "/en/rites/servitor/",
    },
    {"title": "Evil\u202e link", "summary": "x", "url": "javascript:alert(1)"},
    "not an object",
    {"summary": "no title"},
]


class FakeFetch:
    """Stands in for the bounded fetch: serves bytes (or raises) and counts calls."""

    def __init__(self, body: bytes | Exception) -> None:
        self.body = body
        self.calls = 0

    def __call__(self, url: str, max_bytes: int) -> bytes:
        self.calls += 1
        if isinstance(self.body, Exception):
            raise self.body
        return self.body


class Clock:
    """A clock tests can move."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeQuota:
    """Records consume calls; refuses when told to."""

    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.calls: list[tuple[str, str, int]] = []

    def consume(self, tool: str, user_id: str, limit: int) -> int:
        self.calls.append((tool, user_id, limit))
        if self.refuse:
            raise QuotaExceeded("daily limit reached", resets_at="2026-11-30T00:00:00Z")
        return 1


def make_service(
    fetch: FakeFetch, env: dict[str, str] | None = None, quota: Any = None, clock: Clock | None = None
) -> CodexService:
    """A service with fake I/O and settings from ``env`` (codex enabled, metering via the fake)."""
    env = {"ENABLE_CODEX": "true", **(env or {})}
    quota = quota or FakeQuota()
    return CodexService(lambda: CodexSettings.from_env(env), IndexCache(fetch, clock or Clock()), lambda _: quota)


def request(query: str, lang: str | None = None) -> CodexRequest:
    """A validated request."""
    body: dict[str, Any] = {"user_id": "42", "query": query}
    if lang is not None:
        body["lang"] = lang
    return parse_request(body)


def test_results_have_exactly_the_four_fields_and_absolute_urls() -> None:
    """GIVEN a tolerant index (aliases, junk entries) WHEN searched THEN items are {title, summary, collection, url}."""
    result = make_service(FakeFetch(json.dumps(INDEX).encode())).search(request("machine spirit"))
    assert result["results"][0] == {
        "title": "The Machine Spirit",
        "summary": "Every engine has a spirit.",
        "collection": "codex",
        "url": "https://binaric.tech/en/codex/machine-spirit/",
    }
    assert all(set(r) == {"title", "summary", "collection", "url"} for r in result["results"])
    assert result["fallback"] is False and result["lang"] == "en" and result["source"] == "https://binaric.tech/"


def test_aliases_and_object_wrapper_are_understood() -> None:
    """GIVEN the index wrapped in an object with description/content/category/href WHEN searched in de THEN found."""
    body = json.dumps({"version": 2, "entries": INDEX}).encode()
    result = make_service(FakeFetch(body)).search(request("Geist", "de"))
    assert result["results"][0]["url"] == "https://binaric.tech/de/codex/maschinengeist/"
    assert result["results"][0]["summary"] == "Jede Maschine hat einen Geist."


def test_hostile_fields_are_sanitized_and_non_http_links_dropped() -> None:
    """GIVEN mentions in a summary and a javascript: link WHEN searched THEN no pings and no such result."""
    svc = make_service(FakeFetch(json.dumps(INDEX).encode()))
    summary = svc.search(request("servitor"))["results"][0]["summary"]
    assert "@everyone" not in summary and "<@" not in summary
    assert svc.search(request("evil"))["results"] == []


def test_links_off_the_codex_site_are_dropped() -> None:
    """GIVEN inscriptions linking to the site, a subdomain, www and a foreign host WHEN searched THEN the foreign
    one is gone (a tampered index cannot make Luma offer a phishing link)."""
    entries = [
        {"title": "Cog one", "url": "https://binaric.tech/en/codex/one/"},
        {"title": "Cog two", "url": "https://www.binaric.tech/en/codex/two/"},
        {"title": "Cog three", "url": "https://archive.binaric.tech/en/codex/three/"},
        {"title": "Cog four", "url": "https://binaric.tech.evil.example/en/codex/four/"},
        {"title": "Cog five", "url": "//evil.example/en/codex/five/"},
    ]
    urls = [r["url"] for r in make_service(FakeFetch(json.dumps(entries).encode())).search(request("cog"))["results"]]
    assert sorted(urls) == [
        "https://archive.binaric.tech/en/codex/three/",
        "https://binaric.tech/en/codex/one/",
        "https://www.binaric.tech/en/codex/two/",
    ]


def test_summary_is_capped_by_config() -> None:
    """GIVEN CODEX_SUMMARY_CHARS=10 WHEN searched THEN summaries are at most 10 characters."""
    result = make_service(FakeFetch(json.dumps(INDEX).encode()), {"CODEX_SUMMARY_CHARS": "10"}).search(
        request("machine spirit")
    )
    assert len(result["results"][0]["summary"]) <= 10


def test_index_is_fetched_once_within_ttl_and_again_after() -> None:
    """GIVEN a TTL of 60 s WHEN searched repeatedly THEN one fetch; after the TTL THEN a second fetch."""
    fetch, clock = FakeFetch(json.dumps(INDEX).encode()), Clock()
    svc = make_service(fetch, {"CODEX_CACHE_TTL": "60"}, clock=clock)
    for _ in range(5):
        svc.search(request("machine"))
    assert fetch.calls == 1
    clock.now += 61
    svc.search(request("machine"))
    assert fetch.calls == 2


def test_ttl_zero_fetches_every_time() -> None:
    """GIVEN CODEX_CACHE_TTL=0 WHEN searched twice THEN fetched twice."""
    fetch = FakeFetch(json.dumps(INDEX).encode())
    svc = make_service(fetch, {"CODEX_CACHE_TTL": "0"})
    svc.search(request("machine"))
    svc.search(request("machine"))
    assert fetch.calls == 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>not json</html>", "not valid JSON"),
        (b'{"a": 1}', "unexpected shape"),
        (b'[{"no": "title"}, 5]', "no valid inscriptions"),
        (b"[" * 100_000, "not valid JSON"),
    ],
)
def test_unparseable_index_is_an_error_result(body: bytes, message: str) -> None:
    """GIVEN an index that is not usable JSON WHEN searched THEN a ToolError the edge turns into {error}."""
    with pytest.raises(FetchError, match=message):
        make_service(FakeFetch(body)).search(request("machine"))


def test_fetch_failure_is_reported_and_not_retried_at_once() -> None:
    """GIVEN an upstream failure WHEN searched twice quickly THEN the same error, one fetch attempt only."""
    fetch, clock = FakeFetch(FetchError("the upstream server answered HTTP 503", status=503)), Clock()
    svc = make_service(fetch, clock=clock)
    for _ in range(2):
        with pytest.raises(FetchError, match="503"):
            svc.search(request("machine"))
    assert fetch.calls == 1
    clock.now += RETRY_AFTER_FAILURE_S + 1
    with pytest.raises(FetchError):
        svc.search(request("machine"))
    assert fetch.calls == 2


def test_stale_index_is_served_when_refresh_fails() -> None:
    """GIVEN a cached index past its TTL and a failing upstream WHEN searched THEN old results marked stale."""
    fetch, clock = FakeFetch(json.dumps(INDEX).encode()), Clock()
    svc = make_service(fetch, {"CODEX_CACHE_TTL": "10"}, clock=clock)
    svc.search(request("machine"))
    fetch.body = FetchError("the upstream server could not be reached")
    clock.now += 11
    result = svc.search(request("machine"))
    assert result["stale"] is True and result["results"]


def test_unsafe_index_url_is_refused_by_guard_error() -> None:
    """GIVEN the fetch refuses the URL WHEN searched THEN the refusal is the tool's error result."""
    svc = make_service(FakeFetch(UnsafeUrlError("refused URL: it points at a private address")))
    with pytest.raises(ToolError, match="private"):
        svc.search(request("machine"))


def test_quota_refusal_does_not_touch_the_index() -> None:
    """GIVEN a user over the limit WHEN searching THEN QuotaExceeded and no fetch (CDX-06)."""
    fetch, quota = FakeFetch(json.dumps(INDEX).encode()), FakeQuota(refuse=True)
    with pytest.raises(QuotaExceeded):
        make_service(fetch, quota=quota).search(request("machine"))
    assert fetch.calls == 0 and quota.calls == [("codex_search", "42", 50)]


def test_each_search_is_metered_on_the_real_table(quota_table: str) -> None:
    """GIVEN CODEX_DAILY_PER_USER=2 on the moto table WHEN searched 3 times THEN the third is refused, index kept."""
    fetch = FakeFetch(json.dumps(INDEX).encode())
    env = {"ENABLE_CODEX": "true", "CODEX_DAILY_PER_USER": "2", "QUOTA_TABLE": quota_table}
    store = QuotaStore(quota_table)
    svc = CodexService(lambda: CodexSettings.from_env(env), IndexCache(fetch, Clock()), lambda _: store)
    svc.search(request("machine"))
    svc.search(request("machine"))
    with pytest.raises(QuotaExceeded):
        svc.search(request("machine"))
    assert fetch.calls == 1


def test_disabled_tool_refuses_without_metering_or_fetching() -> None:
    """GIVEN ENABLE_CODEX=false WHEN searched THEN NotConfigured, nothing fetched or metered."""
    fetch, quota = FakeFetch(b"[]"), FakeQuota()
    svc = CodexService(lambda: CodexSettings.from_env({}), IndexCache(fetch, Clock()), lambda _: quota)
    with pytest.raises(NotConfigured):
        svc.search(request("machine"))
    assert fetch.calls == 0 and quota.calls == []
    assert svc.tools() == []


def test_unknown_lang_falls_back_to_en_and_says_so() -> None:
    """GIVEN lang 'xx' WHEN searched THEN English results and a note about it."""
    result = make_service(FakeFetch(json.dumps(INDEX).encode())).search(request("machine", "xx"))
    assert result["lang"] == "en" and "unknown lang" in result["lang_note"] and result["results"]


def test_fallback_is_reported_when_tongue_has_nothing() -> None:
    """GIVEN a query matching only English WHEN searched in uk THEN results with fallback true and a note."""
    result = make_service(FakeFetch(json.dumps(INDEX).encode())).search(request("servitor", "uk"))
    assert result["fallback"] is True and result["results"][0]["title"] == "Servitor Upkeep"


def test_no_results_say_so() -> None:
    """GIVEN a query matching nothing WHEN searched THEN empty results, fallback false, a do-not-invent note."""
    result = make_service(FakeFetch(json.dumps(INDEX).encode())).search(request("xyzzy"))
    assert result["results"] == [] and result["fallback"] is False and "do not invent" in result["note"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"query": "x"}, "user_id"),
        ({"user_id": "1"}, "query"),
        ({"user_id": "1", "query": "   "}, "query"),
        ({"user_id": "1", "query": "x" * 10_000}, "too long"),
        ({"user_id": "1", "query": 5}, "query"),
        ({"user_id": "a b", "query": "x"}, "user_id"),
        ({"user_id": "1", "query": "x", "lang": 3}, "lang"),
        (["not", "an", "object"], "JSON object"),
    ],
)
def test_malformed_requests_are_request_errors(body: Any, message: str) -> None:
    """GIVEN a malformed body WHEN parsed THEN a RequestError (HTTP 400) naming the problem."""
    with pytest.raises(RequestError, match=message):
        parse_request(body)


def test_cache_hits_and_misses_are_counted() -> None:
    """GIVEN a metrics counter WHEN the index is loaded once and then reused THEN one miss, then hits."""
    counted: list[str] = []
    svc = CodexService(
        lambda: CodexSettings.from_env({"ENABLE_CODEX": "true"}),
        IndexCache(FakeFetch(json.dumps(INDEX).encode()), Clock()),
        lambda _: FakeQuota(),
        count=counted.append,
    )
    for _ in range(3):
        svc.search(request("machine"))
    assert counted == ["CacheMisses", "CacheHits", "CacheHits"]
