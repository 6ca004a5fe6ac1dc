"""The codex Lambda handler end to end: both ways in, the tools list (CDX-01), bad input, hostile config.

The index comes from a real loopback server through the real guard and bounded fetch;
DynamoDB is moto.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from codex_tool import handler
from tests.conftest import DEMO_INDEX, function_url_event, http_json
from tests.loopback import Loopback, Route, loopback_server


@pytest.fixture
def site() -> Iterator[Loopback]:
    """GIVEN binaric.tech stood in for by a loopback server serving the demo index."""
    with loopback_server(
        {"/search-index.json": Route(body=DEMO_INDEX.read_bytes(), headers={"Content-Type": "application/json"})}
    ) as srv:
        yield srv


@pytest.fixture
def codex(monkeypatch: pytest.MonkeyPatch, site: Loopback, quota_table: str, fresh_handlers: None) -> Any:
    """GIVEN the codex handler enabled, pointed at the loopback site, metered on moto, with a cold cache."""
    monkeypatch.setenv("ENABLE_CODEX", "true")
    monkeypatch.setenv("CODEX_INDEX_URL", f"{site.base}/search-index.json")
    monkeypatch.setenv("GUARD_ALLOW_HOSTS", site.host_port)
    return handler


def search_event(body: dict[str, Any] | str) -> dict[str, Any]:
    """A Function URL POST /search event."""
    return function_url_event("POST", "/search", body if isinstance(body, str) else json.dumps(body))


def test_direct_invocation_returns_ranked_results(codex: Any, lambda_context: Any) -> None:
    """GIVEN a direct invocation WHEN handled THEN the tool JSON with ranked results from the demo index."""
    result = codex.lambda_handler({"user_id": "1", "query": "machine spirit"}, lambda_context)
    assert result["count"] >= 1 and result["lang"] == "en"
    assert all(r["url"].startswith("http://127.0.0.1") for r in result["results"])


def test_function_url_search_and_cache(codex: Any, site: Loopback, lambda_context: Any) -> None:
    """GIVEN two Function URL searches WHEN handled THEN 200 with results and the index fetched once."""
    for _ in range(2):
        status, body = http_json(
            codex.lambda_handler(search_event({"user_id": "1", "query": "Omnissiah", "lang": "de"}), lambda_context)
        )
        assert status == 200 and body["results"]
    assert site.hits.count("/search-index.json") == 1


def test_base64_body_is_decoded(codex: Any, lambda_context: Any) -> None:
    """GIVEN a base64-encoded POST body WHEN handled THEN decoded and searched."""
    event = function_url_event("POST", "/search", json.dumps({"user_id": "1", "query": "omnissiah"}), base64=True)
    status, body = http_json(codex.lambda_handler(event, lambda_context))
    assert status == 200 and "results" in body


def test_tools_listed_only_when_enabled(codex: Any, monkeypatch: pytest.MonkeyPatch, lambda_context: Any) -> None:
    """GIVEN ENABLE_CODEX true, then false WHEN GET /tools THEN codex_search, then an empty list (CDX-01)."""
    status, body = http_json(codex.lambda_handler(function_url_event("GET", "/tools"), lambda_context))
    tool = body["tools"][0]
    assert status == 200 and tool["type"] == "function" and tool["function"]["name"] == "codex_search"
    params = tool["function"]["parameters"]
    assert params["required"] == ["query"] and params["properties"]["lang"]["enum"] == ["en", "de", "eo", "no", "uk"]
    assert "never invent" in tool["function"]["description"] and "binaric.tech" in tool["function"]["description"]
    monkeypatch.setenv("ENABLE_CODEX", "false")
    codex.service.reset()
    assert http_json(codex.lambda_handler(function_url_event("GET", "/tools"), lambda_context))[1] == {"tools": []}


@pytest.mark.parametrize(
    ("body", "status", "fragment"),
    [
        ('{"user_id": "1", "query": ', 400, "not valid JSON"),
        ("[" * 15_000, 400, "not valid JSON"),
        ('"just a string"', 400, "JSON object"),
        ({"user_id": "1", "query": ""}, 400, "query"),
        ({"user_id": "1", "query": "x" * 10_240}, 400, "too long"),
        ({"query": "omnissiah"}, 400, "user_id"),
        ("x" * 40_000, 413, "bytes"),
    ],
)
def test_bad_input_gets_a_clear_4xx(codex: Any, lambda_context: Any, body: Any, status: int, fragment: str) -> None:
    """GIVEN invalid JSON, an empty or 10 kB query, or no user_id WHEN posted THEN 4xx with {error}."""
    got_status, got = http_json(codex.lambda_handler(search_event(body), lambda_context))
    assert got_status == status and fragment in got["error"]


def test_unknown_lang_falls_back(codex: Any, lambda_context: Any) -> None:
    """GIVEN lang 'tlh' WHEN searched THEN 200, English, and a note saying so."""
    status, body = http_json(
        codex.lambda_handler(search_event({"user_id": "1", "query": "omnissiah", "lang": "tlh"}), lambda_context)
    )
    assert status == 200 and body["lang"] == "en" and "unknown lang" in body["lang_note"]


def test_unknown_route_is_404_json(codex: Any, lambda_context: Any) -> None:
    """GIVEN a path the function does not serve WHEN requested THEN 404 with {error}."""
    status, body = http_json(codex.lambda_handler(function_url_event("GET", "/admin"), lambda_context))
    assert status == 404 and "error" in body


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/search-index.json",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/x",
        "http://2130706433/x",
    ],
)
def test_index_url_at_internal_address_is_refused(
    codex: Any, monkeypatch: pytest.MonkeyPatch, lambda_context: Any, url: str
) -> None:
    """GIVEN CODEX_INDEX_URL at loopback or the metadata address WHEN searched THEN 200 {error}, no crash."""
    monkeypatch.setenv("CODEX_INDEX_URL", url)
    status, body = http_json(codex.lambda_handler(search_event({"user_id": "1", "query": "x"}), lambda_context))
    assert status == 200 and "refused URL" in body["error"] and body["code"] == "upstream"


def test_oversized_index_is_an_error(codex: Any, monkeypatch: pytest.MonkeyPatch, lambda_context: Any) -> None:
    """GIVEN CODEX_MAX_BYTES smaller than the index WHEN searched THEN 200 {error} about the limit."""
    monkeypatch.setenv("CODEX_MAX_BYTES", "1024")
    status, body = http_json(codex.lambda_handler(search_event({"user_id": "1", "query": "x"}), lambda_context))
    assert status == 200 and "limit" in body["error"]


def test_index_that_is_not_json_is_an_error(codex: Any, site: Loopback, lambda_context: Any) -> None:
    """GIVEN the site serving HTML instead of JSON WHEN searched THEN 200 {error}."""
    site.routes["/search-index.json"] = Route(body=b"<html>maintenance</html>")
    status, body = http_json(codex.lambda_handler(search_event({"user_id": "1", "query": "x"}), lambda_context))
    assert status == 200 and "not valid JSON" in body["error"]


def test_bad_config_is_a_clear_error(codex: Any, monkeypatch: pytest.MonkeyPatch, lambda_context: Any) -> None:
    """GIVEN CODEX_MAX_BYTES=abc WHEN searched THEN {error} naming the variable, no stack trace."""
    monkeypatch.setenv("CODEX_MAX_BYTES", "abc")
    status, body = http_json(codex.lambda_handler(search_event({"user_id": "1", "query": "x"}), lambda_context))
    assert status == 200 and "CODEX_MAX_BYTES" in body["error"] and "Traceback" not in body["error"]


def test_quota_refusal_through_the_handler(
    codex: Any, monkeypatch: pytest.MonkeyPatch, site: Loopback, lambda_context: Any
) -> None:
    """GIVEN a daily limit of 1 WHEN a user searches twice THEN the second is refused with a reset time."""
    monkeypatch.setenv("CODEX_DAILY_PER_USER", "1")
    codex.lambda_handler({"user_id": "7", "query": "omnissiah"}, lambda_context)
    refused = codex.lambda_handler({"user_id": "7", "query": "omnissiah"}, lambda_context)
    assert refused["code"] == "quota_exceeded" and refused["resets_at"].endswith("T00:00:00Z")


def test_dynamodb_missing_table_is_an_error_not_a_crash(
    codex: Any, monkeypatch: pytest.MonkeyPatch, lambda_context: Any
) -> None:
    """GIVEN QUOTA_TABLE naming a table that does not exist WHEN searched THEN {error} quota_unavailable."""
    monkeypatch.setenv("QUOTA_TABLE", "missing-table")
    result = codex.lambda_handler({"user_id": "7", "query": "omnissiah"}, lambda_context)
    assert result["code"] == "quota_unavailable"


def test_logs_hold_no_raw_user_id(codex: Any, capsys: pytest.CaptureFixture[str], lambda_context: Any) -> None:
    """GIVEN a search by a user WHEN logs are written THEN they carry the hashed user, never the raw id."""
    codex.lambda_handler({"user_id": "998877665544332211", "query": "xyzzy-nothing"}, lambda_context)
    codex.lambda_handler({"user_id": "998877665544332211", "query": ""}, lambda_context)
    out = capsys.readouterr()
    assert "998877665544332211" not in out.out + out.err
