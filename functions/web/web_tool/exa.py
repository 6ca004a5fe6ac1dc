"""The Exa search client: one POST over a shared httpx client, bounded in time and size.

``ExaClient`` knows the wire format and nothing about users, quotas or output
shaping. The key comes from a ``KeyProvider`` (the env key, or an SSM SecureString
read through Powertools Parameters) and travels only in the ``x-api-key`` header.

Bounds: connect and read timeouts per attempt, one overall deadline for the call;
at most one retry, only for 429, 5xx and connection failures, after a jittered
pause (or ``Retry-After`` seconds) that must leave time for the retry before the
deadline; the body is streamed and cut at ``max_bytes``. Every failure becomes an
``ExaError`` carrying the HTTP status and Exa's ``requestId`` when known.
"""

from __future__ import annotations

import functools
import json
import math
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

import httpx

from luma_shared.errors import FetchError, NotConfigured
from luma_shared.fetch import read_capped
from web_tool.settings import ApiKey

USER_AGENT = "LumaWebSearch/1.0 (+https://binaric.tech)"
MAX_RESPONSE_BYTES = 2 * 1024 * 1024
#: How much of an error body is read looking for Exa's requestId; the rest is not needed.
MAX_ERROR_BODY_BYTES = 16 * 1024
MAX_ATTEMPTS = 2
#: How long Powertools keeps the SSM key before reading it again (rotation takes effect within this).
KEY_MAX_AGE_S = 300
_KEY_SHAPE = re.compile(r"[!-~]{1,512}")  # printable ASCII, no spaces: safe in a header, no echo from h11
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,100}")
_TAG = re.compile(r"[A-Za-z0-9_]{1,60}")
_NOT_JSON = object()


class Log(Protocol):
    """The part of a Powertools (or stdlib) logger this module uses."""

    def info(self, msg: str, *, extra: Mapping[str, object]) -> None:
        """Log at INFO with structured fields."""

    def warning(self, msg: str, *, extra: Mapping[str, object]) -> None:
        """Log at WARNING with structured fields."""


class ExaError(FetchError):
    """Exa could not answer; carries what an operator needs to trace it (never the key)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        request_id: str | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        tag: str | None = None,
    ) -> None:
        super().__init__(f"web search failed: {message}", status=status)
        self.request_id = request_id
        self.retryable = retryable
        self.retry_after = retry_after
        self.tag = tag

    def to_payload(self) -> dict[str, object]:
        """The error plus the HTTP status and Exa's requestId when known."""
        payload = super().to_payload()
        if self.status is not None:
            payload["status"] = self.status
        if self.request_id is not None:
            payload["request_id"] = self.request_id
        return payload


# --- the key -------------------------------------------------------------------------------------

ParameterFetch = Callable[[str], object]


_SSM_CONNECT_S, _SSM_READ_S, _SSM_ATTEMPTS = 1, 2, 2
#: The longest a key read from SSM can take; the Lambda timeout allows for it.
SSM_WORST_CASE_S = _SSM_ATTEMPTS * (_SSM_CONNECT_S + _SSM_READ_S)


@functools.cache
def _ssm_provider() -> Any:
    """One Powertools SSM provider per container, with timeouts that fit inside the Lambda's."""
    from aws_lambda_powertools.utilities import parameters  # deferred: an env key never pays for boto3
    from botocore.config import Config

    return parameters.SSMProvider(
        boto_config=Config(
            connect_timeout=_SSM_CONNECT_S,
            read_timeout=_SSM_READ_S,
            retries={"max_attempts": _SSM_ATTEMPTS, "mode": "standard"},
        )
    )


def ssm_parameter(name: str) -> object:
    """Read an SSM SecureString through Powertools Parameters (cached for ``KEY_MAX_AGE_S``)."""
    from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError
    from botocore.exceptions import BotoCoreError

    try:
        return _ssm_provider().get(name, decrypt=True, max_age=KEY_MAX_AGE_S)
    except (GetParameterError, BotoCoreError) as e:
        # Neither the parameter's value nor the provider's text goes into our message.
        raise NotConfigured("web search is not configured: the Exa API key parameter could not be read") from e


