"""Per-user daily quotas: the only module that knows DynamoDB.

One conditional ``UpdateItem`` per call both checks and spends: the counter for
(tool, user, UTC day) goes up by one only while it is below the limit, so
concurrent invocations can never overspend. Items carry a TTL and expire a day
after their day ends. User ids are stored and logged only as a salted hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from luma_shared.errors import ConfigError, QuotaExceeded, QuotaUnavailable

_UPDATE = "SET #exp = :exp ADD #n :one"
_CONDITION = "attribute_not_exists(#n) OR #n < :limit"
_KEEP_AFTER_DAY = timedelta(days=1)
_CONNECT_S, _READ_S, _ATTEMPTS = 1, 1, 2
#: The longest one ``consume`` can take (every attempt timing out); the Lambda timeout allows for it.
WORST_CASE_S = _ATTEMPTS * (_CONNECT_S + _READ_S)


def user_key(user_id: str) -> str:
    """A stable pseudonym for a user id: what the table and the logs hold instead of it."""
    return hashlib.sha256(b"luma-quota:" + user_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def next_reset(now: datetime) -> datetime:
    """The next UTC midnight after ``now``."""
    day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day + timedelta(days=1)


def _default_client() -> Any:
    import boto3  # deferred: a function with metering off never pays for boto3's import
    from botocore.config import Config

    return boto3.client(
        "dynamodb",
        config=Config(
            connect_timeout=_CONNECT_S,
            read_timeout=_READ_S,
            retries={"max_attempts": _ATTEMPTS, "mode": "standard"},
        ),
    )


class QuotaStore:
    """Daily counters in one DynamoDB table (partition key ``pk``, TTL attribute ``expires_at``)."""

    def __init__(self, table_name: str, client_factory: Callable[[], Any] = _default_client) -> None:
        self.table_name = table_name
        self._client_factory = client_factory
        self._client: Any = None

    @property
    def client(self) -> Any:
        """The DynamoDB client, created on first use and reused while the container is warm."""
        if self._client is None:
            self._client = self._client_factory()
        return self._client

    def consume(self, tool: str, user_id: str, limit: int, now: datetime | None = None) -> int:
        """Spend one unit of ``user_id``'s daily ``tool`` allowance; return today's count.

        A limit of 0 means unmetered and makes no table call at all.
        """
        if limit <= 0:
            return 0
        if not self.table_name:
            raise ConfigError("invalid configuration: QUOTA_TABLE is not set but a daily limit is")
        from botocore.exceptions import BotoCoreError, ClientError

        now = now or datetime.now(UTC)
        resets = next_reset(now)
        try:
            answer = self.client.update_item(
                TableName=self.table_name,
                Key={"pk": {"S": f"{tool}#{user_key(user_id)}#{now.astimezone(UTC):%Y-%m-%d}"}},
                UpdateExpression=_UPDATE,
                ConditionExpression=_CONDITION,
                ExpressionAttributeNames={"#n": "count", "#exp": "expires_at"},
                ExpressionAttributeValues={
                    ":one": {"N": "1"},
                    ":limit": {"N": str(limit)},
                    ":exp": {"N": str(int((resets + _KEEP_AFTER_DAY).timestamp()))},
                },
                ReturnValues="UPDATED_NEW",
            )
        except ClientError as e:
            if e.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                when = resets.strftime("%Y-%m-%dT%H:%M:%SZ")
                raise QuotaExceeded(
                    f"daily limit reached for {tool} ({limit} searches a day); it resets at {when}",
                    resets_at=when,
                ) from e
            raise QuotaUnavailable("the usage meter is unavailable right now; try again shortly") from e
        except BotoCoreError as e:
            raise QuotaUnavailable("the usage meter is unavailable right now; try again shortly") from e
        return int(answer["Attributes"]["count"]["N"])
