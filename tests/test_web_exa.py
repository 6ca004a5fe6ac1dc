"""The Exa client: the request it sends (highlights only, key in x-api-key only), and every way the
call can fail (WEB-04) becoming an ExaError with status and requestId; bounded time, size and retries.

Most tests swap the transport (httpx.MockTransport); the read timeout, the slow drip, the refused
connection and the oversized body go through real loopback sockets.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Any

import httpx
import pytest
from aws_lambda_powertools import Logger

from luma_shared.errors import FetchError, NotConfigured
from tests.loopback import Loopback, Route, loopback_server
from web_tool.exa import (
    MAX_RESPONSE_BYTES,
    ExaClient,
    ExaError,
    ExaQuery,
    ExaTimeouts,
    KeyProvider,
    new_http_client,
)
from web_tool.settings import ApiKey

KEY = "exa-test-key-SHOULD-NEVER-APPEAR"
BASE = "https://api.exa.test"
LOG = Logger(service="web-test")

Responder = Callable[[httpx.Request], httpx.Response]


def exa_result(n: int = 1, **overrides: Any) -> dict[str, Any]:
    """One result as Exa returns it."""
    result: dict[str, Any] = {
        "id": f"https://example.org/page-{n}",
        "title": f"Page {n}",
        "url": f"https://example.org/page-{n}",
        "publishedDate": "2024-03-05T10:20:30.000Z",
        "author": "Someone",
        "highlights": [f"First highlight of page {n}.", "Second highlight."],
        "highlightScores": [0.9, 0.5],
    }
    result.update(overrides)
    return result


def ok(results: list[Any] | None = None, request_id: str = "req-ok-1", **extra: Any) -> Responder:
    """A 200 answer with ``results``."""
    body = {"requestId": request_id, "results": [exa_result(1)] if results is None else results, **extra}
    return lambda request: httpx.Response(200, json=body)


def status(code: int, headers: dict[str, str] | None = None, body: Any = None) -> Responder:
    """An error answer, with Exa's error body by default."""
    payload = {"requestId": f"req-{code}", "error": "something", "tag": "SOME_TAG"} if body is None else body
    return lambda request: httpx.Response(code, headers=headers, json=payload)


def raises(error: type[httpx.HTTPError]) -> Responder:
    """A transport failure."""

    def respond(request: httpx.Request) -> httpx.Response:
        raise error("boom", request=request)

    return respond


class FakeExa:
    """A MockTransport handler answering from a script (the last answer repeats) and recording requests."""

    def __init__(self, *script: Responder) -> None:
        self.script = list(script)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        respond = self.script[min(len(self.requests), len(self.script)) - 1]
        response = respond(request)
        if response.is_stream_consumed:
            # httpx buffers a response built from bytes/json; a socket's arrives as a stream.
            return httpx.Response(response.status_code, headers=response.headers, content=iter([response.content]))
        return response

    def client(self) -> httpx.Client:
        """A real client (the production factory) over this fake transport."""
        return new_http_client(httpx.MockTransport(self))

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies sent."""
        return [json.loads(r.content) for r in self.requests]


class Sleeps(list[float]):
    """Records pauses instead of taking them."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client_for(fake: FakeExa, sleeps: Sleeps | None = None, **kwargs: Any) -> ExaClient:
    """An ExaClient over ``fake`` that never really sleeps and jitters by a fixed 0.2 s."""
    return ExaClient(
        BASE, fake.client(), LOG, sleep=sleeps if sleeps is not None else Sleeps(), jitter=lambda: 0.2, **kwargs
    )


def query(**overrides: Any) -> ExaQuery:
    """A search as the service builds it."""
    fields: dict[str, Any] = {"query": "mars rover findings", "num_results": 5, "highlight_chars": 400}
    fields.update(overrides)
    return ExaQuery(**fields)


def search(fake: FakeExa, sleeps: Sleeps | None = None, **kwargs: Any) -> Any:
    """Run one search and return the answer or the ExaError."""
    try:
        return client_for(fake, sleeps, **kwargs).search(query(), ApiKey(KEY))
    except ExaError as e:
        return e


# --- the request -----------------------------------------------------------------------------------


