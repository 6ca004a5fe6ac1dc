"""Tests for the synthetic index generator and the hand-written demo index."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from bench.synth_index import LANGS, MAX_INDEX_BYTES, generate_index, generate_queries

DEMO_INDEX = Path(__file__).resolve().parent.parent / "local" / "demo-index.json"
KEYS = {"title", "summary", "body", "collection", "url"}
URL = re.compile(r"^/(en|de|eo|no|uk)/[a-z]+/[a-z0-9-]+/$")


def _tongue(entry: dict[str, str]) -> str:
    return entry["url"].split("/")[1]


def test_generate_index_is_deterministic_for_a_seed() -> None:
    """GIVEN a size and a seed
    WHEN the index is generated twice, and once with another seed
    THEN the two runs are byte-identical and the other seed differs.
    """
    first = generate_index(60_000, seed=3)
    assert first == generate_index(60_000, seed=3)
    assert first != generate_index(60_000, seed=4)


@pytest.mark.parametrize("target", [2, 150, 1_000, 4_096, 77_777, 250_000])
def test_generate_index_respects_the_byte_bound(target: int) -> None:
    """GIVEN a target byte size
    WHEN an index is generated
    THEN it is valid JSON, never above the target and within 1 % below it
    (or the empty array when not even one inscription fits).
    """
    data = generate_index(target, seed=1)
    entries = json.loads(data)
    assert len(data) <= target
    assert len(data) >= target * 0.99 or data == b"[]"
    assert all(set(entry) == KEYS for entry in entries)


def test_generate_index_at_the_cap_is_exact_and_rejects_more() -> None:
    """GIVEN the 4 MiB cap
    WHEN an index of exactly the cap and one above it are requested
    THEN the first has the cap's size and the second raises ValueError.
    """
    assert len(generate_index(MAX_INDEX_BYTES)) == MAX_INDEX_BYTES
    with pytest.raises(ValueError, match="cap"):
        generate_index(MAX_INDEX_BYTES + 1)


def test_generate_index_covers_all_five_tongues() -> None:
    """GIVEN a 400 kB synthetic index
    WHEN its urls are inspected
    THEN every url starts with a tongue segment, all five tongues are present
    and English is the largest share.
    """
    entries = json.loads(generate_index(400_000, seed=0))
    assert all(URL.match(entry["url"]) for entry in entries)
    counts = Counter(_tongue(entry) for entry in entries)
    assert set(counts) == set(LANGS)
    assert counts.most_common(1)[0][0] == "en"


def test_generate_index_uses_cyrillic_for_ukrainian() -> None:
    """GIVEN a synthetic index
    WHEN the Ukrainian inscriptions are read
    THEN their bodies are written in Cyrillic.
    """
    entries = json.loads(generate_index(200_000, seed=2))
    bodies = [entry["body"] for entry in entries if _tongue(entry) == "uk"]
    assert bodies
    assert all(re.search("[а-яіїєґ]", body, re.IGNORECASE) for body in bodies)


def test_generate_queries_is_deterministic_and_well_formed() -> None:
    """GIVEN a query count and a seed
    WHEN queries are generated twice
    THEN both lists are equal, have the count, use known tongues and 1-4 words.
    """
    queries = generate_queries(300, seed=5)
    assert queries == generate_queries(300, seed=5)
    assert len(queries) == 300
    assert {lang for _, lang in queries} <= set(LANGS)
    assert all(1 <= len(re.findall(r"\w+", query)) <= 4 for query, _ in queries)


def test_demo_index_is_valid_and_covers_every_tongue() -> None:
    """GIVEN the hand-written demo index
    WHEN it is parsed
    THEN it is a JSON array of inscriptions with at least 5 in every tongue.
    """
    entries = json.loads(DEMO_INDEX.read_text(encoding="utf-8"))
    assert isinstance(entries, list)
    assert all(set(entry) == KEYS for entry in entries)
    assert all(URL.match(entry["url"]) for entry in entries)
    counts = Counter(_tongue(entry) for entry in entries)
    assert all(counts[lang] >= 5 for lang in LANGS), counts


def test_demo_index_contains_the_two_hostile_entries() -> None:
    """GIVEN the demo index
    WHEN its entries are searched for hostile content
    THEN one summary holds @everyone and a user mention, and one title holds
    a zero-width space and a right-to-left override, stored as JSON escapes.
    """
    raw = DEMO_INDEX.read_text(encoding="utf-8")
    entries = json.loads(raw)
    assert any("@everyone" in entry["summary"] and "<@123456789012345678>" in entry["summary"] for entry in entries)
    assert any("\u200b" in entry["title"] and "\u202e" in entry["title"] for entry in entries)
    for char, escape in (("\u200b", "\\u200b"), ("\u202e", "\\u202e")):
        assert escape in raw
        assert char not in raw
