"""The README's first command: `make serve` runs local.serve. Here its stack runs in-process on free ports
and is called over real loopback HTTP, the way the bot calls a Function URL."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any
from unittest import mock

import httpx
import pytest

from local import serve
from tests.template_model import quota_table_properties


@pytest.fixture
def stack(fresh_handlers: None) -> Iterator[serve.LocalStack]:
    """GIVEN the local stack (demo site, moto DynamoDB, both functions) started on free loopback ports."""
    with mock.patch.dict(os.environ), serve.local_stack(codex_port=0, web_port=0) as running:
        os.environ.pop("EXA_API_KEY", None)
        yield running


def test_printed_curl_returns_ranked_results(stack: serve.LocalStack) -> None:
    """GIVEN the served codex WHEN the banner's curl request is sent THEN ranked demo inscriptions come back."""
    assert f"curl -s {stack.codex_url}/search" in serve.banner(stack)
    answer: dict[str, Any] = httpx.post(
        f"{stack.codex_url}/search", json={"user_id": "123456789012345678", "query": "machine spirit", "lang": "en"}
    ).json()
    assert answer["count"] >= 2 and answer["fallback"] is False
    assert answer["results"][0]["title"] == "The Machine Spirit"
    assert answer["results"][0]["url"].startswith(stack.index_url.rsplit("/", 1)[0])


def test_codex_is_metered_on_the_local_dynamodb(stack: serve.LocalStack) -> None:
    """GIVEN the local moto DynamoDB WHEN a user searches THEN a counter item appears in the quota table."""
    import boto3

    httpx.post(f"{stack.codex_url}/search", json={"user_id": "5", "query": "omnissiah"})
    items = boto3.client("dynamodb", endpoint_url=stack.dynamodb_url).scan(TableName=serve.TABLE)["Items"]
    assert [item["count"]["N"] for item in items] == ["1"]


def test_web_without_key_says_not_configured_and_codex_still_works(stack: serve.LocalStack) -> None:
    """GIVEN no EXA_API_KEY WHEN web_search is called THEN a clear not-configured error, and codex still answers."""
    web = httpx.post(f"{stack.web_url}/search", json={"user_id": "5", "query": "Mars"})
    assert web.status_code == 200 and web.json()["code"] == "not_configured"
    assert httpx.get(f"{stack.web_url}/tools").json() == {"tools": []}
    assert httpx.get(f"{stack.codex_url}/tools").json()["tools"][0]["function"]["name"] == "codex_search"


def test_malformed_request_is_a_400(stack: serve.LocalStack) -> None:
    """GIVEN invalid JSON WHEN posted to the local Function URL THEN 400 with {error}."""
    response = httpx.post(f"{stack.codex_url}/search", content=b"{bad")
    assert response.status_code == 400 and "error" in response.json()


def test_local_table_matches_the_template() -> None:
    """GIVEN template.yaml WHEN compared THEN the local table has the deployed key schema."""
    assert quota_table_properties() == serve.TABLE_SPEC
