"""Deterministic synthetic "Codex Mechanicus" search indexes for benchmarks.

The real index is a JSON array published by the Astro/MDX archive site
(``/search-index.json``); every inscription is an object::

    {"title": str, "summary": str, "body": str, "collection": str, "url": str}

with a site-relative ``url`` whose first path segment is the tongue
(``/de/codex/omnissiah-12/``).  This module writes indexes of that shape in the
five tongues of the archive (en, de, eo, no, uk) at a chosen byte size, and
user-like queries to run against them.

Realism, in short:

* per tongue a fixed vocabulary of a few thousand word types: a hand-written
  seed list of real words (in-universe terms first, then common words), plus
  synthetic word forms built from syllables of that language or script
  (Cyrillic for Ukrainian), each synthetic lemma with a few inflected forms
  and, for German and Norwegian, compounds;
* Zipf-distributed word frequencies, with the stopwords of each tongue mixed
  into the running text at a natural rate;
* each inscription has a few topic words that recur in title, summary and
  body, so ranking has something to find;
* titles 2-7 words, summaries 15-40 words, bodies 150-600 words;
* tongue shares roughly en 40 %, de 20 %, uk 15 %, no 15 %, eo 10 %.

The vocabulary does not depend on ``seed`` (so queries fit every index); the
seed only changes which inscriptions are written.  Everything is built from
``random.Random`` with fixed seeds, so output is byte-identical across runs
and platforms.

CLI::

    python bench/synth_index.py --bytes 4194304 --seed 0 --out /tmp/x.json
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
import unicodedata
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from pathlib import Path

MAX_INDEX_BYTES = 4 * 1024 * 1024
"""Byte cap of the real index (4 MiB); ``generate_index`` refuses more."""

LANGS: tuple[str, ...] = ("en", "de", "eo", "no", "uk")
LANG_SHARES: dict[str, float] = {"en": 0.40, "de": 0.20, "uk": 0.15, "no": 0.15, "eo": 0.10}
COLLECTIONS: tuple[str, ...] = ("codex", "litanies", "rites", "chronicles", "glossary")
COLLECTION_WEIGHTS: tuple[int, ...] = (35, 20, 20, 15, 10)

# Target vocabulary size (word types) per tongue.
_VOCAB_SIZE: dict[str, int] = {"en": 5000, "de": 4500, "eo": 3500, "no": 4000, "uk": 4500}
# Share of running-text tokens that are stopwords.
_STOPWORD_RATE = 0.42
# Share of content tokens in a body replaced by one of the entry's topic words.
_TOPIC_RATE = 0.06

# ---------------------------------------------------------------------------
# Seed lists: stopwords (most frequent first) and real words per tongue.
# ---------------------------------------------------------------------------

_STOPWORDS: dict[str, str] = {
    "en": """the of and to in a is that for it as with by on be are from this was
        his which or its an not at all but who their they has have into upon when
        before each no only so than through were them our there these those""",
    "de": """der die und in den von zu das mit sich des auf für ist im dem nicht
        ein eine als auch es an werden aus er hat dass sie nach bei um am sind
        noch wie einem über einen so zum zur nur vor durch seine ihre wird""",
    "eo": """la kaj de en al estas ke por kun el per sur ne li ĝi ili tiu tio kiu
        kio kiel da pri sed aŭ se nur ankaŭ post antaŭ ĉe tra inter sub super ĉar
        jam ĉi ni estis estos tiuj kiuj sia siaj""",
    "no": """og i er det som en på til av for med den at et de har ikke om fra
        men var seg kan han vi etter sin sine ved eller så over under når hvor
        alle bare enn mot denne dette disse blir""",
    "uk": """і та в у на з що до не як це для за від по його її їх він вона вони
        але або який яка які є був була при про під над через так вже лише коли
        де щоб із зі ще цей ця""",
}

_SEED_WORDS: dict[str, str] = {
    "en": """omnissiah machine spirit spirits motive force rite rites activation
        litany litanies ignition noosphere noospheric mars martian forge forges
        world worlds knowledge quest servitor servitors universal laws law sixteen
        binharic cant cult mechanicus adeptus tech-priest tech-priests magos
        fabricator general cogitator cogitators data datacore cog cogs gear gears
        incense unguent oil sacred holy blessed ancient relic relics archive
        archives codex canticle hymn prayer prayers titan titans legio skitarii
        explorator fleet void ship ships engine engines reactor plasma weapon
        weapons armour bionic bionics augmetic augmetics flesh weakness metal steel
        iron bronze brass circuit circuits logic code binary signal signals vox
        auspex servo-skull mechadendrite mechadendrites lexmechanic enginseer
        genetor logis transmechanic electro-priest heresy tech-heresy abominable
        intelligence artificial standard template construct golden throne emperor
        omnissian dragon deep red planet olympus mons noctis labyrinth manufactorum
        hive hives gate vault vaults chamber altar shrine time light power path
        truth word order voice hand heart mind body soul name fire water star stars
        empire war peace death life blood people work sign first last great small
        old new many every long dark bright cold true silent must shall will know
        knows seek seeks serve serves praise praised awaken awakened bless blesses
        obey obeys repair repairs maintain maintenance calibrate calibration anoint
        anointed chant chanted record recorded recite recited learn study
        understand build built protect guard purge purify purified sanctified
        schematic schematics rune runes lathe dynamo capacitor coil pistons valve
        cable cables lumen sensor sensors pattern patterns""",
    "de": """Omnissiah Maschinengeist Maschinengeister Maschinengeistes Maschine
        Maschinen Geist Geistes Motivkraft Triebkraft Ritus Riten Aktivierung
        Litanei Litaneien Zündung Noosphäre Mars Schmiede Schmiedewelt
        Schmiedewelten Wissen Suche Servitor Servitoren Gesetz Gesetze sechzehn
        universellen Binärcode binärisch Kult Techpriester Magos Fabrikator
        Generalfabrikator Cogitator Daten Zahnrad Zahnräder Zahnrades Weihrauch
        Salbe Öl heilig heiligen gesegnet uralt uralten Reliquie Reliquien Archiv
        Archive Kodex Gesang Hymne Gebet Gebete Titan Titanen Skitarii Explorator
        Flotte Leere Schiff Schiffe Motor Reaktor Plasma Waffe Waffen Rüstung
        Bionik Fleisch Schwäche Metall Stahl Eisen Bronze Messing Schaltkreis
        Schaltkreise Logik Signal Signale Servoschädel Mechadendrit Lexmechanicus
        Maschinenseher Häresie Techhäresie Intelligenz künstliche Schablone
        Konstrukt goldenen Thron Imperator Drache rote roten Planet Planeten
        Olympus Labyrinth Manufaktur Makropole Tor Gewölbe Kammer Altar Schrein
        Zeit Licht Kraft Pfad Wahrheit Wort Ordnung Stimme Hand Herz Verstand
        Körper Seele Name Feuer Wasser Stern Sterne Reich Krieg Frieden Tod Leben
        Blut Volk Arbeit Zeichen erste letzte große großen kleine alte alten neue
        viele jeder jede lange dunkle hell kalt wahr stille muss soll weiß sucht
        dient dienen preisen gepriesen erwacht erwecken segnen gehorchen
        reparieren Wartung kalibrieren Kalibrierung salben gesalbt singen
        rezitieren lernen verstehen bauen schützen reinigen Bauplan Baupläne Rune
        Runen Drehbank Dynamo Kondensator Spule Kolben Ventil Kabel Sensor Muster""",
    "eo": """Omnisio maŝino maŝinoj maŝina spirito spiritoj maŝinspirito motiva
        forto rito ritoj aktivigo litanio litanioj ekbruligo noosfero Marso
        forĝejo forĝmondo mondo mondoj scio scioj serĉado servitoro servitoroj
        leĝo leĝoj dek ses universala universalaj binara kanto kulto teknopastro
        teknopastroj magoso fabrikisto kogitatoro kogitatoroj datumoj dentrado
        dentradoj incenso oleo sankta sanktaj benita antikva relikvo relikvoj
        arkivo arkivoj kodekso himno preĝo preĝoj titano titanoj esploristo floto
        vakuo ŝipo ŝipoj motoro reaktoro plasmo armilo armiloj kiraso bioniko
        karno malforteco metalo ŝtalo fero bronzo latuno cirkvito cirkvitoj
        logiko signalo signaloj servokranio herezo inteligenteco artefarita
        ŝablono konstruaĵo ora trono Imperiestro drako ruĝa planedo Olimpo
        labirinto manufakturo pordego volbo ĉambro altaro sanktejo tempo lumo
        potenco vojo vero vorto ordo voĉo mano koro menso korpo animo nomo fajro
        akvo stelo steloj imperio milito paco morto vivo sango popolo laboro
        signo unua lasta granda grandaj malgranda malnova nova multaj ĉiu ĉiuj
        longa malhela hela malvarma vera silenta devas servas servi laŭdas laŭdi
        vekiĝas veki beni obei ripari prizorgado kalibri kalibrado sanktoleas
        kanti deklami lerni kompreni konstrui protekti purigi serĉi scii konas
        skemo runo tornilo dinamo kondensilo bobeno piŝto valvo kablo sensilo""",
    "no": """Omnissiah maskin maskinen maskiner maskinånd maskinånden ånd ånden
        drivkraft drivkraften rite riten ritene aktivering aktiveringsriten litani
        litaniet tenning tenningslitaniet noosfæren Mars smie smien smieverden
        verden verdener kunnskap søken servitor servitorer lov lover seksten
        universelle binærisk kant kult kulten teknoprest teknoprester magos
        fabrikator kogitator data tannhjul tannhjulet røkelse salve olje hellig
        hellige velsignet eldgammel eldgamle relikvie relikvier arkiv arkivet
        kodeks hymne bønn bønner titan titaner skitarii utforsker flåte tomrommet
        skip skipet motor reaktor plasma våpen rustning bionikk kjøtt svakhet
        metall stål jern bronse messing krets kretser logikk signal signaler
        servoskalle kjetteri intelligens kunstig mal konstrukt gylne tronen
        keiseren drage røde planet planeten Olympus labyrint manufaktur port hvelv
        kammer alter helligdom tid lys kraft sti sannhet ord orden stemme hånd
        hjerte sinn kropp sjel navn ild vann stjerne stjerner rike krig fred død
        liv blod folk arbeid tegn første siste store stor liten gamle gammel ny
        nye mange hver lang mørk lyse kald sann stille må skal vil vet søker
        tjener tjene prise lovpriset våkner vekke velsigne adlyde reparere
        vedlikehold kalibrere kalibrering synge resitere lære forstå bygge
        beskytte rense is isverden frost kulde tegning tegninger rune runer
        dreiebenk dynamo kondensator spole stempel ventil kabel sensor mønster""",
    "uk": """Омніссія Омніссії машина машини машин дух духу машинний рушійна сила
        сили обряд обряди активація активації літанія літанії запалення ноосфера
        ноосфери Марс Марса кузня кузні світ світу світи знання пошук сервітор
        сервітори закон закони законів шістнадцять універсальних бінарний кант
        культ техножрець техножерці магос фабрикатор когітатор когітатори дані
        шестерня шестерні ладан олива мастило священний священна благословенний
        давній давні реліквія реліквії архів архіви кодекс гімн молитва молитви
        титан титани скітарії експлоратор флот порожнеча корабель кораблі двигун
        реактор плазма зброя броня біоніка плоть слабкість метал сталь залізо
        бронза латунь схема схеми логіка сигнал сигнали сервочереп єресь
        техноєресь інтелект штучний шаблон конструкт золотий трон Імператор
        дракон червона планета Олімп лабіринт мануфакторум брама склепіння зала
        вівтар святиня час світло шлях істина слово порядок голос рука серце
        розум тіло душа вогонь вода зоря зорі імперія війна мир смерть життя кров
        народ праця знак перший останній великий велика малий старий новий нова
        багато кожен довгий темний ясний холодний правдивий тихий мусить має буде
        знає шукає служить служити славити прославлений пробуджується пробудити
        благословити коритися ремонтувати обслуговування калібрувати калібрування
        помазати співати читати вчитися розуміти будувати захищати очищати пісня
        креслення руна руни токарня динамо конденсатор котушка поршень клапан
        кабель сенсор візерунок""",
}


def _split(text: str) -> list[str]:
    """Whitespace-separated items of a compact literal."""
    return text.split()


# Syllable inventories for synthetic word forms: onsets, nuclei, codas, and
# lemma patterns (suffix, inflected endings).  The letters q, x and z in
# unusual clusters never occur, which keeps "nonsense" queries unmatched.
_SYLLABLES: dict[str, tuple[list[str], list[str], list[str]]] = {
    "en": (
        _split("b c d f g h l m n p r s t v w br cr dr gr pr st tr th sh ch pl cl sp"),
        _split("a e i o u ai ea ou io"),
        ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "rk", "ct", "nt"],
    ),
    "de": (
        _split("b d f g h k l m n p r s t w z sch st sp br gr kr tr pf fl"),
        _split("a e i o u ä ö ü ei au ie eu"),
        ["", "", "", "n", "r", "s", "t", "ch", "ng", "ck", "nd", "lt", "rt", "tz"],
    ),
    "eo": (
        _split("b c ĉ d f g ĝ h ĵ k l m n p r s ŝ t v z kr tr pl sp st"),
        _split("a e i o u aŭ"),
        ["", "", "", "", "n", "l", "r", "s", "k", "m"],
    ),
    "no": (
        _split("b d f g h k l m n p r s t v bl br fl fr gr kr sk sl sn st tr kj hj"),
        _split("a e i o u y æ ø å ei au"),
        ["", "", "", "n", "r", "s", "t", "l", "k", "nd", "rt", "st", "kk", "ll", "nn"],
    ),
    "uk": (
        _split("б в г ґ д ж з к л м н п р с т ф х ц ч ш кр пр ст тр зв сл бл дв"),
        _split("а е и і о у ї є я ю"),
        ["", "", "", "н", "р", "с", "т", "л", "к", "й", "в", "м"],
    ),
}

# (lemma suffix, inflected forms) patterns; the first form is the lemma itself.
_PARADIGMS: dict[str, list[tuple[str, list[str]]]] = {
    "en": [
        ("", ["", "s"]),
        ("ion", ["", "s"]),
        ("or", ["", "s"]),
        ("ium", [""]),
        ("al", [""]),
        ("ive", [""]),
        ("ism", [""]),
        ("", ["", "ed", "ing", "s"]),
        ("ant", ["", "s"]),
        ("ory", [""]),
    ],
    "de": [
        ("ung", ["", "en"]),
        ("keit", ["", "en"]),
        ("er", ["", "n", "s"]),
        ("", ["", "e", "en", "es"]),
        ("schaft", ["", "en"]),
        ("lich", ["", "e", "en", "er"]),
        ("en", [""]),
        ("nis", ["", "se"]),
    ],
    "eo": [
        ("", ["o", "oj", "on", "ojn"]),
        ("", ["a", "aj", "an"]),
        ("", ["i", "as", "is", "os"]),
        ("ad", ["o", "on"]),
        ("ist", ["o", "oj"]),
        ("ej", ["o", "oj"]),
        ("ig", ["i", "as", "is"]),
        ("", ["e"]),
    ],
    "no": [
        ("", ["", "en", "er", "ene"]),
        ("", ["", "et", "ene"]),
        ("het", ["", "en", "er"]),
        ("ing", ["", "en", "er"]),
        ("lig", ["", "e"]),
        ("", ["e", "er", "et"]),
        ("skap", ["", "et"]),
    ],
    "uk": [
        ("", ["", "а", "у", "ом", "ів", "и"]),
        ("", ["а", "и", "і", "ою", "у"]),
        ("н", ["ий", "а", "е", "і", "ого", "их"]),
        ("", ["ати", "ає", "ають"]),
        ("", ["ити", "ить", "ять"]),
        ("ств", ["о", "а", "і"]),
        ("ість", [""]),
    ],
}

# Question openers users put before a term ("what is the ...").
_QUERY_OPENERS: dict[str, list[str]] = {
    "en": ["what is the", "what is", "who is the", "tell me about", "how to", "the", "about"],
    "de": ["was ist der", "was ist die", "was ist das", "wer ist", "wie", "über die", "die"],
    "eo": ["kio estas la", "kio estas", "kiu estas", "pri la", "kiel", "la"],
    "no": ["hva er", "hva er en", "hvem er", "hvordan", "om", "hva er det"],
    "uk": ["що таке", "хто такий", "як", "про", "що є", "що це"],
}

_UK_TRANSLIT = dict(
    zip(
        "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя",
        _split("a b v h g d e ie zh z y i i i k l m n o p r s t u f kh ts ch sh shch _ iu ia"),
        strict=True,
    )
)
_UK_TRANSLIT["ь"] = ""


@dataclass(frozen=True)
class _Vocab:
    """Frequency-ranked words of one tongue, with cumulative Zipf weights."""

    lang: str
    words: tuple[str, ...]
    cum: tuple[float, ...]
    seed_count: int
    stops: tuple[str, ...]
    stop_cum: tuple[float, ...]
    by_len: dict[int, tuple[str, ...]]


def _zipf_cum(n: int, exponent: float, offset: float) -> tuple[float, ...]:
    """Cumulative weights of a Zipf-Mandelbrot law over ranks 1..n."""
    return tuple(accumulate(1.0 / (rank + offset) ** exponent for rank in range(1, n + 1)))


def _synthetic_stem(rng: random.Random, lang: str) -> str:
    """One stem of 1-3 syllables from the tongue's syllable inventory."""
    onsets, nuclei, codas = _SYLLABLES[lang]
    simple = [o for o in onsets if len(o) == 1]
    parts = []
    for i in range(rng.choice((1, 1, 2, 2, 2, 3))):
        onset = rng.choice(onsets if rng.random() < 0.3 else simple)
        coda = rng.choice(codas) if i == 0 or rng.random() < 0.5 else ""
        parts.append(onset + rng.choice(nuclei) + coda)
    return "".join(parts)


