"""Every fixture in events/ runs through its handler in-process, as `sam local invoke -e` would send it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from codex_tool import handler as codex_handler
from tests.conftest import DEMO_INDEX, EVENTS
from tests.loopback import Route, loopback_server

FIXTURES = sorted(EVENTS.glob("*.json"))


@pytest.fixture
def codex_env(monkeypatch: pytest.MonkeyPatch, quota_table: str, fresh_handlers: None) -> Iterator[None]:
    """GIVEN the codex function configured against a loopback demo site and a moto table."""
    with loopback_server({"/search-index.json": Route(body=DEMO_INDEX.read_bytes())}) as srv:
        monkeypatch.setenv("ENABLE_CODEX", "true")
        monkeypatch.setenv("CODEX_INDEX_URL", f"{srv.base}/search-index.json")
        monkeypatch.setenv("GUARD_ALLOW_HOSTS", srv.host_port)
        yield


def test_there_is_a_fixture_for_every_way_in() -> None:
    """GIVEN events/ WHEN listed THEN direct invoke, URL search, URL tools and malformed exist for codex."""
    names = {p.name for p in FIXTURES}
    assert {
        "codex-direct-invoke.json",
        "codex-url-search.json",
        "codex-url-tools.json",
        "codex-url-malformed.json",
    } <= names


def expectation(path: Path, result: dict[str, Any]) -> None:
    """What each kind of fixture must produce."""
    if "statusCode" not in result:  # direct invocation
        assert result["count"] >= 1 and result["results"][0]["url"].startswith("http")
        return
    status, body = result["statusCode"], json.loads(result["body"])
    if path.name.endswith("-malformed.json"):
        assert status == 400 and "error" in body
    elif path.name.endswith("-tools.json"):
        assert status == 200 and body["tools"][0]["function"]["name"] == "codex_search"
    else:
        assert status == 200 and body["results"], body


@pytest.mark.parametrize("path", [p for p in FIXTURES if p.name.startswith("codex-")], ids=lambda p: p.name)
def test_codex_event_fixture(path: Path, codex_env: None, lambda_context: Any) -> None:
    """GIVEN a codex event fixture WHEN handled in-process THEN the outcome its name promises, no 5xx."""
    result = codex_handler.lambda_handler(json.loads(path.read_text()), lambda_context)
    expectation(path, result)