class KeyProvider:
    """The Exa key: from the SSM parameter when one is named, else from the environment."""

    def __init__(self, env_key: ApiKey, parameter: str = "", fetch: ParameterFetch = ssm_parameter) -> None:
        self._env_key = env_key
        self._parameter = parameter
        self._fetch = fetch

    def __call__(self) -> ApiKey:
        """The key, or ``NotConfigured`` (its message never holds the key or the parameter value)."""
        if self._parameter:
            value = self._fetch(self._parameter)
            key = ApiKey(value.strip() if isinstance(value, str) else "")
        else:
            key = self._env_key
        if not key:
            raise NotConfigured("web search is not configured: no Exa API key is available")
        if not _KEY_SHAPE.fullmatch(key.reveal()):
            raise NotConfigured("web search is not configured: the Exa API key is malformed")
        return key


# --- the request ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExaQuery:
    """One search as Exa is asked for it."""

    query: str
    num_results: int
    highlight_chars: int
    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    start_published_date: date | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``POST /search`` body: highlights only, never full text (it doubles the bill)."""
        body: dict[str, Any] = {
            "query": self.query,
            "type": "auto",
            "numResults": self.num_results,
            "contents": {"highlights": {"maxCharacters": self.highlight_chars}},
        }
        if self.include_domains:
            body["includeDomains"] = list(self.include_domains)
        if self.exclude_domains:
            body["excludeDomains"] = list(self.exclude_domains)
        if self.start_published_date is not None:
            body["startPublishedDate"] = f"{self.start_published_date.isoformat()}T00:00:00.000Z"
        return body


@dataclass(frozen=True, slots=True)
class ExaAnswer:
    """Exa's results (each a JSON object, unreduced) and its request id."""

    results: list[dict[str, Any]]
    request_id: str | None
    attempts: int = 1


@dataclass(frozen=True, slots=True)
class ExaTimeouts:
    """Time bounds of one Exa call, inside the Lambda timeout with the quota and key reads (injectable for tests)."""

    connect: float = 2.0
    read: float = 6.0
    total: float = 8.0
    #: A retry is only worth it with at least this much of the deadline left after the pause.
    min_retry_budget: float = 1.0


def new_http_client(transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """The container's client for Exa: pooled keep-alive, no env proxies, no redirects."""
    return httpx.Client(
        transport=transport,
        trust_env=False,
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT},
        limits=httpx.Limits(max_connections=4, max_keepalive_connections=2, keepalive_expiry=30.0),
    )


def _jitter() -> float:
    return secrets.SystemRandom().uniform(0.1, 0.5)