@cache
def _vocab(lang: str) -> _Vocab:
    """Build (once) the fixed, seed-independent vocabulary of a tongue."""
    rng = random.Random(f"codex-vocab-{lang}")
    stops = tuple(_STOPWORDS[lang].split())
    stop_set = set(stops)
    seeds = list(dict.fromkeys(w for w in _SEED_WORDS[lang].split() if w not in stop_set))
    # In-universe terms lead the list; a light shuffle keeps it from being alphabetic.
    head, tail = seeds[:60], seeds[60:]
    rng.shuffle(tail)
    seeds = head + tail
    seen = set(seeds) | stop_set
    words = list(seeds)
    short = [w for w in seeds[:150] if len(w) <= 8 and "-" not in w]
    nouns = [w for w in short if w[:1].isupper()] if lang == "de" else short
    target = _VOCAB_SIZE[lang]
    while len(words) < target:
        if lang in ("de", "no") and rng.random() < 0.12:
            # Compounds: Schmiede + geist, maskin + tannhjul, ...
            first = rng.choice(nouns)
            second = rng.choice(short).lower()
            forms = [first + ("s" if rng.random() < 0.25 else "") + second]
        else:
            suffix, endings = rng.choice(_PARADIGMS[lang])
            stem = _synthetic_stem(rng, lang) + suffix
            forms = [stem + ending for ending in endings]
            if lang == "de" and suffix not in ("lich", "en") and rng.random() < 0.7:
                forms = [f[:1].upper() + f[1:] for f in forms]
        for form in forms:
            if len(form) >= 3 and form not in seen:
                seen.add(form)
                words.append(form)
    words = words[:target]
    by_len: dict[int, list[str]] = {}
    for word in list(stops) + words[:1500]:
        if "-" not in word:
            by_len.setdefault(len(word.encode()), []).append(word)
    return _Vocab(
        lang=lang,
        words=tuple(words),
        cum=_zipf_cum(len(words), 1.0, 2.7),
        seed_count=len(seeds),
        stops=stops,
        stop_cum=_zipf_cum(len(stops), 1.0, 1.5),
        by_len={k: tuple(v) for k, v in by_len.items()},
    )


