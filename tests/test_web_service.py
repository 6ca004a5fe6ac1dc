"""web_search logic: offered only with a key (WEB-01), results reduced and sanitized (WEB-02), count
bounded (WEB-03), failures reported not raised (WEB-04), metered per user (WEB-05); duplicates
dropped, the output capped, repeated queries answered from the warm cache (still metered)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from luma_shared.errors import NotConfigured, QuotaExceeded
from luma_shared.quota import QuotaStore, user_key
from tests.test_web_exa import KEY, LOG, FakeExa, Sleeps, exa_result, ok, status
from web_tool.exa import ExaClient, ExaError
from web_tool.schema import TOOL_DEFINITION, WebRequest, parse_request
from web_tool.service import (
    MAX_OUTPUT_BYTES,
    ResultCache,
    WebService,
    normalize_query,
    normalize_url,
    output_bytes,
    published_date,
    reduce_result,
)
from web_tool.settings import ApiKey, WebSettings


class FakeQuota:
    """Stands in for QuotaStore: records what is spent, refuses past ``limit`` calls."""

    def __init__(self, refuse_after: int | None = None) -> None:
        self.calls: list[tuple[str, str, int]] = []
        self.refuse_after = refuse_after

    def consume(self, tool: str, user_id: str, limit: int, now: datetime | None = None) -> int:
        self.calls.append((tool, user_id, limit))
        if self.refuse_after is not None and len(self.calls) > self.refuse_after:
            raise QuotaExceeded("daily limit reached", resets_at="2026-11-30T00:00:00Z")
        return len(self.calls)


class Clock:
    """A clock tests can move."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class KeySpy:
    """A key source that counts reads (and can fail like an unreadable SSM parameter)."""

    def __init__(self, fail: bool = False) -> None:
        self.reads = 0
        self.fail = fail

    def __call__(self, settings: WebSettings) -> Callable[[], ApiKey]:
        def read() -> ApiKey:
            self.reads += 1
            if self.fail:
                raise NotConfigured("web search is not configured: the Exa API key parameter could not be read")
            return ApiKey(KEY)

        return read


ENABLED = {"ENABLE_WEB_SEARCH": "true", "EXA_API_KEY": KEY, "WEB_DAILY_PER_USER": "0"}


def make_service(
    fake: FakeExa,
    env: dict[str, str] | None = None,
    *,
    quota: Any = None,
    keys: Any = None,
    cache: ResultCache | None = None,
    count: Callable[[str], None] | None = None,
) -> WebService:
    """A WebService over ``fake`` Exa, configured by ``env`` (enabled with an env key, unmetered by default)."""
    settings_env = {**ENABLED, **(env or {})}
    extra: dict[str, Any] = {}
    if keys is not None:
        extra["keys"] = keys
    if count is not None:
        extra["count"] = count
    return WebService(
        settings_loader=lambda: WebSettings.from_env(settings_env),
        exa=lambda s: ExaClient(s.base_url, fake.client(), LOG, sleep=Sleeps(), jitter=lambda: 0.0),
        quota=(lambda s: quota) if quota is not None else (lambda s: QuotaStore(s.common.quota_table)),
        logger=LOG,
        cache=cache,
        **extra,
    )


def request(**fields: Any) -> WebRequest:
    """A validated request."""
    return parse_request({"user_id": "42", "query": "mars rover findings", **fields})


# --- WEB-01: offered only when enabled and keyed ---------------------------------------------------


@pytest.mark.parametrize(
    ("env", "listed"),
    [
        ({}, True),
        ({"EXA_API_KEY": "", "EXA_API_KEY_PARAMETER": "/luma/exa-api-key"}, True),
        ({"EXA_API_KEY": ""}, False),
        ({"ENABLE_WEB_SEARCH": "false"}, False),
        ({"WEB_SNIPPET_CHARS": "lots"}, False),
    ],
)
def test_tool_is_listed_only_when_enabled_with_a_key(env: dict[str, str], listed: bool) -> None:
    """GIVEN the flag and key sources WHEN the tools are listed THEN web_search only with flag on and a key
    or parameter name (WEB-01), without reading the key, and a broken config lists nothing."""
    keys = KeySpy()
    tools = make_service(FakeExa(ok()), env, keys=keys).tools()
    assert tools == ([TOOL_DEFINITION] if listed else [])
    assert keys.reads == 0


