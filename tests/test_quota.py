"""Per-user daily quota: one conditional UpdateItem per call (CDX-06 / WEB-05), on moto."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError, EndpointConnectionError

from luma_shared.errors import ConfigError, QuotaExceeded, QuotaUnavailable
from luma_shared.quota import QuotaStore, next_reset, user_key

NOW = datetime(2026, 11, 29, 19, 0, tzinfo=UTC)


class CountingClient:
    """Wraps a real (moto) client and counts the calls made through it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[str] = []

    def update_item(self, **kwargs: Any) -> Any:
        self.calls.append("update_item")
        return self.inner.update_item(**kwargs)


def test_counts_up_to_the_limit_then_refuses(quota_table: str) -> None:
    """GIVEN a limit of 3 WHEN a user searches 4 times THEN counts 1..3, then QuotaExceeded with the reset time."""
    store = QuotaStore(quota_table)
    assert [store.consume("codex_search", "u1", 3, NOW) for _ in range(3)] == [1, 2, 3]
    with pytest.raises(QuotaExceeded) as info:
        store.consume("codex_search", "u1", 3, NOW)
    assert info.value.resets_at == "2026-11-30T00:00:00Z"
    assert "2026-11-30T00:00:00Z" in info.value.to_payload()["error"]


def test_one_update_item_per_call(quota_table: str) -> None:
    """GIVEN a metered tool WHEN consumed twice THEN exactly two UpdateItem calls and nothing else."""
    client = CountingClient(boto3.client("dynamodb"))
    store = QuotaStore(quota_table, client_factory=lambda: client)
    store.consume("codex_search", "u1", 5, NOW)
    store.consume("codex_search", "u1", 5, NOW)
    assert client.calls == ["update_item", "update_item"]


def test_users_tools_and_days_are_separate(quota_table: str) -> None:
    """GIVEN one user at the limit WHEN another user, another tool or the next UTC day asks THEN allowed."""
    store = QuotaStore(quota_table)
    store.consume("codex_search", "u1", 1, NOW)
    assert store.consume("codex_search", "u2", 1, NOW) == 1
    assert store.consume("web_search", "u1", 1, NOW) == 1
    assert store.consume("codex_search", "u1", 1, datetime(2026, 11, 30, 0, 0, 1, tzinfo=UTC)) == 1


def test_item_has_ttl_and_no_raw_user_id(quota_table: str) -> None:
    """GIVEN a consumed unit WHEN the table is read THEN the item expires after its day and holds only a hash."""
    QuotaStore(quota_table).consume("codex_search", "123456789012345678", 5, NOW)
    items = boto3.client("dynamodb").scan(TableName=quota_table)["Items"]
    assert len(items) == 1
    item = items[0]
    assert "123456789012345678" not in str(item)
    assert item["pk"]["S"] == f"codex_search#{user_key('123456789012345678')}#2026-11-29"
    assert int(item["expires_at"]["N"]) == int(datetime(2026, 12, 1, tzinfo=UTC).timestamp())


def test_zero_limit_is_unmetered_without_a_table_call() -> None:
    """GIVEN a limit of 0 WHEN consumed THEN no client is even created."""

    def explode() -> Any:
        raise AssertionError("the table must not be touched")

    assert QuotaStore("t", client_factory=explode).consume("codex_search", "u1", 0, NOW) == 0


def test_missing_table_is_reported_not_raised(quota_table: str) -> None:
    """GIVEN a table name that does not exist WHEN consumed THEN QuotaUnavailable (a tool error)."""
    with pytest.raises(QuotaUnavailable):
        QuotaStore("no-such-table").consume("codex_search", "u1", 5, NOW)


def test_unset_table_with_a_limit_is_a_config_error() -> None:
    """GIVEN QUOTA_TABLE unset and a positive limit WHEN consumed THEN a ConfigError naming QUOTA_TABLE."""
    with pytest.raises(ConfigError, match="QUOTA_TABLE"):
        QuotaStore("").consume("codex_search", "u1", 5, NOW)


@pytest.mark.parametrize(
    "failure",
    [
        ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}}, "UpdateItem"),
        ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "x"}}, "UpdateItem"),
        EndpointConnectionError(endpoint_url="https://dynamodb.us-east-1.amazonaws.com"),
    ],
)
def test_dynamodb_failures_become_quota_unavailable(failure: Exception) -> None:
    """GIVEN DynamoDB throttling or unreachable WHEN consumed THEN QuotaUnavailable, the raw error not shown."""

    class Failing:
        def update_item(self, **_: Any) -> Any:
            raise failure

    with pytest.raises(QuotaUnavailable) as info:
        QuotaStore("t", client_factory=Failing).consume("codex_search", "u1", 5, NOW)
    assert "slow down" not in info.value.message and "amazonaws" not in info.value.message


def test_next_reset_is_next_utc_midnight() -> None:
    """GIVEN a time late in a UTC day WHEN asked THEN the following midnight UTC."""
    assert next_reset(datetime(2026, 12, 31, 23, 59, tzinfo=UTC)) == datetime(2027, 1, 1, tzinfo=UTC)
