"""Lambda entry point for codex_search: wiring only, the logic lives in ``service``."""

from __future__ import annotations

from functools import cache
from typing import Any

import httpx
from aws_lambda_powertools.utilities.typing import LambdaContext

from codex_tool.schema import TOOL_NAME, CodexRequest, parse_request
from codex_tool.service import CodexService, IndexCache
from codex_tool.settings import CodexSettings
from luma_shared.edge import ToolEdge
from luma_shared.fetch import fetch_bytes, new_client
from luma_shared.guard import UrlGuard
from luma_shared.observability import capture_handler, metric_counter, powertools, subsegment
from luma_shared.quota import QuotaStore

FETCH_TIMEOUT_S = 5.0
FETCH_READ_WAIT_S = 2.0
#: The longest one index download can take: the total deadline plus one last short read wait.
FETCH_WORST_CASE_S = FETCH_TIMEOUT_S + FETCH_READ_WAIT_S

logger, tracer, metrics = powertools("codex")


@cache
def _http_client() -> httpx.Client:
    return new_client()


@cache
def _quota_store(table: str) -> QuotaStore:
    return QuotaStore(table)


def _fetch(url: str, max_bytes: int) -> bytes:
    settings = service.settings
    with subsegment(tracer, "fetch_index"):
        fetched = fetch_bytes(
            url,
            client=_http_client(),
            guard=UrlGuard(settings.common.guard_allow_hosts),
            max_bytes=max_bytes,
            timeout=FETCH_TIMEOUT_S,
            read_timeout=FETCH_READ_WAIT_S,
        )
    logger.info("codex index fetched", extra={"bytes": len(fetched.content)})
    return fetched.content


service = CodexService(
    settings_loader=CodexSettings.from_env,
    cache=IndexCache(_fetch),
    quota=lambda settings: _quota_store(settings.common.quota_table),
    count=metric_counter(metrics),
)
edge: ToolEdge[CodexRequest] = ToolEdge(
    tool=TOOL_NAME,
    logger=logger,
    metrics=metrics,
    tools=service.tools,
    parse=parse_request,
    run=service.search,
)


@logger.inject_lambda_context(clear_state=True)
@capture_handler(tracer)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Serve a direct invocation or a Function URL request."""
    return edge.handle(event, context)