@dataclass(slots=True)
class ExaClient:
    """``POST {base_url}/search`` with bounded time, size and retries."""

    base_url: str
    client: httpx.Client
    logger: Log
    timeouts: ExaTimeouts = field(default_factory=ExaTimeouts)
    max_bytes: int = MAX_RESPONSE_BYTES
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    jitter: Callable[[], float] = _jitter

    @property
    def search_url(self) -> str:
        """The endpoint (the key is never part of it)."""
        return f"{self.base_url.rstrip('/')}/search"

    def search(self, query: ExaQuery, key: ApiKey) -> ExaAnswer:
        """Run one search with ``key`` (sent only as ``x-api-key``); every I/O failure is an ``ExaError``."""
        payload = json.dumps(query.to_json(), ensure_ascii=False).encode("utf-8")
        started = self.clock()
        deadline = started + self.timeouts.total
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                answer = self._attempt(key, payload, deadline)
            except ExaError as e:
                wait = self._retry_wait(e, deadline) if attempt < MAX_ATTEMPTS else None
                self.logger.warning(
                    "exa search failed",
                    extra={
                        "status": e.status,
                        "exa_request_id": e.request_id,
                        "exa_tag": e.tag,
                        "reason": e.message,
                        "cause": type(e.__cause__).__name__ if e.__cause__ else None,
                        "attempt": attempt,
                        "retry_in_s": None if wait is None else round(wait, 3),
                    },
                )
                if wait is None:
                    raise
                self.sleep(wait)
                continue
            self.logger.info(
                "exa search answered",
                extra={
                    "results": len(answer.results),
                    "exa_request_id": answer.request_id,
                    "attempt": attempt,
                    "ms": round((self.clock() - started) * 1000),
                },
            )
            return ExaAnswer(answer.results, answer.request_id, attempt)
        raise AssertionError("unreachable: the last attempt either returns or raises")  # pragma: no cover

    def _retry_wait(self, error: ExaError, deadline: float) -> float | None:
        """The pause before the one retry, or None when a retry is pointless or would pass the deadline."""
        if not error.retryable:
            return None
        wait = self.jitter() if error.retry_after is None else error.retry_after + self.jitter() / 5
        if self.clock() + wait + self.timeouts.min_retry_budget > deadline:
            return None
        return wait

    def _attempt(self, key: ApiKey, payload: bytes, deadline: float) -> ExaAnswer:
        remaining = deadline - self.clock()
        if remaining <= 0:
            raise ExaError("Exa did not answer in time")
        request = self.client.build_request(
            "POST",
            self.search_url,
            content=payload,
            headers={
                "x-api-key": key.reveal(),
                "Content-Type": "application/json",
                "Accept": "application/json",
                # The shared bounded read decodes gzip/deflate within the cap.
                "Accept-Encoding": "gzip, deflate, identity",
            },
            timeout=httpx.Timeout(
                min(self.timeouts.read, remaining),
                connect=min(self.timeouts.connect, remaining),
                pool=min(self.timeouts.connect, remaining),
            ),
        )
        try:
            response = self.client.send(request, stream=True)
        except (httpx.ConnectError, httpx.ConnectTimeout) as e:
            raise ExaError("Exa could not be reached; try again later", retryable=True) from e
        except httpx.TimeoutException as e:
            raise ExaError("Exa did not answer in time; try again later") from e
        except httpx.HTTPError as e:
            raise ExaError("the connection to Exa failed; try again later") from e
        try:
            return self._answer(response, deadline)
        finally:
            response.close()

    def _answer(self, response: httpx.Response, deadline: float) -> ExaAnswer:
        status = response.status_code
        header_id = _clean(response.headers.get("x-request-id"), _REQUEST_ID)
        if not 200 <= status < 300:
            try:
                document = _loads(_read_capped(response, MAX_ERROR_BODY_BYTES, deadline, self.clock))
            except ExaError:
                document = _NOT_JSON  # the status already says what went wrong
            fields = document if isinstance(document, dict) else {}
            raise ExaError(
                _status_message(status),
                status=status,
                request_id=_clean(fields.get("requestId"), _REQUEST_ID) or header_id,
                retryable=status == 429 or status >= 500,
                retry_after=_retry_after(response.headers.get("retry-after")),
                tag=_clean(fields.get("tag"), _TAG),
            )
        try:
            raw = _read_capped(response, self.max_bytes, deadline, self.clock)
        except ExaError as e:
            e.status, e.request_id = status, header_id
            raise
        document = _loads(raw)
        if document is _NOT_JSON:
            raise ExaError("Exa sent a response that is not JSON", status=status, request_id=header_id)
        body_id = _clean(document.get("requestId"), _REQUEST_ID) if isinstance(document, dict) else None
        results = document.get("results") if isinstance(document, dict) else None
        if not isinstance(results, list):
            raise ExaError("Exa sent a response of an unexpected shape", status=status, request_id=body_id or header_id)
        return ExaAnswer([r for r in results if isinstance(r, dict)], body_id or header_id)


def _read_capped(response: httpx.Response, max_bytes: int, deadline: float, clock: Callable[[], float]) -> bytes:
    """The shared bounded read (cap after decompression, deadline), its failures worded as Exa's."""
    try:
        return read_capped(response, max_bytes, deadline, clock)
    except ExaError:
        raise
    except FetchError as e:
        raise ExaError(f"reading Exa's response: {e.message}") from e


def _loads(raw: bytes) -> Any:
    """Decoded JSON, or ``_NOT_JSON`` when the bytes are not JSON."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return _NOT_JSON


def _clean(value: object, shape: re.Pattern[str]) -> str | None:
    """An upstream identifier, only if it has the expected harmless shape."""
    return value if isinstance(value, str) and shape.fullmatch(value) else None


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds (the HTTP-date form is ignored: a jittered pause is used instead)."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _status_message(status: int) -> str:
    if status in (401, 403):
        return f"Exa refused the API key (HTTP {status}); web search is misconfigured"
    if status == 402:
        return "Exa's credits are exhausted (HTTP 402); web search is unavailable for now"
    if status == 429:
        return "Exa is rate-limiting us (HTTP 429); try again in a minute"
    if status >= 500:
        return f"Exa had a server error (HTTP {status}); try again later"
    if 300 <= status < 400:
        return f"Exa answered with an unexpected redirect (HTTP {status})"
    return f"Exa rejected the search (HTTP {status})"
