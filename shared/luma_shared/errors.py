"""The few domain errors every failure is mapped to, and their public wording.

Two families: ``RequestError`` is the caller's fault and becomes an HTTP 4xx;
``ToolError`` is a tool outcome the model relays (HTTP 200 with ``{"error": ...}``).
Messages are written for the model and the channel: they never carry keys,
raw user ids or upstream exception text.
"""

from __future__ import annotations


class LumaError(Exception):
    """Base of every error the edge knows how to render."""

    #: Short machine-readable code, stable for the bot to branch on.
    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_payload(self) -> dict[str, object]:
        """The JSON body the caller sees."""
        return {"error": self.message, "code": self.code}


class RequestError(LumaError):
    """The request itself is malformed (HTTP 400)."""

    code = "bad_request"
    status = 400


class ToolError(LumaError):
    """A tool outcome the model should relay rather than a crash (HTTP 200)."""


class ConfigError(ToolError):
    """An environment variable holds a value the function cannot use."""

    code = "config"


class NotConfigured(ToolError):
    """The tool is switched off or lacks what it needs (flag, key)."""

    code = "not_configured"


class UnsafeUrlError(ToolError):
    """A URL was refused by the SSRF guard before any connection."""

    code = "unsafe_url"


class FetchError(ToolError):
    """An upstream fetch failed: network, timeout, status, size or body."""

    code = "upstream"

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class QuotaExceeded(ToolError):
    """The user has spent today's allowance for this tool."""

    code = "quota_exceeded"

    def __init__(self, message: str, *, resets_at: str) -> None:
        super().__init__(message)
        self.resets_at = resets_at

    def to_payload(self) -> dict[str, object]:
        """Adds the reset time so the model can tell the user when to retry."""
        return {**super().to_payload(), "resets_at": self.resets_at}


class QuotaUnavailable(ToolError):
    """The quota store could not be reached; we refuse rather than run unmetered."""

    code = "quota_unavailable"