def vocabulary(lang: str) -> tuple[str, ...]:
    """The frequency-ranked content words of ``lang`` (most frequent first)."""
    return _vocab(lang).words


def stopwords(lang: str) -> tuple[str, ...]:
    """The stopwords of ``lang`` used in generated text and queries."""
    return _vocab(lang).stops


# ---------------------------------------------------------------------------
# Text generation
# ---------------------------------------------------------------------------


def _capitalize(word: str) -> str:
    return word[:1].upper() + word[1:]


def _running_words(rng: random.Random, voc: _Vocab, n: int, topic: list[str]) -> list[str]:
    """``n`` words of running text: Zipf content words, stopwords, topic words."""
    content = rng.choices(voc.words, cum_weights=voc.cum, k=n)
    stops = rng.choices(voc.stops, cum_weights=voc.stop_cum, k=n)
    rolls = [rng.random() for _ in range(n)]
    out = []
    for i in range(n):
        roll = rolls[i]
        if roll < _STOPWORD_RATE:
            out.append(stops[i])
        elif roll < _STOPWORD_RATE + _TOPIC_RATE:
            out.append(topic[i % len(topic)])
        else:
            out.append(content[i])
    return out


def _sentence(rng: random.Random, chunk: list[str]) -> str:
    """Join words into one sentence with a capital, stray commas and an end mark."""
    chunk = list(chunk)
    chunk[0] = _capitalize(chunk[0])
    for j in range(2, len(chunk) - 2):
        if rng.random() < 0.05:
            chunk[j] += ","
    return " ".join(chunk) + rng.choice(".........!")


