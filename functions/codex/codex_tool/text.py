"""Tokenizing Codex text in five tongues: casefolded Unicode words, stopwords known.

Inscriptions keep every token (so a query made only of stopwords can still
match); queries drop stopwords of all five tongues unless nothing else is left.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")

_STOPWORDS_TEXT = {
    "en": """a about above after again against all am an and any are as at be because been before
        being below between both but by can could did do does doing down during each few for from
        further had has have having he her here hers herself him himself his how i if in into is it
        its itself just me more most my myself no nor not now of off on once only or other our ours
        out over own same she should so some such than that the their theirs them themselves then
        there these they this those through to too under until up very was we were what when where
        which while who whom why will with would you your yours tell show find about s t""",
    "de": """aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
        anderes auch auf aus bei bin bis bist da damit dann das dass dein deine dem den denn der des
        dessen dich die dies diese diesem diesen dieser dieses dir doch dort du durch ein eine einem
        einen einer eines er es etwas euch euer für gegen hab habe haben hat hatte hier hin hinter ich
        ihm ihn ihnen ihr ihre im in indem ins ist jede jedem jeden jeder jedes jener jetzt kann kein
        keine mein meine mich mir mit muss nach nicht nichts noch nun nur ob oder ohne sehr sein seine
        sich sie sind so solche soll sondern sonst über um und uns unser unter vom von vor war waren
        warum was weil welche welchem welchen welcher welches wenn wer werden wie wieder will wir wird
        wo wollen zu zum zur zwischen""",
    "eo": """al ajn ankaŭ antaŭ apud aŭ ĉar ĉe ĉi ĉiu ĉio ĉu da de dum el en estas estis estos far
        ĝi ili iu jam je kaj ke kiam kie kio kiu kiel kiom krom kun la li mi ne ni nek nu ol per pli
        plej por post pri pro sed si sia sian siaj sub super sur tamen tiam tie tio tiu tra tre vi
        unu kion kiun kiuj tiuj ĉiuj""",
    "no": """alle at av bare begge ble blei bli blir blitt både da de deg dei deim deira deires dem
        den denne der dere deres det dette di din disse ditt du dykk dykkar då eg ein eit eitt eller
        elles en ene eneste enhver enn er et ett etter for fordi fra før ha hadde han hans har hennar
        henne hennes her hjå ho hoe honom hoss hossen hun hva hvem hver hvilke hvilken hvis hvor
        hvordan hvorfor i ikke ikkje ingen ingi inkje inn inni ja jeg kan kom korleis korso kun kunne
        kva kvar kvarhelst kven kvi kvifor man mange me med medan meg meget mellom men mi min mine
        mitt mot mykje ned no noe noen noka noko nokon nokor nokre nå når og også om opp oss over på
        samme seg selv si sia sidan siden sin sine sitt sjøl skal skulle slik so som somme somt så
        sånn til um upp ut uten var vart varte ved vere verte vi vil ville vore vors vort vår være
        vært å""",
    "uk": """а або адже але б без би був була були було бути в вам вас ви від вона вони воно все
        всі він де для до є ж за з зі й і із її їх йде його йому к коли котрий кожен ми мене
        мені мій на над нам нас не неї нею ним них ні ну о об однак от по при про та так також там
        те теж тим ти то тобто той того тому ту у хто це цей ці цим цих цю ця чи що щоб як яка які
        який яко є ще цього таке такий така такі""",
}

#: Stopwords of en, de, eo, no and uk, casefolded.
STOPWORDS: frozenset[str] = frozenset(word.casefold() for words in _STOPWORDS_TEXT.values() for word in words.split())


def tokenize(text: str) -> list[str]:
    """Split ``text`` into casefolded word tokens (letters and digits of any script)."""
    return _WORD.findall(text.casefold())


#: At most this many distinct terms of a query are searched (bounds work and score size).
MAX_QUERY_TERMS = 16


def query_terms(query: str, max_terms: int = MAX_QUERY_TERMS) -> list[str]:
    """Distinct query terms in order, stopwords dropped unless the query is only stopwords."""
    tokens = tokenize(query)
    content = [t for t in tokens if t not in STOPWORDS] or tokens
    return list(dict.fromkeys(content))[:max_terms]