def test_request_asks_for_capped_highlights_only() -> None:
    """GIVEN a search with every filter WHEN sent THEN POST /search with Exa's field names, highlights
    capped at the snippet size, and no full text (it doubles the bill)."""
    fake = FakeExa(ok())
    client_for(fake).search(
        query(
            num_results=7,
            include_domains=("nasa.gov", "esa.int"),
            exclude_domains=("example.com",),
            start_published_date=date(2024, 1, 31),
            highlight_chars=321,
        ),
        ApiKey(KEY),
    )
    (request,) = fake.requests
    assert request.method == "POST" and str(request.url) == f"{BASE}/search"
    assert fake.bodies()[0] == {
        "query": "mars rover findings",
        "type": "auto",
        "numResults": 7,
        "contents": {"highlights": {"maxCharacters": 321}},
        "includeDomains": ["nasa.gov", "esa.int"],
        "excludeDomains": ["example.com"],
        "startPublishedDate": "2024-01-31T00:00:00.000Z",
    }


def test_optional_filters_are_left_out_when_unset() -> None:
    """GIVEN no filters WHEN sent THEN the body has no includeDomains/excludeDomains/startPublishedDate."""
    fake = FakeExa(ok())
    client_for(fake).search(query(), ApiKey(KEY))
    assert set(fake.bodies()[0]) == {"query", "type", "numResults", "contents"}
    assert "text" not in fake.bodies()[0]["contents"]


def test_key_travels_only_in_the_x_api_key_header() -> None:
    """GIVEN a key WHEN a search is sent THEN it is in x-api-key and nowhere in the URL, body or other headers."""
    fake = FakeExa(ok())
    client_for(fake).search(query(), ApiKey(KEY))
    (request,) = fake.requests
    assert request.headers["x-api-key"] == KEY
    assert KEY not in str(request.url)
    assert KEY.encode() not in request.content
    assert all(KEY not in value for name, value in request.headers.items() if name != "x-api-key")
    assert "authorization" not in request.headers


def test_answer_carries_results_and_request_id() -> None:
    """GIVEN a 200 with results WHEN searched THEN the result objects and the body's requestId come back."""
    answer = search(FakeExa(ok([exa_result(1), "junk", exa_result(2)], request_id="abc-123")))
    assert [r["url"] for r in answer.results] == ["https://example.org/page-1", "https://example.org/page-2"]
    assert answer.request_id == "abc-123" and answer.attempts == 1


def test_request_id_falls_back_to_the_header() -> None:
    """GIVEN a body without requestId and an x-request-id header WHEN searched THEN the header's id is used."""
    fake = FakeExa(lambda r: httpx.Response(200, headers={"x-request-id": "hdr-9"}, json={"results": []}))
    assert search(fake).request_id == "hdr-9"


# --- failures (WEB-04) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        (400, "rejected"),
        (401, "refused the API key"),
        (403, "refused the API key"),
        (402, "credits"),
        (404, "rejected"),
    ],
)
def test_client_errors_are_reported_not_retried(code: int, fragment: str) -> None:
    """GIVEN Exa answering 400/401/402/403/404 WHEN searched THEN one request, an ExaError with the
    status and Exa's requestId, and Exa's own error text is not passed on."""
    fake = FakeExa(status(code, body={"requestId": f"req-{code}", "error": "Exa internal words", "tag": "X_Y"}))
    error = search(fake)
    assert isinstance(error, ExaError) and isinstance(error, FetchError)
    assert len(fake.requests) == 1
    assert fragment in error.message and f"HTTP {code}" in error.message
    assert error.to_payload() == {
        "error": error.message,
        "code": "upstream",
        "status": code,
        "request_id": f"req-{code}",
    }
    assert "Exa internal words" not in json.dumps(error.to_payload())


@pytest.mark.parametrize("code", [429, 500, 502, 503, 504])
def test_rate_limit_and_server_errors_are_retried_once(code: int) -> None:
    """GIVEN Exa answering 429/5xx twice WHEN searched THEN exactly two requests, one jittered pause, then an error."""
    fake, sleeps = FakeExa(status(code)), Sleeps()
    error = search(fake, sleeps)
    assert isinstance(error, ExaError) and error.status == code and error.request_id == f"req-{code}"
    assert len(fake.requests) == 2 and sleeps == [0.2]


def test_retry_recovers_from_one_server_error() -> None:
    """GIVEN a 503 then a 200 WHEN searched THEN the retry's results, attempts = 2."""
    answer = search(FakeExa(status(503), ok(request_id="second")))
    assert answer.request_id == "second" and answer.attempts == 2