def _sentences(rng: random.Random, words: list[str]) -> list[str]:
    """Cut running words into sentences of 6-20 words."""
    sentences = []
    i = 0
    while i < len(words):
        length = rng.randint(6, 20)
        sentences.append(_sentence(rng, words[i : i + length]))
        i += length
    return sentences


def _title(rng: random.Random, voc: _Vocab, topic: list[str]) -> str:
    """A 2-7 word title led by the entry's topic words."""
    n = rng.randint(2, 7)
    words = list(dict.fromkeys(topic[: rng.randint(1, 2)]))
    while len(words) < n:
        if rng.random() < 0.3 and len(words) < n - 1:
            words.append(rng.choice(voc.stops[:8]))
        word = rng.choices(voc.words, cum_weights=voc.cum)[0]
        if word not in words:
            words.append(word)
    words = words[:n]
    if voc.lang == "en":
        return " ".join(w if w in voc.stops and i else _capitalize(w) for i, w in enumerate(words))
    return " ".join([_capitalize(words[0]), *words[1:]])


def _slug(title: str, lang: str) -> str:
    """An ASCII slug of a title, as Astro content collections produce."""
    text = title.lower()
    if lang == "uk":
        text = "".join(_UK_TRANSLIT.get(ch, ch) for ch in text)
    text = text.replace("ß", "ss").replace("æ", "ae").replace("ø", "o")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return "-".join(slug.split("-")[:6]) or "inscription"


