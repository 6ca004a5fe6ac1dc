"""WebSettings: names and defaults are a contract; the Exa key never shows in a repr or an error."""

from __future__ import annotations

import pickle

import pytest

from luma_shared.errors import ConfigError
from web_tool.settings import ApiKey, WebSettings

KEY = "exa-test-key-SHOULD-NEVER-APPEAR"


def test_defaults() -> None:
    """GIVEN an empty environment WHEN read THEN off, no key, 400-char snippets, 30 a day, api.exa.ai."""
    settings = WebSettings.from_env({})
    assert settings.enabled is False
    assert settings.key_parameter == "" and not settings.env_key and not settings.has_key_source
    assert settings.snippet_chars == 400 and settings.daily_per_user == 30
    assert settings.base_url == "https://api.exa.ai"


def test_every_variable_is_read() -> None:
    """GIVEN every variable set WHEN read THEN each value lands in its field."""
    settings = WebSettings.from_env(
        {
            "ENABLE_WEB_SEARCH": "true",
            "EXA_API_KEY_PARAMETER": "/luma/exa-api-key",
            "EXA_API_KEY": f"  {KEY}  ",
            "WEB_SNIPPET_CHARS": "2000",
            "WEB_DAILY_PER_USER": "0",
            "EXA_BASE_URL": "https://exa.example.net/v1/",
            "QUOTA_TABLE": "quota",
        }
    )
    assert settings.enabled and settings.key_parameter == "/luma/exa-api-key"
    assert settings.env_key.reveal() == KEY and settings.has_key_source
    assert settings.snippet_chars == 2000 and settings.daily_per_user == 0
    assert settings.base_url == "https://exa.example.net/v1" and settings.common.quota_table == "quota"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("WEB_SNIPPET_CHARS", "0"),
        ("WEB_SNIPPET_CHARS", "2001"),
        ("WEB_SNIPPET_CHARS", "many"),
        ("WEB_DAILY_PER_USER", "-1"),
        ("ENABLE_WEB_SEARCH", "maybe"),
        ("EXA_BASE_URL", "ftp://api.exa.ai"),
        ("EXA_BASE_URL", "https://user:pass@api.exa.ai"),
        ("EXA_BASE_URL", "http://api.exa.ai"),
        ("EXA_BASE_URL", "https://api.exa.ai/?key=1"),
    ],
)
def test_bad_values_name_their_variable(name: str, value: str) -> None:
    """GIVEN an out-of-range or malformed value (or plain http to a remote host) WHEN read
    THEN ConfigError naming it."""
    with pytest.raises(ConfigError, match=name):
        WebSettings.from_env({name: value})


def test_plain_http_is_allowed_for_a_loopback_fake() -> None:
    """GIVEN EXA_BASE_URL on http://127.0.0.1 WHEN read THEN accepted (local testing only)."""
    assert WebSettings.from_env({"EXA_BASE_URL": "http://127.0.0.1:8765"}).base_url == "http://127.0.0.1:8765"


def test_key_is_never_in_repr_str_or_format() -> None:
    """GIVEN settings holding the key WHEN rendered every usual way THEN the key does not appear."""
    settings = WebSettings.from_env({"EXA_API_KEY": KEY, "ENABLE_WEB_SEARCH": "true"})
    renderings = [repr(settings), str(settings), repr(settings.env_key), str(settings.env_key), f"{settings.env_key}"]
    renderings.append(f"{settings.env_key!r:>40}")
    assert all(KEY not in text for text in renderings)
    assert "env_key" not in repr(settings)


def test_key_cannot_be_pickled() -> None:
    """GIVEN an ApiKey WHEN pickled THEN refused (no accidental serialization of the secret)."""
    with pytest.raises(TypeError):
        pickle.dumps(ApiKey(KEY))


@pytest.mark.parametrize("url", [f"https://{KEY}@api.exa.ai", f"https://api.exa.ai/search?apiKey={KEY}"])
def test_key_pasted_into_the_base_url_is_refused_without_echo(url: str) -> None:
    """GIVEN the key put into EXA_BASE_URL (as credentials or a query) WHEN read THEN ConfigError without the key."""
    with pytest.raises(ConfigError, match="EXA_BASE_URL") as caught:
        WebSettings.from_env({"EXA_BASE_URL": url})
    assert KEY not in str(caught.value)