def test_retry_after_is_honoured_when_it_fits() -> None:
    """GIVEN a 429 with Retry-After: 2 WHEN searched THEN the pause is about 2 s (plus a little jitter)."""
    fake, sleeps = FakeExa(status(429, {"Retry-After": "2"}), ok()), Sleeps()
    assert search(fake, sleeps).attempts == 2
    assert len(sleeps) == 1 and 2.0 <= sleeps[0] <= 2.1


def test_retry_after_past_the_deadline_is_not_waited_for() -> None:
    """GIVEN a 429 with Retry-After: 30 (past the 8 s deadline) WHEN searched THEN no pause, no retry, the 429."""
    fake, sleeps = FakeExa(status(429, {"Retry-After": "30"}), ok()), Sleeps()
    error = search(fake, sleeps)
    assert isinstance(error, ExaError) and error.status == 429
    assert sleeps == [] and len(fake.requests) == 1


def test_no_retry_when_the_deadline_is_nearly_spent() -> None:
    """GIVEN a total deadline shorter than pause + minimum retry budget WHEN a 503 comes THEN no retry."""
    fake, sleeps = FakeExa(status(503), ok()), Sleeps()
    error = search(fake, sleeps, timeouts=ExaTimeouts(total=1.0, min_retry_budget=1.0))
    assert isinstance(error, ExaError) and error.status == 503 and sleeps == [] and len(fake.requests) == 1


def test_connect_errors_are_retried_once() -> None:
    """GIVEN connections failing WHEN searched THEN two attempts, then an error without a status."""
    fake = FakeExa(raises(httpx.ConnectError))
    error = search(fake)
    assert isinstance(error, ExaError) and "could not be reached" in error.message
    assert len(fake.requests) == 2 and error.status is None and "status" not in error.to_payload()


def test_connect_error_then_success() -> None:
    """GIVEN one connect failure then a 200 WHEN searched THEN the results of the retry."""
    assert search(FakeExa(raises(httpx.ConnectTimeout), ok())).attempts == 2


@pytest.mark.parametrize("error", [httpx.ReadTimeout, httpx.WriteTimeout, httpx.RemoteProtocolError])
def test_failures_after_connecting_are_not_retried(error: type[httpx.HTTPError]) -> None:
    """GIVEN a read timeout or broken exchange (Exa may have run and billed it) WHEN searched THEN one try, an error."""
    fake = FakeExa(raises(error))
    result = search(fake)
    assert isinstance(result, ExaError) and len(fake.requests) == 1


def test_body_that_is_not_json_is_an_error() -> None:
    """GIVEN a 200 with an HTML body WHEN searched THEN an ExaError saying so, with the status."""
    error = search(FakeExa(lambda r: httpx.Response(200, text="<html>gateway</html>", headers={"x-request-id": "h1"})))
    assert isinstance(error, ExaError) and "not JSON" in error.message
    assert error.status == 200 and error.request_id == "h1"


@pytest.mark.parametrize(
    "body", [[], {"requestId": "r1"}, {"requestId": "r1", "results": {"a": 1}}, {"results": "none"}, "null", 3]
)
def test_json_of_the_wrong_shape_is_an_error(body: Any) -> None:
    """GIVEN JSON without a results list WHEN searched THEN an ExaError about the shape."""
    error = search(FakeExa(lambda r: httpx.Response(200, json=body)))
    assert isinstance(error, ExaError) and "unexpected shape" in error.message


def test_declared_oversized_body_is_refused_before_reading() -> None:
    """GIVEN a Content-Length over the cap WHEN searched THEN an error about the limit."""
    big = b'{"results": []}' + b" " * 2000
    error = search(FakeExa(lambda r: httpx.Response(200, content=big)), max_bytes=1024)
    assert isinstance(error, ExaError) and "1024-byte limit" in error.message and error.status == 200


def test_gzip_answer_is_decoded_and_a_gzip_bomb_is_cut() -> None:
    """GIVEN a gzip-encoded answer WHEN searched THEN decoded; GIVEN 1 KiB of gzip inflating to 50 MB THEN refused at
    the (decoded) cap, never inflated whole."""
    import gzip

    good = gzip.compress(json.dumps({"results": [exa_result(1)], "requestId": "gz-1"}).encode())
    answer = client_for(
        FakeExa(lambda r: httpx.Response(200, headers={"content-encoding": "gzip"}, content=iter([good])))
    ).search(query(), ApiKey(KEY))
    assert answer.request_id == "gz-1" and len(answer.results) == 1
    bomb = gzip.compress(b" " * 50_000_000)
    error = search(
        FakeExa(lambda r: httpx.Response(200, headers={"content-encoding": "gzip"}, content=iter([bomb]))),
        max_bytes=64 * 1024,
    )
    assert isinstance(error, ExaError) and "byte limit" in error.message


