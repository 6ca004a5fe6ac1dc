"""Property tests: whatever JSON a caller sends, the edge answers 200 or 4xx with JSON, never a crash,
and nothing it returns can ping."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codex_tool.schema import parse_request as parse_codex
from codex_tool.service import CodexService, IndexCache
from codex_tool.settings import CodexSettings
from luma_shared.edge import ToolEdge
from luma_shared.errors import RequestError
from luma_shared.observability import powertools
from tests.conftest import DEMO_INDEX
from web_tool.schema import parse_request as parse_web

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
hostile_text = st.sampled_from(["@everyone", "<@123>", "\u202e", "\x00", "the", "машина", "a" * 600, "", " "])
fields = st.fixed_dictionaries(
    {},
    optional={
        "user_id": json_values | hostile_text | st.just("123456789012345678"),
        "query": json_values | hostile_text | st.just("machine spirit"),
        "lang": json_values | st.sampled_from(["de", "uk", "XX", ""]),
        "num_results": json_values | st.integers(-5, 50),
        "include_domains": json_values,
        "start_published_date": json_values | st.just("2024-02-30"),
    },
)
bodies = fields | json_values


class NoQuota:
    """Unmetered stand-in for the quota store."""

    def consume(self, tool: str, user_id: str, limit: int) -> int:
        return 0


def codex_edge() -> ToolEdge[Any]:
    """The codex edge over the demo index, no network, no table."""
    logger, _, metrics = powertools("codex-fuzz")
    service = CodexService(
        lambda: CodexSettings.from_env({"ENABLE_CODEX": "true", "CODEX_DAILY_PER_USER": "0"}),
        IndexCache(lambda url, max_bytes: DEMO_INDEX.read_bytes()),
        lambda _: NoQuota(),  # type: ignore[arg-type, return-value]  # duck-typed stand-in
    )
    return ToolEdge(
        tool="codex_search", logger=logger, metrics=metrics, tools=service.tools, parse=parse_codex, run=service.search
    )


EDGE = codex_edge()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bodies)
def test_codex_edge_never_crashes_or_pings(body: Any) -> None:
    """GIVEN any JSON body WHEN answered THEN 200 or 400 with a JSON object, errors coded, results inert."""
    status, payload = EDGE.answer(body)
    assert status in (200, 400)
    text = json.dumps(payload, ensure_ascii=False)
    assert "@everyone" not in text and "<@" not in text and "\u202e" not in text
    if "error" in payload:
        assert payload["code"] in ("bad_request", "config", "upstream", "internal") and payload["code"] != "internal"
    else:
        assert all(set(r) == {"title", "summary", "collection", "url"} for r in payload["results"])


@settings(max_examples=400, deadline=None)
@given(bodies)
def test_web_request_parsing_only_raises_request_errors(body: Any) -> None:
    """GIVEN any JSON body WHEN parsed as a web_search request THEN a request or a RequestError, nothing else."""
    try:
        request = parse_web(body)
    except RequestError:
        return
    assert 1 <= request.num_results <= 10
