"""Bounded HTTP fetch: the one place that makes outbound GETs to untrusted URLs.

Every hop is vetted by the SSRF guard and connected to the vetted address (TLS
still verifies the real host name via SNI); redirects are followed by hand and
re-guarded, at most ``max_redirects`` of them. The body is streamed and cut at
``max_bytes`` whatever Content-Length says, gzip/deflate included (counted after
decompression, so a small bomb cannot grow past the cap); connect, read and
total-download deadlines are all enforced.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin

import httpx

from luma_shared.errors import FetchError
from luma_shared.guard import UrlGuard

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
USER_AGENT = "LumaCodexFetcher/1.0 (+https://binaric.tech)"


@dataclass(frozen=True, slots=True)
class Fetched:
    """A fetched body with the URL it finally came from."""

    url: str
    content: bytes


def new_client(transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """A client for bounded fetches: no env proxies, no auto-redirects, no pooled reuse across hosts."""
    return httpx.Client(
        transport=transport,
        trust_env=False,
        follow_redirects=False,
        # A pooled connection is keyed by address, not host name: never reuse one,
        # so a TLS session vetted for one name cannot serve another on the same IP.
        limits=httpx.Limits(max_keepalive_connections=0),
    )


class _Decoder:
    """Incremental gzip/deflate/identity decoder that never outputs more than it is allowed."""

    def __init__(self, encoding: str) -> None:
        encoding = encoding.strip().lower()
        if encoding in ("", "identity"):
            self._z = None
        elif encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj()
        else:
            raise FetchError(f"unsupported content encoding {encoding[:20]!r}")

    def decode(self, chunk: bytes, room: int) -> bytes:
        """Decode ``chunk``; returns at most ``room + 1`` bytes (enough to detect overflow)."""
        if self._z is None:
            return chunk
        try:
            out = self._z.decompress(chunk, room + 1)
        except zlib.error as e:
            raise FetchError("the response body is corrupt") from e
        return out


def fetch_bytes(
    url: str,
    *,
    client: httpx.Client,
    guard: UrlGuard,
    max_bytes: int,
    timeout: float = 10.0,
    connect_timeout: float = 3.0,
    read_timeout: float = 2.0,
    max_redirects: int = 3,
    accept: str = "application/json",
) -> Fetched:
    """GET ``url`` safely and return at most ``max_bytes`` of body, or raise a ``ToolError``."""
    deadline = time.monotonic() + timeout
    current = url
    for _hop in range(max_redirects + 1):
        vetted = guard.check(current)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise FetchError("the download timed out")
        request = client.build_request(
            "GET",
            vetted.connect_url,
            headers={
                "Host": vetted.host_header,
                "Accept": accept,
                "Accept-Encoding": "gzip, deflate, identity",
                "User-Agent": USER_AGENT,
            },
            # Each wait is short so a slow drip hits the total deadline soon after it passes.
            timeout=httpx.Timeout(min(read_timeout, remaining), connect=min(connect_timeout, remaining)),
            extensions={"sni_hostname": vetted.host} if vetted.scheme == "https" else None,
        )
        try:
            response = client.send(request, stream=True)
        except httpx.TimeoutException as e:
            raise FetchError("the upstream server did not answer in time") from e
        except httpx.HTTPError as e:
            raise FetchError("the upstream server could not be reached") from e
        try:
            if response.status_code in _REDIRECTS:
                location = response.headers.get("location")
                if not location:
                    raise FetchError("the upstream server sent a redirect without a location")
                current = urljoin(current, location)
                continue
            if not 200 <= response.status_code < 300:
                raise FetchError(
                    f"the upstream server answered HTTP {response.status_code}",
                    status=response.status_code,
                )
            content = read_capped(response, max_bytes, deadline)
            return Fetched(url=current, content=content)
        finally:
            response.close()
    raise FetchError(f"too many redirects (more than {max_redirects})")


def read_capped(
    response: httpx.Response, max_bytes: int, deadline: float, clock: Callable[[], float] = time.monotonic
) -> bytes:
    """Stream a response's raw body, decoding gzip/deflate as we go, and stop past the cap or the deadline.

    Raises ``FetchError`` when the body (decoded) is over ``max_bytes``, whatever Content-Length
    says, when ``clock()`` passes ``deadline``, or when the connection fails mid-body.
    """
    declared = response.headers.get("content-length", "")
    encoding = response.headers.get("content-encoding", "")
    if declared.isdigit() and not encoding and int(declared) > max_bytes:
        raise FetchError(f"the response is larger than the {max_bytes}-byte limit")
    decoder = _Decoder(encoding)
    body = bytearray()
    try:
        for chunk in response.iter_raw():
            if clock() > deadline:
                raise FetchError("the download timed out")
            body += decoder.decode(chunk, max_bytes - len(body))
            if len(body) > max_bytes:
                raise FetchError(f"the response is larger than the {max_bytes}-byte limit")
    except httpx.TimeoutException as e:
        raise FetchError("the download timed out") from e
    except httpx.HTTPError as e:
        raise FetchError("the download was interrupted") from e
    return bytes(body)
