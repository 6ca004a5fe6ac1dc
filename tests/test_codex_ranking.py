"""CDX-03 / CDX-04: ranking weights and language preference; the fast index equals the spec oracle."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codex_tool.inscriptions import LANGS, Inscription
from codex_tool.ranking import SearchIndex
from codex_tool.text import STOPWORDS, query_terms, tokenize
from tests.oracle import oracle_search


def ins(title: str, summary: str = "", body: str = "", lang: str = "en", slug: str | None = None) -> Inscription:
    """An inscription at /<lang>/codex/<slug>/."""
    slug = slug or title.lower().replace(" ", "-")
    return Inscription(title, summary, body, "codex", f"https://binaric.tech/{lang}/codex/{slug}/", lang)


def titles(index: SearchIndex, query: str, lang: str = "en", limit: int = 5) -> list[str]:
    """Result titles of a query."""
    hits, _ = index.search(query_terms(query), lang, limit)
    return [h.inscription.title for h in hits]


def test_title_beats_summary_beats_body() -> None:
    """GIVEN the term in the title of one, the summary of another, the body of a third WHEN searched THEN that order."""
    index = SearchIndex(
        [ins("Rites", body="the motive force"), ins("Litany", summary="motive force here"), ins("Motive Force")]
    )
    assert titles(index, "motive") == ["Motive Force", "Litany", "Rites"]
    assert [h.score for h in index.search(["motive"], "en", 5)[0]] == [8, 3, 1]


def test_scores_add_per_query_term_and_field() -> None:
    """GIVEN terms spread over fields WHEN scored THEN 8/3/1 per term and field, summed."""
    index = SearchIndex([ins("Machine Spirit", summary="spirit of the machine", body="machine")])
    assert index.search(["machine", "spirit"], "en", 5)[0][0].score == (8 + 3 + 1) + (8 + 3)


def test_repeated_term_counts_once() -> None:
    """GIVEN a query repeating a term WHEN scored THEN the term counts once."""
    index = SearchIndex([ins("Omnissiah")])
    assert index.search(query_terms("omnissiah Omnissiah OMNISSIAH"), "en", 5)[0][0].score == 8


def test_ties_are_deterministic_by_title_then_url() -> None:
    """GIVEN equal scores WHEN ranked THEN casefolded title order, then url, whatever the index order."""
    entries = [ins("beta", body="cog"), ins("Alpha", body="cog", slug="z"), ins("alpha", body="cog", slug="a")]
    index = SearchIndex(entries)
    assert [h.inscription.url for h in index.search(["cog"], "en", 5)[0]] == [
        "https://binaric.tech/en/codex/a/",
        "https://binaric.tech/en/codex/z/",
        "https://binaric.tech/en/codex/beta/",
    ]
    assert [h.inscription.url for h in SearchIndex(entries[::-1]).search(["cog"], "en", 5)[0]] == [
        h.inscription.url for h in index.search(["cog"], "en", 5)[0]
    ]


def test_stopwords_dropped_unless_query_is_only_stopwords() -> None:
    """GIVEN stopwords in a query WHEN tokenized THEN dropped; a stopword-only query keeps them and still searches."""
    assert query_terms("what is the Omnissiah") == ["omnissiah"]
    assert query_terms("was ist der Maschinengeist") == ["maschinengeist"]
    assert query_terms("що таке Омніссія") == ["омніссія"]
    assert query_terms("the of and") == ["the", "of", "and"]
    index = SearchIndex([ins("The Rite", body="of the and")])
    assert titles(index, "the and") == ["The Rite"]


def test_tokenizer_is_unicode_and_casefolded() -> None:
    """GIVEN mixed scripts and case WHEN tokenized THEN casefolded words of any script, punctuation split."""
    assert tokenize("Straße DER Maschinen-Geist, Мудрість; ĉiu") == [
        "strasse",
        "der",
        "maschinen",
        "geist",
        "мудрість",
        "ĉiu",
    ]
    assert {"the", "der", "kaj", "og", "та"} <= STOPWORDS


def test_requested_tongue_is_preferred() -> None:
    """GIVEN the same topic in en and de WHEN searched in de THEN only de results, no fallback."""
    index = SearchIndex([ins("Omnissiah", lang="en"), ins("Omnissiah", lang="de")])
    hits, fallback = index.search(["omnissiah"], "de", 5)
    assert [h.inscription.lang for h in hits] == ["de"] and fallback is False


def test_fallback_to_all_tongues_when_tongue_has_no_match() -> None:
    """GIVEN an inscription only in en WHEN searched in uk THEN the en result with fallback True."""
    index = SearchIndex([ins("Servitor", lang="en"), ins("Омніссія", lang="uk")])
    hits, fallback = index.search(["servitor"], "uk", 5)
    assert [h.inscription.title for h in hits] == ["Servitor"] and fallback is True


def test_no_match_anywhere_is_empty() -> None:
    """GIVEN a term nowhere WHEN searched THEN no hits."""
    assert SearchIndex([ins("Servitor")]).search(["xyzzy"], "en", 5) == ([], True)


def test_limit_is_respected() -> None:
    """GIVEN more matches than the limit WHEN searched THEN exactly limit hits."""
    index = SearchIndex([ins(f"Cog {i}", slug=str(i)) for i in range(20)])
    assert len(index.search(["cog"], "en", 5)[0]) == 5


def test_body_is_not_kept_after_build() -> None:
    """GIVEN a built index WHEN hits are returned THEN bodies are dropped (memory) but other fields kept."""
    hit = SearchIndex([ins("Cog", summary="s", body="long body")]).search(["cog"], "en", 5)[0][0]
    assert hit.inscription.body == "" and hit.inscription.summary == "s"


# --- the fast index against the oracle, on generated indexes and queries --------------------------------------

WORDS = [
    "cog",
    "omnissiah",
    "spirit",
    "machine",
    "geist",
    "the",
    "der",
    "kaj",
    "og",
    "та",
    "мудрість",
    "rite",
    "litany",
    "mars",
    "forge",
    "servitor",
    "noosphere",
    "binharic",
    "ĉiu",
    "ånd",
]
text = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)
inscription = st.builds(
    lambda title, summary, body, lang, slug: ins(title or "x", summary, body, lang, slug),
    text,
    text,
    text,
    st.sampled_from(LANGS),
    st.sampled_from(["a", "b", "c", "d"]),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(inscription, max_size=25), text, st.sampled_from(LANGS), st.integers(min_value=1, max_value=8))
def test_fast_index_equals_oracle(entries: list[Inscription], query: str, lang: str, limit: int) -> None:
    """GIVEN any index and query WHEN searched fast and by the spec scan THEN identical results, scores, fallback."""
    terms = query_terms(query)
    hits, fallback = SearchIndex(entries).search(terms, lang, limit)
    expected, expected_fallback = oracle_search(entries, terms, lang, limit)
    assert [(h.score, h.inscription.url, h.inscription.title) for h in hits] == [
        (s, e.url, e.title) for s, e in expected
    ]
    assert fallback == expected_fallback
