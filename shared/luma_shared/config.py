"""Typed reading of environment variables: each value is parsed and validated once.

Functions declare their own frozen settings classes built from these readers;
a bad value raises ``ConfigError`` naming the variable, which the edge turns
into ``{"error": ...}`` instead of a stack trace.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from luma_shared.errors import ConfigError

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def _shown(value: str) -> str:
    """A bad value as the error message may show it: only when short, so a secret pasted
    into the wrong variable is never echoed back."""
    return repr(value) if len(value) <= 12 else f"a {len(value)}-character value"


def env_bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    """Read a boolean flag (true/false, 1/0, yes/no, on/off)."""
    raw = env.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"invalid configuration: {name} must be true or false, got {_shown(raw)}")


def env_int(env: Mapping[str, str], name: str, default: int, *, minimum: int = 0, maximum: int | None = None) -> int:
    """Read an integer within ``[minimum, maximum]``."""
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip(), 10)
    except ValueError:
        raise ConfigError(f"invalid configuration: {name} must be an integer, got {_shown(raw)}") from None
    if value < minimum or (maximum is not None and value > maximum):
        bound = f"between {minimum} and {maximum}" if maximum is not None else f"at least {minimum}"
        raise ConfigError(f"invalid configuration: {name} must be {bound}, got {value}")
    return value


def env_str(env: Mapping[str, str], name: str, default: str = "") -> str:
    """Read a string, stripped of surrounding whitespace."""
    return env.get(name, default).strip()


def env_http_url(env: Mapping[str, str], name: str, default: str) -> str:
    """Read an absolute http(s) URL without credentials in it."""
    raw = env_str(env, name, default) or default
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        raise ConfigError(f"invalid configuration: {name} must be an http(s) URL without credentials")
    return raw


def env_host_ports(env: Mapping[str, str], name: str) -> frozenset[str]:
    """Read a comma-separated list of ``host:port`` pairs (lowercased)."""
    pairs = set()
    for item in env_str(env, name).split(","):
        item = item.strip().lower()
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ConfigError(f"invalid configuration: {name} entries must be host:port, got {_shown(item)}")
        pairs.add(f"{host.strip('[]')}:{int(port)}")
    return frozenset(pairs)


class OnceSettings[T]:
    """A function's settings, parsed on first use and kept for the container's life.

    A bad value is not kept: it raises ``ConfigError`` on every use, so fixing the
    variable and starting a new container is all an operator has to do.
    """

    def __init__(self, loader: Callable[[], T]) -> None:
        self._loader = loader
        self._value: T | None = None

    def get(self) -> T:
        """The settings, validated on first use."""
        if self._value is None:
            self._value = self._loader()
        return self._value

    def reset(self) -> None:
        """Forget the settings (a new container does the same)."""
        self._value = None


@dataclass(frozen=True, slots=True)
class CommonSettings:
    """Settings both functions share: the quota table and the guard's local allow-list."""

    quota_table: str
    guard_allow_hosts: frozenset[str]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> CommonSettings:
        """Parse and validate from the environment."""
        env = os.environ if env is None else env
        return cls(
            quota_table=env_str(env, "QUOTA_TABLE"),
            guard_allow_hosts=env_host_ports(env, "GUARD_ALLOW_HOSTS"),
        )