@pytest.mark.parametrize(
    ("env", "fragment"), [({"EXA_API_KEY": ""}, "no Exa API key"), ({"ENABLE_WEB_SEARCH": "false"}, "not enabled")]
)
def test_no_key_or_disabled_refuses_without_any_call(env: dict[str, str], fragment: str) -> None:
    """GIVEN no key (or the flag off) WHEN searched THEN NotConfigured, and no Exa request, key read or quota spent."""
    fake, quota, keys = FakeExa(ok()), FakeQuota(), KeySpy()
    with pytest.raises(NotConfigured, match=fragment) as caught:
        make_service(fake, env, quota=quota, keys=keys).search(request())
    assert caught.value.to_payload()["code"] == "not_configured"
    assert fake.requests == [] and keys.reads == 0 and quota.calls == []


def test_unreadable_key_refuses_before_metering() -> None:
    """GIVEN a parameter that cannot be read WHEN searched THEN NotConfigured, no Exa request, no quota spent."""
    fake, quota = FakeExa(ok()), FakeQuota()
    with pytest.raises(NotConfigured, match="could not be read"):
        make_service(fake, quota=quota, keys=KeySpy(fail=True)).search(request())
    assert fake.requests == [] and quota.calls == []


# --- WEB-02: reduced and sanitized ----------------------------------------------------------------


def test_each_result_is_exactly_title_url_snippet_published() -> None:
    """GIVEN Exa results with extra fields WHEN searched THEN each becomes {title, url, snippet, published}."""
    answer = make_service(FakeExa(ok([exa_result(1), exa_result(2)]))).search(request())
    assert answer["count"] == 2 and answer["source"] == "exa" and "cached" not in answer
    assert answer["results"][0] == {
        "title": "Page 1",
        "url": "https://example.org/page-1",
        "snippet": "First highlight of page 1. … Second highlight.",
        "published": "2024-03-05",
    }
    assert all(set(r) == {"title", "url", "snippet", "published"} for r in answer["results"])


def test_title_and_snippet_are_sanitized_and_capped() -> None:
    """GIVEN a page title and highlights with pings, bidi overrides and zero-width characters WHEN searched
    THEN both are inert, and the snippet fits WEB_SNIPPET_CHARS."""
    hostile = exa_result(
        1,
        title="Hi @everyone <@123456> \u202eevil\u200b" + "T" * 500,
        highlights=["Ping @here and <@&987654> now \u2066x\u2069", "y" * 500],
    )
    answer = make_service(FakeExa(ok([hostile])), {"WEB_SNIPPET_CHARS": "60"}).search(request())
    (result,) = answer["results"]
    for text in (result["title"], result["snippet"]):
        assert "@everyone" not in text and "@here" not in text and "<@" not in text
        assert not any(ch in text for ch in "\u202e\u200b\u2066\u2069")
    assert len(result["title"]) <= 200 and len(result["snippet"]) <= 60
    assert result["title"].startswith("Hi \uff20everyone") and result["snippet"].endswith("…")


@pytest.mark.parametrize(
    ("fields", "snippet"),
    [
        ({"highlights": [], "summary": "A summary.", "text": "Full text."}, "A summary."),
        ({"highlights": None, "text": "Only   text\n here."}, "Only text here."),
        ({"highlights": [3, None, "  "], "summary": "Fallback."}, "Fallback."),
        ({"highlights": None}, ""),
    ],
)
def test_snippet_falls_back_to_summary_then_text(fields: dict[str, Any], snippet: str) -> None:
    """GIVEN no usable highlights WHEN reduced THEN the snippet is the summary, else the text, else empty."""
    assert reduce_result({"title": "t", "url": "https://a.example/x", **fields}, 400)["snippet"] == snippet  # type: ignore[index]


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", "ftp://files.example/x", "/relative/path", "", None, 42, "https://user@host.example/"],
)
def test_results_without_an_http_url_are_dropped(url: Any) -> None:
    """GIVEN a result whose url is not an absolute clean http(s) link WHEN searched THEN it is dropped."""
    answer = make_service(FakeExa(ok([exa_result(1, url=url), exa_result(2)]))).search(request())
    assert [r["url"] for r in answer["results"]] == ["https://example.org/page-2"]