def _entry(rng: random.Random, lang: str, number: int) -> dict[str, str]:
    """One complete inscription in ``lang``."""
    voc = _vocab(lang)
    # Topic words: mostly from the mid-frequency band, where real topics live.
    rank = int(rng.paretovariate(0.5)) * 2 + rng.randrange(30)
    topic = [voc.words[min(rank, len(voc.words) - 1)]]
    topic += rng.choices(voc.words[: voc.seed_count], k=rng.randint(1, 3))
    title = _title(rng, voc, topic)
    summary_words = _running_words(rng, voc, rng.randint(15, 40), topic)
    cut = rng.randint(7, len(summary_words) - 7) if len(summary_words) > 24 else len(summary_words)
    summary = " ".join(_sentence(rng, part) for part in (summary_words[:cut], summary_words[cut:]) if part)
    body_words = _running_words(rng, voc, rng.randint(150, 600), topic)
    sentences = _sentences(rng, body_words)
    paragraphs = []
    while sentences:
        take = rng.randint(3, 6)
        paragraphs.append(" ".join(sentences[:take]))
        sentences = sentences[take:]
    collection = rng.choices(COLLECTIONS, weights=COLLECTION_WEIGHTS)[0]
    return {
        "title": title,
        "summary": summary,
        "body": "\n\n".join(paragraphs),
        "collection": collection,
        "url": f"/{lang}/{collection}/{_slug(title, lang)}-{number}/",
    }


