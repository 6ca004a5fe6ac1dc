"""The web function's configuration, read from the environment and validated once.

The Exa key is a host secret. It lives in an ``ApiKey`` whose repr, str and
format never show it, kept out of the settings' repr as well; the only way to
the value is ``ApiKey.reveal()``, called where the request header is built.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from luma_shared.config import CommonSettings, env_bool, env_http_url, env_int, env_str
from luma_shared.errors import ConfigError

DEFAULT_EXA_BASE_URL = "https://api.exa.ai"
# Plain http is for a local fake Exa only: the key must never cross a network in clear text.
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})


class ApiKey:
    """A secret string that does not print itself."""

    __slots__ = ("_value",)
    _MASK: Final = "ApiKey('***')"

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The key itself: only for the request header."""
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return self._MASK

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return self._MASK

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ApiKey) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("an ApiKey cannot be pickled")


@dataclass(frozen=True, slots=True)
class WebSettings:
    """Everything web_search can be tuned with (see the README's config table)."""

    enabled: bool
    key_parameter: str
    snippet_chars: int
    daily_per_user: int
    base_url: str
    common: CommonSettings
    env_key: ApiKey = field(default_factory=lambda: ApiKey(""), repr=False, compare=False)

    @property
    def has_key_source(self) -> bool:
        """True when a key can be had: an SSM parameter name is set, or the env key is present.

        Deliberately no SSM call: ``GET /tools`` must stay cheap and must not hinge on
        SSM/KMS being reachable. A parameter that turns out unreadable makes the
        search itself answer ``not_configured``.
        """
        return bool(self.key_parameter) or bool(self.env_key)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> WebSettings:
        """Parse and validate; a bad value raises ``ConfigError`` naming its variable (never its value)."""
        env = os.environ if env is None else env
        base_url = env_http_url(env, "EXA_BASE_URL", DEFAULT_EXA_BASE_URL).rstrip("/")
        parts = urlsplit(base_url)
        if parts.scheme != "https" and (parts.hostname or "") not in _LOOPBACK_HOSTS:
            raise ConfigError("invalid configuration: EXA_BASE_URL must be https (http only for a loopback host)")
        if parts.query or parts.fragment:
            raise ConfigError("invalid configuration: EXA_BASE_URL must not carry a query or fragment")
        return cls(
            enabled=env_bool(env, "ENABLE_WEB_SEARCH", False),
            key_parameter=env_str(env, "EXA_API_KEY_PARAMETER"),
            snippet_chars=env_int(env, "WEB_SNIPPET_CHARS", 400, minimum=1, maximum=2000),
            daily_per_user=env_int(env, "WEB_DAILY_PER_USER", 30, minimum=0),
            base_url=base_url,
            common=CommonSettings.from_env(env),
            # Read directly, not through env_str: a malformed value must never be echoed in a ConfigError.
            env_key=ApiKey(env.get("EXA_API_KEY", "").strip()),
        )
