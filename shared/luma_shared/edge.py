"""The HTTP edge both handlers share: the two ways in, validation of the common
fields, and the single place where domain errors become responses.

Ways in:
- a direct invocation (``sam local invoke``, the Lambda Invoke API) whose event is
  the request body itself; the answer is the tool's JSON;
- a Lambda Function URL event (payload 2.0): ``POST /search`` with that body, and
  ``GET /tools`` for the OpenAI function-tool list.

Tool outcomes, errors included, are HTTP 200 with the JSON the model relays;
malformed requests are 4xx with ``{"error": ...}``; nothing is designed to be 5xx.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import LambdaFunctionUrlResolver, Response
from aws_lambda_powertools.utilities.typing import LambdaContext

from luma_shared.errors import (
    FetchError,
    LumaError,
    QuotaExceeded,
    RequestError,
    ToolError,
    UnsafeUrlError,
)
from luma_shared.observability import metric_counter
from luma_shared.quota import user_key

MAX_BODY_BYTES = 16 * 1024
MAX_QUERY_CHARS = 500
_USER_ID = re.compile(r"[A-Za-z0-9_.:@-]{1,128}")
_JSON_HEADERS = {"Cache-Control": "no-store"}


@dataclass(frozen=True, slots=True)
class BaseRequest:
    """The fields every tool call carries."""

    user_id: str
    query: str


def parse_base(body: Any) -> BaseRequest:
    """Validate ``user_id`` and ``query``; raise ``RequestError`` naming what is wrong."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    user_id = body.get("user_id")
    if isinstance(user_id, int) and not isinstance(user_id, bool):
        user_id = str(user_id)
    if not isinstance(user_id, str) or not user_id.strip():
        raise RequestError("user_id is required (the Discord user's id)")
    if not _USER_ID.fullmatch(user_id.strip()):
        raise RequestError("user_id must be 1-128 characters of letters, digits and _.:@-")
    query = body.get("query")
    if not isinstance(query, str) or not query.strip():
        raise RequestError("query is required and must be a non-empty string")
    query = query.strip()
    if len(query) > MAX_QUERY_CHARS:
        raise RequestError(f"query is too long ({len(query)} characters; at most {MAX_QUERY_CHARS})")
    return BaseRequest(user_id=user_id.strip(), query=query)


def _json_response(status: int, payload: dict[str, Any]) -> Response[str]:
    return Response(
        status_code=status,
        content_type="application/json",
        body=json.dumps(payload, ensure_ascii=False),
        headers=_JSON_HEADERS,
    )


def is_http_event(event: Any) -> bool:
    """True for a Function URL (payload 2.0) event, False for a direct invocation."""
    return isinstance(event, dict) and "requestContext" in event and "rawPath" in event


class ToolRequest(Protocol):
    """What every tool's parsed request carries: the common fields."""

    @property
    def base(self) -> BaseRequest:
        """The validated user_id and query."""
        ...


class ToolEdge[RequestT: ToolRequest]:
    """Wires one tool's pure pieces (tools list, request parser, search) to both ways in."""

    def __init__(
        self,
        *,
        tool: str,
        logger: Logger,
        metrics: Metrics,
        tools: Callable[[], list[dict[str, Any]]],
        parse: Callable[[Any], RequestT],
        run: Callable[[RequestT], dict[str, Any]],
    ) -> None:
        self.tool = tool
        self.logger = logger
        self._count = metric_counter(metrics)
        self._tools = tools
        self._parse = parse
        self._run = run
        self.app = self._resolver()

    def handle(self, event: Any, context: LambdaContext) -> dict[str, Any]:
        """Entry point: route an event from either way in."""
        if is_http_event(event):
            return self.app.resolve(event, context)
        return self.answer(event)[1]

    def answer(self, body: Any) -> tuple[int, dict[str, Any]]:
        """Run one tool call from a decoded body; every failure becomes (status, error payload)."""
        try:
            request = self._parse(body)
            self.logger.append_keys(user=user_key(request.base.user_id))
            result = self._run(request)
        except RequestError as e:
            self._count("BadRequests")
            return e.status, e.to_payload()
        except ToolError as e:
            self._count_failure(e)
            self.logger.info("tool refused", extra={"tool": self.tool, "code": e.code})
            return 200, e.to_payload()
        except Exception:
            # A bug, not a designed outcome: keep it out of the channel, keep it in the logs.
            self._count("UnhandledErrors")
            self.logger.exception("unhandled error", extra={"tool": self.tool})
            return 200, {"error": f"{self.tool} failed unexpectedly; try again later", "code": "internal"}
        self._count("Searches")
        return 200, result

    def _count_failure(self, error: LumaError) -> None:
        if isinstance(error, QuotaExceeded):
            self._count("QuotaRefusals")
        elif isinstance(error, (FetchError, UnsafeUrlError)):
            self._count("UpstreamErrors")

    def _resolver(self) -> LambdaFunctionUrlResolver:
        app = LambdaFunctionUrlResolver()

        @app.get("/tools")
        def tools() -> Response[str]:
            return _json_response(200, {"tools": self._tools()})

        @app.post("/search")
        def search() -> Response[str]:
            too_large = {"error": f"the request body is over {MAX_BODY_BYTES} bytes", "code": "too_large"}
            if len(app.current_event.body or "") > MAX_BODY_BYTES * 2:  # base64 grows 4/3; checked exactly below
                return _json_response(413, too_large)
            try:
                text = app.current_event.decoded_body or ""
                if len(text.encode("utf-8", "surrogatepass")) > MAX_BODY_BYTES:
                    return _json_response(413, too_large)
                body = json.loads(text)
            except (ValueError, RecursionError):  # bad base64, bad UTF-8, bad or absurdly nested JSON
                return _json_response(400, {"error": "the request body is not valid JSON", "code": "bad_request"})
            status, payload = self.answer(body)
            return _json_response(status, payload)

        @app.not_found
        def not_found(_: Exception) -> Response[str]:
            return _json_response(404, {"error": "no such route: use POST /search or GET /tools", "code": "not_found"})

        return app