def test_streamed_oversized_body_stops_at_the_cap() -> None:
    """GIVEN a body of unknown length far over the cap WHEN searched THEN an error, and the stream was
    not read to its end (it is cut, not buffered)."""
    produced: list[int] = []

    def chunks() -> Iterator[bytes]:
        for i in range(200):  # bounded: 200 x 4 KiB
            produced.append(i)
            yield b" " * 4096

    error = search(FakeExa(lambda r: httpx.Response(200, content=chunks())), max_bytes=16 * 1024)
    assert isinstance(error, ExaError) and "limit" in error.message
    assert len(produced) < 10


def test_error_body_is_not_needed_to_report_the_status() -> None:
    """GIVEN a 502 with an HTML body WHEN searched THEN still an ExaError with status 502 (no request id)."""
    error = search(FakeExa(lambda r: httpx.Response(502, text="<html>bad gateway</html>")))
    assert isinstance(error, ExaError) and error.status == 502 and error.request_id is None


def test_hostile_request_id_is_not_passed_on() -> None:
    """GIVEN a requestId full of markup WHEN searched THEN it is dropped rather than relayed."""
    error = search(FakeExa(status(401, body={"requestId": "<@everyone> \u202e"})))
    assert isinstance(error, ExaError) and error.request_id is None


# --- real sockets ----------------------------------------------------------------------------------


EXA_PATH = "/search"
#: The fake Exa's answers live at EXA_PATH in its routes; a test may swap them.
LoopbackExa = Loopback


def Reply(
    body: bytes = b'{"requestId": "loop-1", "results": []}',
    status: int = 200,
    delay: float = 0.0,
    drip: float = 0.0,
    send_length: bool = True,
) -> Route:
    """What the loopback Exa sends for each request."""
    return Route(status, body, {"Content-Type": "application/json"}, delay, drip, send_length)


@contextmanager
def loopback_exa(reply: Route) -> Iterator[Loopback]:
    """A fake Exa on a real socket: the shared loopback server answering ``reply`` at /search."""
    with loopback_server({EXA_PATH: reply}) as srv:
        yield srv


def loopback_client(base: str, **kwargs: Any) -> ExaClient:
    """An ExaClient on a real httpx client (real sockets) to ``base``."""
    return ExaClient(base, new_http_client(), LOG, jitter=lambda: 0.05, **kwargs)


@pytest.mark.slow
def test_read_timeout_on_a_real_socket() -> None:
    """GIVEN a server that answers after 1.5 s and a 0.2 s read timeout WHEN searched THEN an error
    in well under a second, and no retry (the search may have run)."""
    with loopback_exa(Reply(delay=1.5)) as srv:
        started = time.monotonic()
        with pytest.raises(ExaError, match="did not answer in time"):
            loopback_client(srv.base, timeouts=ExaTimeouts(connect=0.5, read=0.2, total=3.0)).search(
                query(), ApiKey(KEY)
            )
        assert time.monotonic() - started < 1.0
        assert [path for path, _, _ in srv.seen] == ["/search"]


@pytest.mark.slow
def test_slow_drip_is_cut_at_the_overall_deadline() -> None:
    """GIVEN a server dripping one byte every 50 ms (each read is quick) WHEN the 0.4 s deadline passes
    THEN an error soon after, not after the whole body."""
    body = b'{"results": [' + b" " * 200 + b"]}"
    with loopback_exa(Reply(body=body, drip=0.05)) as srv:
        started = time.monotonic()
        with pytest.raises(ExaError, match=r"too long|timed out"):
            loopback_client(srv.base, timeouts=ExaTimeouts(connect=0.5, read=0.3, total=0.4)).search(
                query(), ApiKey(KEY)
            )
        assert time.monotonic() - started < 1.5


@pytest.mark.slow
@pytest.mark.parametrize("send_length", [True, False])
def test_oversized_body_on_a_real_socket(send_length: bool) -> None:
    """GIVEN a 2 MiB + 1 KiB body, with or without Content-Length WHEN searched with the default cap THEN an error."""
    body = b'{"results": [], "pad": "' + b"x" * (MAX_RESPONSE_BYTES + 1024) + b'"}'
    with (
        loopback_exa(Reply(body=body, send_length=send_length)) as srv,
        pytest.raises(ExaError, match="byte limit") as caught,
    ):
        loopback_client(srv.base).search(query(), ApiKey(KEY))
    assert caught.value.status == 200


