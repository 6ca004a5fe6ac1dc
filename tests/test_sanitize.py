"""sanitize_external_text and safe_http_url: external text is made inert (SAF-03)."""

from __future__ import annotations

import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from luma_shared.sanitize import safe_http_url, sanitize_external_text


@pytest.mark.parametrize(
    "hostile",
    [
        "@everyone look",
        "ping @here now",
        "@EVERYONE",
        "hi <@123456789012345678>",
        "<@!42> x",
        "<@&77> role",
        "<#99> chan",
        "</deploy:123> cmd",
        "@\u200beveryone",
        "@\u2060here",
    ],
)
def test_mentions_cannot_ping(hostile: str) -> None:
    """GIVEN text with Discord mass or markup mentions WHEN sanitized THEN none survive in pingable form."""
    out = sanitize_external_text(hostile, 200)
    assert "@everyone" not in out.lower() and "@here" not in out.lower()
    for sigil in ("<@", "<#", "</"):
        assert sigil not in out


def test_mentions_stay_readable() -> None:
    """GIVEN a mention WHEN sanitized THEN it still reads as one (fullwidth sigil), not deleted."""
    assert sanitize_external_text("@everyone", 50) == "\uff20everyone"
    assert sanitize_external_text("<@123>", 50) == "<\uff20123>"


def test_every_control_and_format_character_is_removed() -> None:
    """GIVEN every Cc/Cf/Cs code point WHEN sanitized inside text THEN none of them remain."""
    bad = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Cs")]
    text = "a" + "".join(bad) + "b"
    out = sanitize_external_text(text, 10_000)
    assert out in ("ab", "a b")  # whitespace controls collapse to one space


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\u2066", "\ufeff", "\U000e0041", "\u00ad", "\u3164"])
def test_invisible_and_bidi_characters_are_stripped(char: str) -> None:
    """GIVEN a bidi override, zero-width, tag or filler character WHEN sanitized THEN it is gone."""
    assert sanitize_external_text(f"Omni{char}ssiah", 50) == "Omnissiah"


def test_whitespace_collapses() -> None:
    """GIVEN runs of mixed whitespace WHEN sanitized THEN one space separates words, none at the ends."""
    assert sanitize_external_text("  a\t\n\r b\u2028\u00a0c  ", 50) == "a b c"


def test_length_cap_on_character_boundary() -> None:
    """GIVEN long text with combining marks WHEN capped THEN at most max chars, ending in an ellipsis, marks intact."""
    out = sanitize_external_text("x" * 9 + "e\u0301" * 10, 12)
    assert len(out) <= 12 and out.endswith("…")
    assert not unicodedata.combining(out[-2]) or out[-3] == "e"
    assert sanitize_external_text("short", 5) == "short"


def test_non_text_and_zero_cap() -> None:
    """GIVEN a non-string or a zero cap WHEN sanitized THEN the empty string."""
    assert sanitize_external_text(None, 10) == ""
    assert sanitize_external_text(123, 10) == ""
    assert sanitize_external_text("abc", 0) == ""


@given(st.text(max_size=300), st.integers(min_value=1, max_value=120))
def test_sanitize_properties(text: str, cap: int) -> None:
    """GIVEN any text WHEN sanitized THEN bounded, idempotent and free of pingable mentions."""
    out = sanitize_external_text(text, cap)
    assert len(out) <= cap
    assert sanitize_external_text(out, cap) == out
    assert "@everyone" not in out.lower() and "@here" not in out.lower() and "<@" not in out


@pytest.mark.parametrize(
    ("url", "base", "expected"),
    [
        ("/de/codex/x/", "https://binaric.tech/search-index.json", "https://binaric.tech/de/codex/x/"),
        ("https://Binaric.tech/a b", None, "https://binaric.tech/a%20b"),
        ("/x/@everyone", "https://binaric.tech/", "https://binaric.tech/x/%40everyone"),
        ("javascript:alert(1)", "https://binaric.tech/", None),
        ("data:text/html,hi", None, None),
        ("https://user:pw@binaric.tech/", None, None),
        ("ftp://binaric.tech/", None, None),
        ("https://bin\u202earic.tech/", None, None),
        (42, None, None),
        ("//evil.example/x", "https://binaric.tech/", "https://evil.example/x"),
    ],
)
def test_safe_http_url(url: object, base: str | None, expected: str | None) -> None:
    """GIVEN a link from an untrusted source WHEN cleaned THEN only absolute http(s) survives, encoded."""
    assert safe_http_url(url, base) == expected