def test_missing_title_falls_back_to_the_host() -> None:
    """GIVEN a result with no title WHEN reduced THEN the title is the link's host."""
    assert reduce_result({"url": "https://news.example/a"}, 400)["title"] == "news.example"  # type: ignore[index]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-03-05T10:20:30.000Z", "2024-03-05"),
        ("2024-03-05T23:59:59+05:00", "2024-03-05"),
        ("2024-03-05", "2024-03-05"),
        (None, None),
        ("", None),
        ("garbage", None),
        ("2024-13-45T00:00:00Z", None),
        ("yesterday at noon", None),
        (20240305, None),
        ("2024-03-05T10:20:30.000Z" + "x" * 100, None),
    ],
)
def test_published_is_an_iso_date_or_null(value: Any, expected: str | None) -> None:
    """GIVEN Exa's publishedDate in any state WHEN reduced THEN YYYY-MM-DD or None, never an error."""
    assert published_date(value) == expected


def test_missing_published_date_is_null_not_an_error() -> None:
    """GIVEN a result without publishedDate WHEN searched THEN published is null."""
    result = exa_result(1)
    del result["publishedDate"]
    assert make_service(FakeExa(ok([result]))).search(request())["results"][0]["published"] is None


def test_no_results_says_so() -> None:
    """GIVEN Exa finding nothing WHEN searched THEN an empty list and a note not to invent an answer."""
    answer = make_service(FakeExa(ok([]))).search(request())
    assert answer["results"] == [] and answer["count"] == 0 and "do not invent" in answer["note"]


# --- WEB-03: bounded count ------------------------------------------------------------------------


@pytest.mark.parametrize(("asked", "sent"), [(50, 10), (-3, 1), (0, 1), (None, 5)])
def test_num_results_is_clamped_before_the_request(asked: Any, sent: int) -> None:
    """GIVEN num_results 50, -3, 0 or missing WHEN searched THEN Exa is asked for 10, 1, 1 or 5 (WEB-03)."""
    fake = FakeExa(ok())
    make_service(fake).search(request(num_results=asked))
    assert fake.bodies()[0]["numResults"] == sent


def test_never_more_results_than_asked_for() -> None:
    """GIVEN Exa returning 12 results for a request of 3 WHEN searched THEN 3."""
    answer = make_service(FakeExa(ok([exa_result(i) for i in range(12)]))).search(request(num_results=3))
    assert answer["count"] == 3 and len(answer["results"]) == 3


# --- WEB-04: failures become {error} --------------------------------------------------------------


@pytest.mark.parametrize("code", [401, 402, 403, 429, 500])
def test_exa_failure_is_an_error_with_status_and_request_id(code: int) -> None:
    """GIVEN Exa failing WHEN searched THEN an ExaError whose payload carries the status and requestId."""
    with pytest.raises(ExaError) as caught:
        make_service(FakeExa(status(code))).search(request())
    payload = caught.value.to_payload()
    assert payload["code"] == "upstream" and payload["status"] == code and payload["request_id"] == f"req-{code}"


def test_failures_are_not_cached() -> None:
    """GIVEN a 500 then a 200 for the same query WHEN searched twice THEN the second reaches Exa and succeeds."""
    fake = FakeExa(status(500), status(500), ok())
    service = make_service(fake)
    with pytest.raises(ExaError):
        service.search(request())
    assert service.search(request())["count"] == 1 and len(fake.requests) == 3


# --- WEB-05: metered per user ---------------------------------------------------------------------


def test_daily_limit_refuses_without_calling_exa(quota_table: str) -> None:
    """GIVEN WEB_DAILY_PER_USER=2 on the moto table WHEN a user searches three different things THEN the
    third is refused with a reset time and Exa saw two requests (WEB-05)."""
    fake = FakeExa(ok())
    service = make_service(fake, {"WEB_DAILY_PER_USER": "2", "QUOTA_TABLE": quota_table})
    service.search(request(query="one"))
    service.search(request(query="two"))
    with pytest.raises(QuotaExceeded) as caught:
        service.search(request(query="three"))
    assert caught.value.to_payload()["code"] == "quota_exceeded" and caught.value.resets_at.endswith("T00:00:00Z")
    assert len(fake.requests) == 2


