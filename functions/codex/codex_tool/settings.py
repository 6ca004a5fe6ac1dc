"""The codex function's configuration, read from the environment and validated once."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from luma_shared.config import CommonSettings, env_bool, env_http_url, env_int

DEFAULT_INDEX_URL = "https://binaric.tech/search-index.json"


@dataclass(frozen=True, slots=True)
class CodexSettings:
    """Everything codex_search can be tuned with (see the README's config table)."""

    enabled: bool
    index_url: str
    max_bytes: int
    cache_ttl: int
    summary_chars: int
    daily_per_user: int
    common: CommonSettings

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CodexSettings:
        """Parse and validate; a bad value raises ``ConfigError`` naming its variable."""
        env = os.environ if env is None else env
        return cls(
            enabled=env_bool(env, "ENABLE_CODEX", False),
            index_url=env_http_url(env, "CODEX_INDEX_URL", DEFAULT_INDEX_URL),
            max_bytes=env_int(env, "CODEX_MAX_BYTES", 4 * 1024 * 1024, minimum=1, maximum=64 * 1024 * 1024),
            cache_ttl=env_int(env, "CODEX_CACHE_TTL", 3600, minimum=0, maximum=7 * 24 * 3600),
            summary_chars=env_int(env, "CODEX_SUMMARY_CHARS", 500, minimum=1, maximum=4000),
            daily_per_user=env_int(env, "CODEX_DAILY_PER_USER", 50, minimum=0),
            common=CommonSettings.from_env(env),
        )
