"""Bounded fetch: guarded hops, pinned address, byte cap, timeouts, redirects (CDX-02)."""

from __future__ import annotations

import gzip
import time

import httpx
import pytest

from luma_shared.errors import FetchError, UnsafeUrlError
from luma_shared.fetch import fetch_bytes, new_client
from luma_shared.guard import UrlGuard
from tests.loopback import Route, loopback_server

PUBLIC = "93.184.216.34"


def public_guard() -> UrlGuard:
    """A guard whose resolver answers every name with one public address (no DNS in tests)."""
    return UrlGuard(resolver=lambda host, port: [PUBLIC])


def streamed(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> httpx.Response:
    """A response whose body arrives as a stream, as from a real socket (bytes content is pre-read by httpx)."""
    return httpx.Response(status, headers=headers, content=iter([body]))


def mock_client(handler) -> httpx.Client:  # type: ignore[no-untyped-def]
    """A bounded-fetch client whose transport is ``handler`` (no sockets)."""
    return new_client(httpx.MockTransport(handler))


def test_connects_to_pinned_address_with_real_host_and_sni() -> None:
    """GIVEN a vetted name WHEN fetched THEN the request goes to the pinned IP, Host and SNI name the site."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return streamed(200, b"[]")

    got = fetch_bytes(
        "https://binaric.tech/search-index.json", client=mock_client(handler), guard=public_guard(), max_bytes=100
    )
    assert got.content == b"[]"
    assert seen[0].url.host == PUBLIC
    assert seen[0].headers["host"] == "binaric.tech"
    assert seen[0].extensions["sni_hostname"] == "binaric.tech"


def test_guard_runs_before_any_network_call() -> None:
    """GIVEN a URL at 169.254.169.254 WHEN fetched THEN refused and the transport never called."""
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(200)

    with pytest.raises(UnsafeUrlError):
        fetch_bytes(
            "http://169.254.169.254/latest/meta-data/", client=mock_client(handler), guard=UrlGuard(), max_bytes=100
        )
    assert calls == []


def test_every_redirect_hop_is_guarded() -> None:
    """GIVEN a public URL that redirects to the metadata address WHEN fetched THEN refused at the hop."""

    def resolve(host: str, port: int) -> list[str]:
        return [PUBLIC] if host == "binaric.tech" else ["169.254.169.254"]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(302, headers={"location": "http://metadata.evil/"})

    with pytest.raises(UnsafeUrlError):
        fetch_bytes(
            "https://binaric.tech/i.json", client=mock_client(handler), guard=UrlGuard(resolver=resolve), max_bytes=100
        )


def test_redirects_are_capped() -> None:
    """GIVEN an endless redirect loop WHEN fetched THEN a FetchError after the cap."""
    count = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal count
        count += 1
        return httpx.Response(301, headers={"location": f"/hop{count}"})

    with pytest.raises(FetchError, match="too many redirects"):
        fetch_bytes(
            "https://binaric.tech/i.json",
            client=mock_client(handler),
            guard=public_guard(),
            max_bytes=100,
            max_redirects=3,
        )
    assert count == 4


def test_relative_redirect_is_followed() -> None:
    """GIVEN a relative redirect to another path WHEN fetched THEN the final body and URL are returned."""

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/old.json":
            return httpx.Response(308, headers={"location": "/new.json"})
        return streamed(200, b"ok")

    got = fetch_bytes("https://binaric.tech/old.json", client=mock_client(handler), guard=public_guard(), max_bytes=10)
    assert (got.content, got.url) == (b"ok", "https://binaric.tech/new.json")


@pytest.mark.parametrize("status", [404, 500, 503])
def test_non_2xx_is_an_error(status: int) -> None:
    """GIVEN a non-2xx answer WHEN fetched THEN a FetchError carrying the status."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=b"nope")

    with pytest.raises(FetchError) as info:
        fetch_bytes("https://binaric.tech/i.json", client=mock_client(handler), guard=public_guard(), max_bytes=10)
    assert info.value.status == status


def test_declared_oversize_is_refused_before_reading() -> None:
    """GIVEN a Content-Length over the cap WHEN fetched THEN refused."""

    def handler(request: httpx.Request) -> httpx.Response:
        return streamed(200, b"x" * 101, {"content-length": "101"})

    with pytest.raises(FetchError, match="larger than"):
        fetch_bytes("https://binaric.tech/i.json", client=mock_client(handler), guard=public_guard(), max_bytes=100)


def test_cap_holds_when_content_length_lies() -> None:
    """GIVEN a server that claims 10 bytes and streams 5 MB WHEN fetched THEN cut at the cap."""

    def handler(request: httpx.Request) -> httpx.Response:
        def chunks():  # type: ignore[no-untyped-def]
            for _ in range(80):
                yield b"x" * 65536

        return httpx.Response(200, headers={"content-length": "10"}, content=chunks())

    with pytest.raises(FetchError, match="larger than"):
        fetch_bytes("https://binaric.tech/i.json", client=mock_client(handler), guard=public_guard(), max_bytes=1000)


def test_gzip_bomb_is_cut_at_the_cap_after_decompression() -> None:
    """GIVEN a tiny gzip body that inflates to 50 MB WHEN fetched THEN refused at the decoded cap."""
    bomb = gzip.compress(b"\0" * 50_000_000)
    assert len(bomb) < 100_000

    def handler(request: httpx.Request) -> httpx.Response:
        return streamed(200, bomb, {"content-encoding": "gzip"})

    with pytest.raises(FetchError, match="larger than"):
        fetch_bytes("https://binaric.tech/i.json", client=mock_client(handler), guard=public_guard(), max_bytes=4096)


def test_gzip_body_within_cap_is_decoded() -> None:
    """GIVEN a gzip-encoded JSON body under the cap WHEN fetched THEN the decoded bytes."""

    def handler(request: httpx.Request) -> httpx.Response:
        return streamed(200, gzip.compress(b'[{"a": 1}]'), {"content-encoding": "gzip"})

    got = fetch_bytes("https://binaric.tech/i.json", client=mock_client(handler), guard=public_guard(), max_bytes=100)
    assert got.content == b'[{"a": 1}]'


def test_unknown_encoding_is_refused() -> None:
    """GIVEN a body in an encoding we cannot bound WHEN fetched THEN a FetchError."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-encoding": "br"}, content=b"??")

    with pytest.raises(FetchError, match="encoding"):
        fetch_bytes("https://binaric.tech/i.json", client=mock_client(handler), guard=public_guard(), max_bytes=100)


def test_connect_failure_is_a_fetch_error() -> None:
    """GIVEN a transport that cannot connect WHEN fetched THEN a FetchError, not an httpx exception."""

    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with pytest.raises(FetchError, match="could not be reached"):
        fetch_bytes("https://binaric.tech/i.json", client=mock_client(handler), guard=public_guard(), max_bytes=100)


def test_loopback_slow_server_hits_the_timeout() -> None:
    """GIVEN a real loopback server that answers after 3 s WHEN fetched with a 0.5 s budget THEN it times out fast."""
    with loopback_server({"/i.json": Route(body=b"[]", delay=3.0)}) as srv:
        guard = UrlGuard(frozenset({srv.host_port}))
        started = time.monotonic()
        with pytest.raises(FetchError, match=r"in time|timed out"):
            fetch_bytes(f"{srv.base}/i.json", client=new_client(), guard=guard, max_bytes=100, timeout=0.5)
        assert time.monotonic() - started < 2.0


def test_loopback_slow_drip_hits_the_total_deadline() -> None:
    """GIVEN a server dripping one byte every 50 ms WHEN fetched with a 0.6 s total THEN it stops near the deadline."""
    with loopback_server({"/i.json": Route(body=b"x" * 200, drip=0.05)}) as srv:
        guard = UrlGuard(frozenset({srv.host_port}))
        started = time.monotonic()
        with pytest.raises(FetchError, match="timed out"):
            fetch_bytes(
                f"{srv.base}/i.json", client=new_client(), guard=guard, max_bytes=1000, timeout=0.6, read_timeout=0.3
            )
        assert time.monotonic() - started < 2.0


def test_loopback_oversized_body_without_length_is_cut() -> None:
    """GIVEN a real server streaming 2 MB with no Content-Length WHEN fetched with a 64 KiB cap THEN refused."""
    with loopback_server(
        {"/i.json": Route(body=b"x" * 2_000_000, send_length=False, headers={"Connection": "close"})}
    ) as srv:
        guard = UrlGuard(frozenset({srv.host_port}))
        with pytest.raises(FetchError, match="larger than"):
            fetch_bytes(f"{srv.base}/i.json", client=new_client(), guard=guard, max_bytes=65536)


def test_loopback_refused_without_allow_list() -> None:
    """GIVEN the loopback server but no allow-list entry WHEN fetched THEN the guard refuses it."""
    with loopback_server({"/i.json": Route(body=b"[]")}) as srv:
        with pytest.raises(UnsafeUrlError):
            fetch_bytes(f"{srv.base}/i.json", client=new_client(), guard=UrlGuard(), max_bytes=100)
        assert srv.hits == []