def test_limit_is_per_user(quota_table: str) -> None:
    """GIVEN a limit of 1 WHEN two users search once each THEN both are answered."""
    service = make_service(FakeExa(ok()), {"WEB_DAILY_PER_USER": "1", "QUOTA_TABLE": quota_table})
    for user in ("1", "2"):
        assert service.search(parse_request({"user_id": user, "query": f"q{user}"}))["count"] == 1


def test_counter_lives_in_the_table_under_the_tool_name(quota_table: str) -> None:
    """GIVEN a metered search WHEN done THEN one item keyed web_search#<hashed user>#<UTC day> counts 1."""
    import boto3

    make_service(FakeExa(ok()), {"WEB_DAILY_PER_USER": "5", "QUOTA_TABLE": quota_table}).search(request())
    items = boto3.client("dynamodb").scan(TableName=quota_table)["Items"]
    assert len(items) == 1
    pk = items[0]["pk"]["S"]
    assert pk.startswith("web_search#") and pk.endswith(datetime.now(UTC).strftime("#%Y-%m-%d"))
    assert pk.split("#")[1] == user_key("42")
    assert items[0]["count"]["N"] == "1"


def test_zero_means_unmetered_with_no_table_call() -> None:
    """GIVEN WEB_DAILY_PER_USER=0 and no QUOTA_TABLE WHEN searched THEN answered (a table call would fail)."""
    assert make_service(FakeExa(ok()), {"WEB_DAILY_PER_USER": "0"}).search(request())["count"] == 1


# --- beyond the spec: dedupe, output cap, warm cache ----------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://Example.ORG/a/", "https://example.org/a"),
        ("https://example.org/a#section", "https://example.org/a"),
        ("https://example.org/a?utm_source=x&id=3&UTM_medium=y", "https://example.org/a?id=3"),
        ("HTTPS://example.org:443/a", "https://example.org/a"),
    ],
)
def test_urls_that_differ_only_in_noise_normalize_alike(a: str, b: str) -> None:
    """GIVEN URLs differing by case of host, trailing slash, fragment, utm_* or default port THEN one key."""
    assert normalize_url(a) == normalize_url(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.org/a", "https://example.org/b"),
        ("https://example.org/a?id=1", "https://example.org/a?id=2"),
        ("https://example.org/A", "https://example.org/a"),
        ("https://example.org:8443/a", "https://example.org/a"),
    ],
)
def test_different_pages_stay_different(a: str, b: str) -> None:
    """GIVEN URLs of different pages (path, real query, path case, port) THEN different keys."""
    assert normalize_url(a) != normalize_url(b)


def test_duplicate_results_are_dropped() -> None:
    """GIVEN Exa returning one page under three spellings WHEN searched THEN it appears once, first spelling kept."""
    results = [
        exa_result(1, url="https://example.org/story/?utm_source=feed"),
        exa_result(2, url="https://EXAMPLE.org/story#comments"),
        exa_result(3, url="https://example.org/story"),
        exa_result(4, url="https://example.org/other"),
    ]
    answer = make_service(FakeExa(ok(results))).search(request())
    assert [r["url"] for r in answer["results"]] == [
        "https://example.org/story/?utm_source=feed",
        "https://example.org/other",
    ]


def test_output_is_capped_by_dropping_trailing_results() -> None:
    """GIVEN ten results with 2000-character snippets WHEN searched THEN the JSON fits 8 KiB (even marked
    cached), the first results are kept in order and the answer says it was truncated."""
    results = [exa_result(i, highlights=[f"{i} " + "word " * 600]) for i in range(10)]
    answer = make_service(FakeExa(ok(results)), {"WEB_SNIPPET_CHARS": "2000"}).search(request(num_results=10))
    assert output_bytes({**answer, "cached": True}) <= MAX_OUTPUT_BYTES
    assert answer["truncated"] is True and 1 <= answer["count"] == len(answer["results"]) < 10
    assert [r["url"] for r in answer["results"]] == [f"https://example.org/page-{i}" for i in range(answer["count"])]


def test_multibyte_output_is_measured_in_bytes() -> None:
    """GIVEN snippets of 3-byte characters WHEN searched THEN the UTF-8 JSON still fits the byte cap."""
    results = [exa_result(i, highlights=["語" * 1500]) for i in range(10)]
    answer = make_service(FakeExa(ok(results)), {"WEB_SNIPPET_CHARS": "2000"}).search(request(num_results=10))
    assert len(json.dumps(answer, ensure_ascii=False).encode()) <= MAX_OUTPUT_BYTES