@pytest.mark.slow
def test_refused_connection_on_a_real_socket() -> None:
    """GIVEN nothing listening on the port WHEN searched THEN one retry, then 'could not be reached'."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps = Sleeps()
    with pytest.raises(ExaError, match="could not be reached"):
        loopback_client(f"http://127.0.0.1:{port}", sleep=sleeps).search(query(), ApiKey(KEY))
    assert sleeps == [0.05]


@pytest.mark.slow
def test_connection_is_reused_across_searches() -> None:
    """GIVEN one shared client WHEN two searches run against a keep-alive server THEN both go over one
    connection (same client port), the key in the header only."""
    with loopback_exa(Reply()) as srv:
        client = loopback_client(srv.base)
        for _ in range(2):
            assert client.search(query(), ApiKey(KEY)).results == []
        assert len(srv.seen) == 2 and srv.client_ports[0] == srv.client_ports[1]
        (path, headers, body) = srv.seen[0]
        assert path == "/search" and headers["x-api-key"] == KEY and KEY.encode() not in body


# --- the key ---------------------------------------------------------------------------------------


def test_env_key_is_used_without_any_parameter_read() -> None:
    """GIVEN only an env key WHEN the key is needed THEN it is returned and SSM is never asked."""

    def no_ssm(name: str) -> object:
        raise AssertionError("SSM must not be called")

    assert KeyProvider(ApiKey(KEY), "", no_ssm)().reveal() == KEY


def test_parameter_wins_over_the_env_key() -> None:
    """GIVEN a parameter name and an env key WHEN the key is needed THEN the parameter's value is used."""
    asked: list[str] = []

    def fetch(name: str) -> object:
        asked.append(name)
        return f"  {KEY}-from-ssm \n"

    assert KeyProvider(ApiKey("env-key"), "/luma/exa-api-key", fetch)().reveal() == f"{KEY}-from-ssm"
    assert asked == ["/luma/exa-api-key"]


@pytest.mark.parametrize("value", ["", "   ", None, b"bytes", {"a": 1}])
def test_empty_or_odd_parameter_value_is_not_configured(value: object) -> None:
    """GIVEN a parameter whose value is empty or not text WHEN the key is needed THEN NotConfigured."""
    with pytest.raises(NotConfigured, match="no Exa API key"):
        KeyProvider(ApiKey(""), "/luma/exa-api-key", lambda name: value)()


@pytest.mark.parametrize("bad", [f"{KEY} with space", f"{KEY}\r\nX-Evil: 1", f"{KEY}é"])
def test_malformed_key_is_refused_without_echoing_it(bad: str) -> None:
    """GIVEN a key with spaces, CR/LF or non-ASCII WHEN the key is needed THEN NotConfigured, the key not in it."""
    with pytest.raises(NotConfigured) as caught:
        KeyProvider(ApiKey(bad))()
    assert "malformed" in caught.value.message and KEY not in str(caught.value)


@pytest.fixture
def ssm_cache() -> Iterator[None]:
    """GIVEN Powertools' parameter providers and caches empty before and after."""
    from aws_lambda_powertools.utilities import parameters

    from web_tool import exa

    parameters.clear_caches()
    exa._ssm_provider.cache_clear()
    yield
    parameters.clear_caches()
    exa._ssm_provider.cache_clear()


def test_key_is_read_from_an_ssm_securestring(ssm_cache: None) -> None:
    """GIVEN the key in an SSM SecureString (moto) WHEN the key is needed THEN it is decrypted and returned."""
    import boto3
    from moto import mock_aws

    with mock_aws():
        boto3.client("ssm").put_parameter(Name="/luma/exa-api-key", Value=KEY, Type="SecureString")
        assert KeyProvider(ApiKey(""), "/luma/exa-api-key")().reveal() == KEY


def test_unreadable_ssm_parameter_is_not_configured(ssm_cache: None) -> None:
    """GIVEN a parameter name that does not exist (moto) WHEN the key is needed THEN NotConfigured,
    naming neither the parameter nor any value."""
    from moto import mock_aws

    with mock_aws(), pytest.raises(NotConfigured, match="could not be read") as caught:
        KeyProvider(ApiKey(""), "/luma/missing-key")()
    assert "/luma/missing-key" not in caught.value.message
