"""The Codex search structure: built once per fetched index, then queried in microseconds.

Ranking is exactly SPEC-014's: for every distinct query term an inscription
scores 8 if the term is in its title, 3 if in its summary and 1 if in its
body; highest score first, ties in (casefolded title, url, index position)
order.

How it is fast. Inscriptions are numbered in that tie order, per tongue, so a
lower number *is* the tie-break. Each (tongue, field, term) keeps the ascending
list of inscription numbers holding the term; building it is a C-level
append per (inscription, field, term), no sorting. A query scatters each
posting list's field weight into a byte vector (one byte per inscription of the
tongue, a C-level loop), adds the vectors as big integers (every byte a lane; a
score never exceeds 12 × MAX_QUERY_TERMS < 256, so lanes never carry), and reads
the top lanes off the sum level by level with C-level ``bytes.find``.
No per-posting Python bytecode runs, at build or at query time.
"""

from __future__ import annotations

import gc
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import repeat
from typing import Any, cast

from codex_tool.inscriptions import LANGS, Inscription, parse_index
from codex_tool.text import MAX_QUERY_TERMS, tokenize

W_TITLE, W_SUMMARY, W_BODY = 8, 3, 1
_MAX_WEIGHT = W_TITLE + W_SUMMARY + W_BODY
assert _MAX_WEIGHT * MAX_QUERY_TERMS < 256, "a score must fit one byte lane"
_consume: Callable[[Iterable[Any]], None] = deque(maxlen=0).extend
_DENSE = 8


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked result: the inscription and its score."""

    inscription: Inscription
    score: int


def tie_order(inscriptions: Sequence[Inscription]) -> list[int]:
    """Positions of ``inscriptions`` in tie-break order: casefolded title, then url, then position."""
    return sorted(range(len(inscriptions)), key=lambda i: (inscriptions[i].title.casefold(), inscriptions[i].url, i))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: an index build allocates hundreds of thousands of
    small objects that all live on, and the collector would rescan them again and again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def load_index(raw: bytes, index_url: str) -> SearchIndex:
    """Parse index bytes and build the search structure (raises ``FetchError`` if unusable)."""
    with _collector_paused():
        return SearchIndex(parse_index(raw, index_url))


class _Tongue:
    """Postings of one tongue: for each field, term -> ascending inscription numbers (lanes)."""

    __slots__ = ("_building", "docs", "fields")

    def __init__(self) -> None:
        self.docs: list[Inscription] = []
        self._building: tuple[defaultdict[str, list[int]], ...] = (
            defaultdict(list),
            defaultdict(list),
            defaultdict(list),
        )
        self.fields: tuple[tuple[dict[str, list[int] | int], int], ...] = ()

    def add(self, inscription: Inscription) -> None:
        """Append the next inscription in tie order (its tokens are not kept, only its lane in postings)."""
        lane = len(self.docs)
        # Results never show the body: drop it so the warm container holds only what it returns.
        self.docs.append(
            Inscription(
                inscription.title, inscription.summary, "", inscription.collection, inscription.url, inscription.lang
            )
        )
        title, summary, body = self._building
        for term in set(tokenize(inscription.title)):
            title[term].append(lane)
        for term in set(tokenize(inscription.summary)):
            summary[term].append(lane)
        for term in set(tokenize(inscription.body)):
            body[term].append(lane)

    def finish(self) -> _Tongue:
        """Freeze the postings: a term in at least one inscription of every ``_DENSE`` becomes a ready
        vector (an int of one byte per inscription), never bigger than the list it replaces."""
        size = len(self.docs)
        # Read with .get() only from now on, so the defaultdicts never grow again.
        finished = [cast(dict[str, list[int] | int], table) for table in self._building]
        for table in finished:
            for term, term_lanes in table.items():
                if isinstance(term_lanes, list) and len(term_lanes) * _DENSE >= size:
                    vector = bytearray(size)
                    _consume(map(vector.__setitem__, term_lanes, repeat(1)))
                    table[term] = int.from_bytes(vector, "little")
        self.fields = tuple(zip(finished, (W_TITLE, W_SUMMARY, W_BODY), strict=True))
        self._building = ()
        return self

    def top(self, terms: Sequence[str], limit: int) -> list[tuple[int, Inscription]]:
        """Best ``limit`` (score, inscription) pairs of this tongue, tie order kept."""
        found = [
            (lanes, weight) for term in terms for table, weight in self.fields if (lanes := table.get(term)) is not None
        ]
        if not found:
            return []
        docs = self.docs
        first, weight = found[0]
        if len(found) == 1 and isinstance(first, list):
            # One term in one field: every hit scores the same and lanes are in tie order.
            return [(weight, docs[lane]) for lane in first[:limit]]
        size = len(docs)
        total = 0
        for lanes, weight in found:
            if isinstance(lanes, int):
                total += lanes * weight
            else:
                vector = bytearray(size)
                _consume(map(vector.__setitem__, lanes, repeat(weight)))
                total += int.from_bytes(vector, "little")
        scores = total.to_bytes(size, "little")
        best: list[tuple[int, Inscription]] = []
        # Walk score levels from the highest possible down; `in` and `find` are memchr-fast.
        for level in range(min(sum(weight for _, weight in found), 255), 0, -1):
            needle = bytes((level,))
            lane = scores.find(needle)
            while lane >= 0:
                best.append((level, docs[lane]))
                if len(best) == limit:
                    return best
                lane = scores.find(needle, lane + 1)
        return best


class SearchIndex:
    """The precomputed index: one ``_Tongue`` per language, numbered in tie order."""

    __slots__ = ("_tongues",)

    def __init__(self, inscriptions: Sequence[Inscription]) -> None:
        """Precompute the postings; the body text is not kept afterwards."""
        tongues = {lang: _Tongue() for lang in LANGS}
        for position in tie_order(inscriptions):
            inscription = inscriptions[position]
            tongues[inscription.lang].add(inscription)
        self._tongues = {lang: tongue.finish() for lang, tongue in tongues.items()}

    def search(self, terms: Sequence[str], lang: str, limit: int) -> tuple[list[Hit], bool]:
        """Top ``limit`` hits in ``lang``; if that tongue has none, across all tongues (``True``)."""
        if limit <= 0 or not terms:
            return [], False
        terms = terms[:MAX_QUERY_TERMS]
        best = self._tongues[lang].top(terms, limit)
        if best:
            return [Hit(doc, score) for score, doc in best], False
        merged = [hit for tongue in self._tongues.values() for hit in tongue.top(terms, limit)]
        # Across tongues the tie order is the global one: casefolded title, then url.
        merged.sort(key=lambda hit: (-hit[0], hit[1].title.casefold(), hit[1].url))
        return [Hit(doc, score) for score, doc in merged[:limit]], True
