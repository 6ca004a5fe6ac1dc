"""Typed config: bad values give a clear error naming the variable, never a stack trace."""

from __future__ import annotations

import pytest

from codex_tool.settings import CodexSettings
from luma_shared.config import CommonSettings
from luma_shared.errors import ConfigError


def test_defaults_match_the_contract() -> None:
    """GIVEN no variables WHEN read THEN the README's defaults."""
    s = CodexSettings.from_env({})
    assert (s.enabled, s.index_url, s.max_bytes, s.cache_ttl, s.summary_chars, s.daily_per_user) == (
        False,
        "https://binaric.tech/search-index.json",
        4194304,
        3600,
        500,
        50,
    )
    assert s.common.guard_allow_hosts == frozenset()


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CODEX_MAX_BYTES", "abc"),
        ("CODEX_MAX_BYTES", "0"),
        ("CODEX_CACHE_TTL", "-1"),
        ("CODEX_SUMMARY_CHARS", "1.5"),
        ("CODEX_DAILY_PER_USER", "-3"),
        ("ENABLE_CODEX", "maybe"),
        ("CODEX_INDEX_URL", "file:///etc/passwd"),
        ("CODEX_INDEX_URL", "https://u:p@binaric.tech/x"),
        ("GUARD_ALLOW_HOSTS", "localhost"),
        ("GUARD_ALLOW_HOSTS", "127.0.0.1:99999"),
    ],
)
def test_bad_values_name_the_variable(name: str, value: str) -> None:
    """GIVEN one bad variable WHEN read THEN ConfigError whose message names it."""
    with pytest.raises(ConfigError) as info:
        CodexSettings.from_env({name: value})
    assert name in info.value.message
    assert info.value.to_payload()["error"].startswith("invalid configuration")


def test_values_parse() -> None:
    """GIVEN valid values WHEN read THEN typed values."""
    s = CodexSettings.from_env(
        {
            "ENABLE_CODEX": "TRUE",
            "CODEX_MAX_BYTES": " 1024 ",
            "CODEX_DAILY_PER_USER": "0",
            "GUARD_ALLOW_HOSTS": "127.0.0.1:8123, LocalHost:80",
        }
    )
    assert (s.enabled, s.max_bytes, s.daily_per_user) == (True, 1024, 0)
    assert s.common.guard_allow_hosts == frozenset({"127.0.0.1:8123", "localhost:80"})


def test_common_settings_read_table() -> None:
    """GIVEN QUOTA_TABLE WHEN read THEN it is kept as given."""
    assert CommonSettings.from_env({"QUOTA_TABLE": "t1"}).quota_table == "t1"


def test_once_settings_keep_good_values_and_never_keep_errors() -> None:
    """GIVEN a loader WHEN read twice THEN parsed once; GIVEN a failing loader THEN it raises on every read."""
    from luma_shared.config import OnceSettings

    calls: list[int] = []
    once = OnceSettings(lambda: calls.append(1) or CodexSettings.from_env({}))
    assert once.get() is once.get() and len(calls) == 1
    once.reset()
    once.get()
    assert len(calls) == 2
    failing = OnceSettings(lambda: CodexSettings.from_env({"CODEX_MAX_BYTES": "x"}))
    for _ in range(2):
        with pytest.raises(ConfigError):
            failing.get()