def _dump(entry: dict[str, str]) -> bytes:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()


def _filler(rng: random.Random, voc: _Vocab, gap: int) -> str:
    """Text of exactly ``gap`` UTF-8 bytes (no JSON escapes) to pad a body."""
    parts: list[str] = []
    while gap > 48:
        word = rng.choices(voc.words[:1500], cum_weights=voc.cum[:1500])[0]
        cost = len(word.encode()) + 1
        parts.append(" " + word)
        gap -= cost
    while gap > 0:
        if gap == 1:
            parts.append(".")
            break
        if gap <= 5:  # " 7", " 41", " 999", " 1041": numbers appear in the lore
            parts.append(" " + str(rng.randrange(10 ** (gap - 2), 10 ** (gap - 1))))
            break
        exact = voc.by_len.get(gap - 1)
        if exact:
            parts.append(" " + rng.choice(exact))
            break
        # Take a word that leaves a remainder we can finish (>= 2 or exactly 1).
        lengths = [n for n in voc.by_len if 1 <= n <= gap - 3]
        n = rng.choice(lengths) if lengths else 1
        word = rng.choice(voc.by_len.get(n, ("a",)))
        parts.append(" " + word)
        gap -= len(word.encode()) + 1
    return "".join(parts)


def generate_index(target_bytes: int, seed: int = 0, *, allow_oversize: bool = False) -> bytes:
    """A compact UTF-8 JSON index of exactly ``target_bytes`` bytes.

    The last inscription's body is padded so the size is exact whenever at
    least one inscription fits (a few hundred bytes); a smaller target yields
    ``b"[]"``.  Targets above ``MAX_INDEX_BYTES`` raise ``ValueError`` unless
    ``allow_oversize`` (for testing the cap itself).
    """
    if target_bytes < 2:
        raise ValueError("target_bytes must be at least 2 (the empty array)")
    if target_bytes > MAX_INDEX_BYTES and not allow_oversize:
        raise ValueError(f"target_bytes above the {MAX_INDEX_BYTES}-byte cap")
    rng = random.Random(seed)
    langs = list(LANG_SHARES)
    lang_cum = list(accumulate(LANG_SHARES.values()))
    entries: list[dict[str, str]] = []
    dumped: list[bytes] = []
    size = 2  # "[" and "]"
    while True:
        lang = langs[min(bisect_right(lang_cum, rng.random() * lang_cum[-1]), len(langs) - 1)]
        entry = _entry(rng, lang, len(entries) + 1)
        blob = _dump(entry)
        sep = 1 if entries else 0
        if size + sep + len(blob) <= target_bytes:
            entries.append(entry)
            dumped.append(blob)
            size += sep + len(blob)
            continue
        # The next inscription does not fit: shorten its body to fill exactly.
        voc = _vocab(lang)
        entry["body"] = ""
        base = len(_dump(entry))
        gap = target_bytes - size - sep - base
        if gap >= 0:
            text = _filler(rng, voc, gap)
            entry["body"] = text[1:] + "." if text.startswith(" ") else text
            dumped.append(_dump(entry))
            entries.append(entry)
        elif dumped:
            # Not even an empty-bodied inscription fits: pad the previous one.
            last = entries[-1]
            gap = target_bytes - size
            last["body"] += _filler(rng, _vocab(last["url"].split("/")[1]), gap)
            dumped[-1] = _dump(last)
        break
    data = b"[" + b",".join(dumped) + b"]"
    assert len(data) <= target_bytes
    return data


