"""The straightforward SPEC-014 ranking, kept as the oracle the fast index is checked against.

It re-tokenizes every inscription on every query, exactly as the spec reads:
for each distinct query term, 8 if in the title, 3 if in the summary, 1 if in
the body; highest first, ties by casefolded title, url, then index position;
only the requested tongue, or every tongue when that one has no match.
"""

from __future__ import annotations

from collections.abc import Sequence

from codex_tool.inscriptions import Inscription
from codex_tool.text import tokenize


def score(inscription: Inscription, terms: Sequence[str]) -> int:
    """SPEC-014 score of one inscription for distinct query terms."""
    title, summary, body = (set(tokenize(f)) for f in (inscription.title, inscription.summary, inscription.body))
    return sum(8 * (t in title) + 3 * (t in summary) + 1 * (t in body) for t in dict.fromkeys(terms))


def oracle_search(
    inscriptions: Sequence[Inscription], terms: Sequence[str], lang: str, limit: int
) -> tuple[list[tuple[int, Inscription]], bool]:
    """Top ``limit`` (score, inscription) pairs and whether the all-tongue fallback was used."""

    def ranked(pool: list[tuple[int, Inscription]]) -> list[tuple[int, Inscription]]:
        scored = [(s, i, ins) for i, ins in pool if (s := score(ins, terms)) > 0]
        scored.sort(key=lambda x: (-x[0], x[2].title.casefold(), x[2].url, x[1]))
        return [(s, ins) for s, _, ins in scored[:limit]]

    indexed = list(enumerate(inscriptions))
    hits = ranked([(i, ins) for i, ins in indexed if ins.lang == lang])
    if hits or not terms:
        return hits, False
    return ranked(indexed), True
