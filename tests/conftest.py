"""Fixtures every test shares: a clean environment, a Lambda context, a moto quota table.

Sockets are disabled by pytest-socket (see pyproject) except loopback, so nothing
here can reach the internet by accident.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EVENTS = ROOT / "events"
DEMO_INDEX = ROOT / "local" / "demo-index.json"

# Powertools must not try to reach X-Ray, and needs a metrics namespace; the
# variables are set before any handler module is imported.
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Luma")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")

_CONFIG_VARS = (
    "ENABLE_CODEX",
    "CODEX_INDEX_URL",
    "CODEX_MAX_BYTES",
    "CODEX_CACHE_TTL",
    "CODEX_SUMMARY_CHARS",
    "CODEX_DAILY_PER_USER",
    "QUOTA_TABLE",
    "GUARD_ALLOW_HOSTS",
    "ENABLE_WEB_SEARCH",
    "EXA_API_KEY",
    "EXA_API_KEY_PARAMETER",
    "WEB_SNIPPET_CHARS",
    "WEB_DAILY_PER_USER",
    "EXA_BASE_URL",
    "AWS_ENDPOINT_URL_DYNAMODB",
)
TABLE = "luma-quota-test"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """GIVEN no configuration leaks in from the machine running the tests."""
    for name in _CONFIG_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def lambda_context() -> Any:
    """A stand-in for the Lambda context object."""
    return SimpleNamespace(
        function_name="test-fn",
        function_version="$LATEST",
        memory_limit_in_mb=256,
        invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:test-fn",
        aws_request_id="req-1",
        get_remaining_time_in_millis=lambda: 10_000,
    )


@pytest.fixture
def fresh_handlers() -> Iterator[None]:
    """GIVEN both handlers as in a new container: no settings read, no index or answers cached, no clients."""
    from codex_tool import handler as codex_handler
    from web_tool import handler as web_handler

    def reset() -> None:
        for module in (codex_handler, web_handler):
            module.service.reset()
            module._quota_store.cache_clear()

    reset()
    yield
    reset()


def quota_table_spec() -> dict[str, Any]:
    """The quota table's key schema as deployed (read from template.yaml when available)."""
    try:
        from tests.template_model import quota_table_properties

        return quota_table_properties()
    except ImportError:  # pragma: no cover - only while the template helper is absent
        return {
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        }


@pytest.fixture
def quota_table(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """GIVEN a moto DynamoDB quota table shaped like template.yaml's, named in QUOTA_TABLE."""
    import boto3
    from moto import mock_aws

    with mock_aws():
        boto3.client("dynamodb").create_table(TableName=TABLE, **quota_table_spec())
        monkeypatch.setenv("QUOTA_TABLE", TABLE)
        yield TABLE


def function_url_event(method: str, path: str, body: str | None = None, *, base64: bool = False) -> dict[str, Any]:
    """A Lambda Function URL (payload 2.0) event as AWS sends it."""
    import base64 as b64

    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {"content-type": "application/json", "host": "abc.lambda-url.us-east-1.on.aws"},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "abc",
            "domainName": "abc.lambda-url.us-east-1.on.aws",
            "domainPrefix": "abc",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "203.0.113.9",
                "userAgent": "luma",
            },
            "requestId": "req-1",
            "routeKey": "$default",
            "stage": "$default",
            "time": "29/Nov/2026:19:00:00 +0000",
            "timeEpoch": 1795978800000,
        },
        "isBase64Encoded": base64,
    }
    if body is not None:
        event["body"] = b64.b64encode(body.encode()).decode() if base64 else body
    return event


def http_json(response: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Status and decoded JSON body of a Function URL response."""
    return response["statusCode"], json.loads(response["body"])