# ---------------------------------------------------------------------------
# Queries
# ---------------------------------------------------------------------------


def _nonsense_word(rng: random.Random) -> str:
    """A pronounceable word that no tongue's vocabulary contains."""
    onsets = ["qu", "xa", "zy", "vr", "kh", "ph", "qo", "zx"]
    rare = ["qx", "xq", "zq", "qz", "xz"]
    while True:
        word = rng.choice(onsets) + rng.choice("aeiouy") + rng.choice(rare)
        word += "".join(rng.choice("bdfgklmnprstv") + rng.choice("aeiou") for _ in range(rng.randint(1, 3)))
        if not _known_prefix(word[:4]):
            return word


@cache
def _all_prefixes() -> frozenset[str]:
    prefixes: set[str] = set()
    for lang in LANGS:
        voc = _vocab(lang)
        for word in voc.words + voc.stops:
            w = word.lower()
            prefixes.update(w[i : i + 4] for i in range(max(1, len(w) - 3)))
    return frozenset(prefixes)


def _known_prefix(chunk: str) -> bool:
    return chunk in _all_prefixes()


def _query_word(rng: random.Random, voc: _Vocab) -> str:
    """A content word as users pick it: often a real seed term, Zipf-mixed."""
    if rng.random() < 0.55:
        k = voc.seed_count
        return rng.choices(voc.words[:k], cum_weights=voc.cum[:k])[0]
    # A flatter Zipf over the whole vocabulary reaches rare terms too.
    rank = min(int(rng.paretovariate(0.35)) - 1, len(voc.words) - 1)
    return voc.words[rank]


