"""The web_search request: num_results bounded (WEB-03), domains and dates validated, the tool definition."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from luma_shared.errors import RequestError
from web_tool.schema import DEFAULT_RESULTS, MAX_RESULTS, TOOL_DEFINITION, parse_request


def body(**fields: Any) -> dict[str, Any]:
    """A request body with the required fields and ``fields``."""
    return {"user_id": "42", "query": "tallest building", **fields}


@pytest.mark.parametrize(
    ("given", "expected"),
    [(1, 1), (7, 7), (10, 10), (11, MAX_RESULTS), (10**9, MAX_RESULTS), (0, 1), (-5, 1), (3.0, 3), (None, 5)],
)
def test_num_results_is_clamped(given: Any, expected: int) -> None:
    """GIVEN num_results out of range (or a whole float, or null) WHEN parsed THEN clamped to 1..10 (WEB-03)."""
    assert parse_request(body(num_results=given)).num_results == expected


def test_num_results_defaults_to_five() -> None:
    """GIVEN no num_results WHEN parsed THEN 5."""
    assert parse_request(body()).num_results == DEFAULT_RESULTS == 5


@pytest.mark.parametrize("given", ["5", "ten", 2.5, True, False, [3], {"n": 3}, float("nan"), float("inf")])
def test_non_integer_num_results_is_a_400(given: Any) -> None:
    """GIVEN num_results that is a string, fractional float, bool, list or NaN WHEN parsed THEN a clear RequestError."""
    with pytest.raises(RequestError, match="num_results must be a whole number") as caught:
        parse_request(body(num_results=given))
    assert caught.value.status == 400


def test_domains_are_normalized_and_deduplicated() -> None:
    """GIVEN domains in mixed case, with a trailing dot, repeated, one IDN WHEN parsed
    THEN lowercase, once each, punycode."""
    request = parse_request(body(include_domains=["NASA.gov", "nasa.gov.", "esa.int", "bücher.de"]))
    assert request.include_domains == ("nasa.gov", "esa.int", "xn--bcher-kva.de")


@pytest.mark.parametrize(
    "bad",
    [
        "https://nasa.gov",
        "nasa.gov/path",
        "nasa.gov:443",
        "user@nasa.gov",
        "localhost",
        "nasa",
        "-bad-.com",
        "a..b.com",
        "nasa.gov?q=1",
        "*.nasa.gov",
        "192.168.0.1",
        "x" * 64 + ".com",
        "",
        "   ",
        7,
        None,
    ],
)
def test_malformed_domains_are_a_400(bad: Any) -> None:
    """GIVEN a domain with a scheme, path, port, credentials, no TLD, an IP or not a string WHEN parsed
    THEN RequestError."""
    with pytest.raises(RequestError, match="exclude_domains"):
        parse_request(body(exclude_domains=[bad]))


@pytest.mark.parametrize("bad", ["nasa.gov", {"d": "nasa.gov"}, 3])
def test_domains_must_be_a_list(bad: Any) -> None:
    """GIVEN include_domains that is not a list WHEN parsed THEN RequestError."""
    with pytest.raises(RequestError, match="must be a list"):
        parse_request(body(include_domains=bad))


def test_at_most_ten_domains() -> None:
    """GIVEN 11 domains WHEN parsed THEN RequestError; 10 are fine."""
    ten = [f"site{i}.com" for i in range(10)]
    assert len(parse_request(body(include_domains=ten)).include_domains) == 10
    with pytest.raises(RequestError, match="at most 10"):
        parse_request(body(include_domains=[*ten, "one-more.com"]))


def test_a_domain_cannot_be_both_included_and_excluded() -> None:
    """GIVEN the same domain in include and exclude WHEN parsed THEN RequestError naming it."""
    with pytest.raises(RequestError, match=r"nasa\.gov"):
        parse_request(body(include_domains=["nasa.gov"], exclude_domains=["NASA.gov"]))


def test_start_published_date_is_parsed() -> None:
    """GIVEN a real YYYY-MM-DD date WHEN parsed THEN a date."""
    assert parse_request(body(start_published_date="2024-02-29")).start_published_date == date(2024, 2, 29)


@pytest.mark.parametrize("bad", ["2023-02-29", "2024-13-01", "2024-1-5", "yesterday", "2024-01-01T00:00:00Z", 20240101])
def test_bad_start_published_date_is_a_400(bad: Any) -> None:
    """GIVEN an impossible date, another format or a number WHEN parsed THEN RequestError."""
    with pytest.raises(RequestError, match="start_published_date"):
        parse_request(body(start_published_date=bad))


@pytest.mark.parametrize("bad", [None, [], "text", {"query": "x"}, {"user_id": "1"}])
def test_base_fields_are_checked_by_the_shared_parser(bad: Any) -> None:
    """GIVEN a body that is not an object, or lacks user_id or query WHEN parsed THEN RequestError."""
    with pytest.raises(RequestError):
        parse_request(bad)


def test_tool_definition_is_an_openai_function_tool() -> None:
    """GIVEN the tool definition WHEN read THEN web_search with query required and the optional filters bounded."""
    function = TOOL_DEFINITION["function"]
    assert TOOL_DEFINITION["type"] == "function" and function["name"] == "web_search"
    params = function["parameters"]
    assert params["required"] == ["query"] and params["additionalProperties"] is False
    props = params["properties"]
    assert props["query"]["type"] == "string"
    assert props["num_results"] == {**props["num_results"], "type": "integer", "minimum": 1, "maximum": 10}
    for name in ("include_domains", "exclude_domains"):
        assert props[name]["type"] == "array" and props[name]["items"] == {"type": "string"}
        assert props[name]["maxItems"] == 10
    assert "YYYY-MM-DD" in props["start_published_date"]["description"]
    assert "fetch_url" in function["description"] and "untrusted" in function["description"]
