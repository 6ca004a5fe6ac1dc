"""The Codex search structure: built once per fetched index, then queried in microseconds.

Ranking is exactly SPEC-014's: for every distinct query term an inscription
scores 8 if the term is in its title, 3 if in its summary and 1 if in its
body; highest score first, ties in (casefolded title, url, index position)
order. Inscriptions are renumbered in that tie order, so "lower id" *is* the
tie-break, and each term's postings are stored per tongue as one sorted
``array`` of codes ``(12 - weight) * n + id``: ascending codes are already
best-first, which makes a one-term query a slice and keeps memory small.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

from codex_tool.inscriptions import LANGS, Inscription
from codex_tool.text import tokenize

W_TITLE, W_SUMMARY, W_BODY = 8, 3, 1
_MAX_WEIGHT = W_TITLE + W_SUMMARY + W_BODY


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked result: the inscription and its score."""

    inscription: Inscription
    score: int


def tie_order(inscriptions: Sequence[Inscription]) -> list[int]:
    """Positions of ``inscriptions`` in tie-break order: casefolded title, then url, then position."""
    return sorted(range(len(inscriptions)), key=lambda i: (inscriptions[i].title.casefold(), inscriptions[i].url, i))


def term_weights(inscription: Inscription) -> dict[str, int]:
    """Each token of an inscription with its weight: 8 title + 3 summary + 1 body, by presence."""
    weights = dict.fromkeys(tokenize(inscription.body), W_BODY)
    for term in set(tokenize(inscription.summary)):
        weights[term] = weights.get(term, 0) + W_SUMMARY
    for term in set(tokenize(inscription.title)):
        weights[term] = weights.get(term, 0) + W_TITLE
    return weights


class SearchIndex:
    """Postings per tongue and term over inscriptions numbered in tie order."""

    __slots__ = ("_docs", "_n", "_postings")

    def __init__(self, inscriptions: Sequence[Inscription]) -> None:
        """Precompute the postings (the body text is not kept afterwards)."""
        order = tie_order(inscriptions)
        n = self._n = max(len(inscriptions), 1)
        self._docs: list[Inscription] = []
        lists: dict[str, dict[str, list[int]]] = {lang: {} for lang in LANGS}
        for doc_id, position in enumerate(order):
            inscription = inscriptions[position]
            # Results never show the body: drop it so the warm container holds only what it returns.
            self._docs.append(
                Inscription(
                    inscription.title,
                    inscription.summary,
                    "",
                    inscription.collection,
                    inscription.url,
                    inscription.lang,
                )
            )
            table = lists[inscription.lang]
            for term, weight in term_weights(inscription).items():
                code = (_MAX_WEIGHT - weight) * n + doc_id
                postings = table.get(term)
                if postings is None:
                    table[term] = [code]
                else:
                    postings.append(code)
        self._postings: dict[str, dict[str, array[int]]] = {
            lang: {term: array("i", sorted(codes)) for term, codes in table.items()} for lang, table in lists.items()
        }

    def __len__(self) -> int:
        return len(self._docs)

    def languages(self) -> dict[str, int]:
        """How many inscriptions each tongue has."""
        counts = dict.fromkeys(LANGS, 0)
        for doc in self._docs:
            counts[doc.lang] += 1
        return counts

    def search(self, terms: Sequence[str], lang: str, limit: int) -> tuple[list[Hit], bool]:
        """Top ``limit`` hits in ``lang``; if that tongue has none, across all tongues (``True``)."""
        hits = self._rank(terms, (lang,), limit)
        if hits or not terms:
            return hits, False
        return self._rank(terms, LANGS, limit), True

    def _rank(self, terms: Sequence[str], langs: Iterable[str], limit: int) -> list[Hit]:
        tables = [self._postings[lang] for lang in langs]
        lists = [postings for table in tables for term in terms if (postings := table.get(term)) is not None]
        if not lists or limit <= 0:
            return []
        n = self._n
        docs = self._docs
        if len(terms) == 1:
            codes = lists[0][:limit] if len(lists) == 1 else list(islice(heapq.merge(*lists), limit))
            return [Hit(docs[code % n], _MAX_WEIGHT - code // n) for code in codes]
        scores: dict[int, int] = {}
        get = scores.get
        for postings in lists:
            for code in postings:
                weight, doc_id = divmod(code, n)
                scores[doc_id] = get(doc_id, 0) + _MAX_WEIGHT - weight
        best = heapq.nsmallest(limit, scores.items(), key=lambda item: (-item[1], item[0]))
        return [Hit(docs[doc_id], score) for doc_id, score in best]