def test_small_output_is_not_truncated() -> None:
    """GIVEN five short results WHEN searched THEN all five and no truncated flag."""
    answer = make_service(FakeExa(ok([exa_result(i) for i in range(5)]))).search(request())
    assert answer["count"] == 5 and "truncated" not in answer


def test_repeated_query_is_answered_from_the_warm_cache() -> None:
    """GIVEN a search, then the same query in other case and spacing WHEN searched THEN one Exa request,
    the second answer equal but marked cached."""
    fake = FakeExa(ok([exa_result(1), exa_result(2)]))
    service = make_service(fake)
    first = service.search(request(query="Mars  Rover\tfindings"))
    second = service.search(request(query="mars rover FINDINGS"))
    assert len(fake.requests) == 1
    assert second == {**first, "cached": True}


def test_cache_hits_and_misses_are_counted() -> None:
    """GIVEN a metrics counter WHEN a query is asked twice THEN a miss, then a hit."""
    counted: list[str] = []
    service = make_service(FakeExa(ok([exa_result(1)])), count=counted.append)
    service.search(request())
    service.search(request())
    assert counted == ["CacheMisses", "CacheHits"]


@pytest.mark.parametrize(
    "other",
    [
        {"num_results": 3},
        {"include_domains": ["nasa.gov"]},
        {"exclude_domains": ["nasa.gov"]},
        {"start_published_date": "2024-01-01"},
        {"query": "venus rover findings"},
    ],
)
def test_different_options_are_not_served_from_cache(other: dict[str, Any]) -> None:
    """GIVEN a search WHEN a second differs in count, domains, date or query THEN Exa is asked again."""
    fake = FakeExa(ok())
    service = make_service(fake)
    service.search(request())
    assert "cached" not in service.search(request(**other))
    assert len(fake.requests) == 2


def test_domain_order_does_not_defeat_the_cache() -> None:
    """GIVEN the same domains in another order WHEN searched again THEN served from cache."""
    fake = FakeExa(ok())
    service = make_service(fake)
    service.search(request(include_domains=["a.com", "b.com"]))
    assert service.search(request(include_domains=["b.com", "a.com"]))["cached"] is True


def test_cached_answers_still_spend_quota() -> None:
    """GIVEN a quota of 2 WHEN the same query is searched three times THEN one Exa request, the second cached,
    the third refused: metering happens before the cache lookup."""
    fake, quota = FakeExa(ok()), FakeQuota(refuse_after=2)
    service = make_service(fake, quota=quota, env={"WEB_DAILY_PER_USER": "2"})
    service.search(request())
    assert service.search(request())["cached"] is True
    with pytest.raises(QuotaExceeded):
        service.search(request())
    assert len(fake.requests) == 1 and len(quota.calls) == 3


def test_cache_entries_expire() -> None:
    """GIVEN a cached answer WHEN searched again after the TTL THEN Exa is asked again."""
    clock, fake = Clock(), FakeExa(ok())
    service = make_service(fake, cache=ResultCache(ttl=300, clock=clock))
    service.search(request())
    clock.now += 299
    assert service.search(request())["cached"] is True
    clock.now += 2
    assert "cached" not in service.search(request())
    assert len(fake.requests) == 2


def test_cache_is_a_bounded_lru() -> None:
    """GIVEN a cache of 2 entries WHEN three queries are cached and the first reused in between THEN the
    least recently used one is evicted."""
    cache = ResultCache(max_entries=2)
    cache.put(("a",), {"n": 1})
    cache.put(("b",), {"n": 2})
    assert cache.get(("a",)) == {"n": 1}
    cache.put(("c",), {"n": 3})
    assert len(cache) == 2 and cache.get(("b",)) is None and cache.get(("a",)) == {"n": 1}


def test_cached_answer_cannot_be_changed_by_a_caller() -> None:
    """GIVEN an answer that a caller mutates WHEN the query is repeated THEN the cached copy is intact."""
    service = make_service(FakeExa(ok()))
    first = service.search(request())
    first["results"].clear()
    assert service.search(request())["count"] == 1 == len(service.search(request())["results"])


def test_query_normalization() -> None:
    """GIVEN queries differing in case and whitespace THEN they normalize alike."""
    assert normalize_query("  Straße\tIN  Berlin ") == normalize_query("STRASSE in berlin")