def generate_queries(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` (query, lang) pairs resembling what users ask Luma.

    Mix: 1-4 words, mostly vocabulary terms of the tongue (frequent and rare),
    some behind openers such as "what is the", a few with a word of another
    tongue or a nonsense word, a few with punctuation or query-syntax
    characters, and about 10 % that match nothing at all.
    """
    rng = random.Random(f"codex-queries-{seed}")
    langs = list(LANG_SHARES)
    weights = list(LANG_SHARES.values())
    out: list[tuple[str, str]] = []
    for _ in range(n):
        lang = rng.choices(langs, weights=weights)[0]
        voc = _vocab(lang)
        roll = rng.random()
        if roll < 0.10:  # matches nothing
            words = [_nonsense_word(rng) for _ in range(rng.choice((1, 1, 2)))]
        elif roll < 0.28:  # "what is the omnissiah"
            opener = rng.choice(_QUERY_OPENERS[lang]).split()
            words = opener + [_query_word(rng, voc) for _ in range(max(1, min(2, 4 - len(opener))))]
            words = words[:4]
        else:
            words = [_query_word(rng, voc) for _ in range(rng.choice((1, 1, 1, 2, 2, 2, 3, 4)))]
            extra = rng.random()
            if extra < 0.05:  # a term from another tongue
                other = rng.choice([x for x in LANGS if x != lang])
                words[rng.randrange(len(words))] = _query_word(rng, _vocab(other))
            elif extra < 0.08:  # a typo-like nonsense word next to real ones
                words = [*words, _nonsense_word(rng)][:4]
        words = list(dict.fromkeys(w.lower() if rng.random() < 0.8 else w for w in words))
        query = " ".join(words)
        style = rng.random()
        if style < 0.08:
            query += "?"
        elif style < 0.11 and len(words) > 1:
            query = rng.choice(("-", ":", "+")).join(words)
        elif style < 0.13:
            query = rng.choice(("+", "", "")) + query + rng.choice(("~", "^2", "*", ""))
        out.append((query, lang))
    return out


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------


def index_stats(data: bytes) -> dict[str, dict[str, int]]:
    """Entries and distinct lower-cased word tokens per tongue of an index."""
    stats: dict[str, dict[str, int]] = {}
    tokens: dict[str, set[str]] = {}
    entries: Counter[str] = Counter()
    for entry in json.loads(data):
        lang = entry["url"].split("/")[1]
        entries[lang] += 1
        text = " ".join((entry["title"], entry["summary"], entry["body"])).lower()
        tokens.setdefault(lang, set()).update(re.findall(r"\w+", text))
    for lang in LANGS:
        stats[lang] = {"entries": entries[lang], "distinct_tokens": len(tokens.get(lang, ()))}
    return stats


def main(argv: list[str] | None = None) -> int:
    """Write a synthetic index and print its size, timing and per-tongue stats."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bytes", type=int, default=MAX_INDEX_BYTES, help="target size in bytes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="output file (default: stdout)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    data = generate_index(args.bytes, args.seed)
    elapsed = time.perf_counter() - started
    if args.out:
        args.out.write_bytes(data)
    else:
        sys.stdout.buffer.write(data)
    print(f"{len(data)} bytes in {elapsed:.2f} s", file=sys.stderr)
    for lang, row in index_stats(data).items():
        print(f"  {lang}: {row['entries']} entries, {row['distinct_tokens']} distinct tokens", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
