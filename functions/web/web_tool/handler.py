"""Lambda entry point for web_search: wiring only, the logic lives in ``service``."""

from __future__ import annotations

from functools import cache
from typing import Any

import httpx
from aws_lambda_powertools.utilities.typing import LambdaContext

from luma_shared.edge import ToolEdge
from luma_shared.observability import capture_handler, metric_counter, powertools
from luma_shared.quota import QuotaStore
from web_tool.exa import ExaClient, new_http_client
from web_tool.schema import TOOL_NAME, WebRequest, parse_request
from web_tool.service import WebService
from web_tool.settings import WebSettings

logger, tracer, metrics = powertools("web")


@cache
def _http_client() -> httpx.Client:
    """One pooled client per container: warm invocations reuse the TLS connection to Exa."""
    return new_http_client()


@cache
def _quota_store(table: str) -> QuotaStore:
    return QuotaStore(table)


def _exa(settings: WebSettings) -> ExaClient:
    return ExaClient(settings.base_url, _http_client(), logger)


service = WebService(
    settings_loader=WebSettings.from_env,
    exa=_exa,
    quota=lambda settings: _quota_store(settings.common.quota_table),
    logger=logger,
    count=metric_counter(metrics),
)
edge: ToolEdge[WebRequest] = ToolEdge(
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
