"""A lunr.py peer to compare the Codex Mechanicus search against.

Uses ``lunr`` (lunr.py 0.8.0) with the plain, English pipeline: trimmer,
English stop-word filter and Porter stemmer at build time, stemmer at query
time.  lunr.py has other languages only through NLTK, which we do not ship,
so German, Esperanto, Norwegian and Ukrainian text is indexed with English
rules: words are still found, but not stemmed or stop-filtered correctly.

Fields: title, summary and body, boosted 8, 3 and 1; the ref of a document
is its position in the entry list, as a string.

Queries are never parsed with lunr's query syntax (``Index.search``), where
":", "~", "^", "+", "-" and "*" have meaning and can raise errors; instead
the query is split into word runs and each becomes an optional clause of a
programmatic ``Index.query``.

Run ``python bench/lunr_peer.py`` for a quick measurement on a 4 MiB
synthetic index.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from lunr import lunr
from lunr.index import Index

if __package__ in (None, ""):  # run as a script: make ``bench`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synth_index import MAX_INDEX_BYTES, generate_index, generate_queries

FIELDS: list[dict[str, Any]] = [
    {"field_name": "title", "boost": 8},
    {"field_name": "summary", "boost": 3},
    {"field_name": "body", "boost": 1},
]

_WORD = re.compile(r"\w+")


def build_lunr(entries: list[dict[str, Any]]) -> Index:
    """Build a lunr index over title, summary and body (boosts 8, 3, 1).

    The document ref is the entry's position as a string.  Plain lunr, i.e.
    the English pipeline for every tongue (no NLTK language support).
    """
    documents = [
        {
            "ref": str(position),
            "title": entry.get("title", ""),
            "summary": entry.get("summary", ""),
            "body": entry.get("body", ""),
        }
        for position, entry in enumerate(entries)
    ]
    return lunr(ref="ref", fields=FIELDS, documents=documents)


def query_terms(query: str) -> list[str]:
    """Lower-cased word runs of a query; every query-syntax character is dropped."""
    return list(dict.fromkeys(_WORD.findall(query.lower())))


def search_lunr(idx: Index, query: str, limit: int = 5) -> list[int]:
    """Positions of the best ``limit`` entries for ``query`` (may be empty).

    Each word of the query becomes an optional clause over all fields, so
    characters such as ":", "~", "^", "+", "-" or "*" are never interpreted.
    """
    terms = query_terms(query)
    if not terms or limit <= 0:
        return []
    q = idx.create_query()
    for term in terms:
        q.term(term)
    return [int(hit["ref"]) for hit in idx.query(q)[:limit]]


def main() -> int:
    """Measure build time and per-query median on a 4 MiB synthetic index."""
    data = generate_index(MAX_INDEX_BYTES, seed=0)
    entries = json.loads(data)
    queries = generate_queries(200, seed=0)
    started = time.perf_counter()
    idx = build_lunr(entries)
    build_s = time.perf_counter() - started
    timings = []
    hits = 0
    for query, _lang in queries:
        t0 = time.perf_counter()
        found = search_lunr(idx, query)
        timings.append(time.perf_counter() - t0)
        hits += bool(found)
    print(f"index: {len(data)} bytes, {len(entries)} entries")
    print(f"lunr build: {build_s:.2f} s")
    print(
        f"queries: {len(queries)}, with hits: {hits}, "
        f"median {statistics.median(timings) * 1000:.2f} ms, "
        f"p95 {statistics.quantiles(timings, n=20)[-1] * 1000:.2f} ms, "
        f"max {max(timings) * 1000:.2f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
