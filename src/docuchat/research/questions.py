"""What a question asks: its parts, and for each the kind of fact wanted and what it is about.

- A **two-part** question ("What is the RPO, and how long are monthly backups kept?") has
  a part per clause; a later clause borrows the earlier one's terms at half weight ("which
  one closed?" is about the store of the first clause).
- A **comparison** ("Compare the notice periods of Acme and Brightline", "Who responds
  faster, Corvid or Acme?", "Where do Acme, Brightline and Corvid each host our data?")
  has a part per named subject: the question's other terms with that subject's name;
  subjects named together without a comparing word ("When did the Acme and Brightline
  agreements take effect?") are also the question as one part (``Asked.together``).
- A **follow-up** that leans on the conversation ("And Brightline's?", "Who wrote the
  review?") borrows the previous question's terms at half weight and its kind when it names
  none; a name of its own replaces the previous question's names ("And in Manchester?"
  after a question about London).

Each part has *names* (capitalised words, dates and codes: what it is about, which the
evidence must name) and *terms* (every key word, names included, with a weight), the kind of
fact it asks for (``kinds``) and the words that name what is asked for.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from docuchat.models.base import Message, UserMessage
from docuchat.research.kinds import (
    COMPARATIVES,
    IDENTIFIER_NOUNS,
    NAMED_NOUNS,
    Kind,
    asked_for,
    comparative_kind,
    expected_kind,
)
from docuchat.research.text import FIRST_PERSON, WEAK_NEGATION, fold, numbers
from docuchat.research.words import MONTHS, PRONOUNS, bare, is_key, stem, words

BORROWED = 0.5
"""The weight of a term taken from another clause or the previous question."""
CHOOSING_KINDS: frozenset[Kind | None] = frozenset({"person", "name"})
"""The kinds "who" and "which" ask for, which in a comparison name the subject chosen."""

_SPLIT = re.compile(
    r",?\s+(?:and|but)\s+(?=(?:(?:by|at|in|for|from|on|to|with|within|until|after|before)\s+)?"
    r"(?:what|which|who|whom|whose|when|where|why|how)\b)|;\s+",
    re.IGNORECASE,
)
_COMPARING = re.compile(
    r"\b(?:compare[sd]?|comparison|differ|differs|difference|different|versus|vs|each|both"
    r"|respectively|than)\b|\b\w+er\b.*\bor\b|\bwhich\b.*\bor\b|\bor\b[^,]*\?\s*$",
    re.IGNORECASE,
)
# A name: capitalised words ("New York", "Q2 2025"), joined by "of" or "&" inside.
_NAME = r"(?:[A-Z][\w'’&.-]*|\d[\w'’-]*)(?:\s+(?:of\s+|&\s+)?(?:[A-Z][\w'’&.-]*|\d{4}\b))*"
_SUBJECTS = re.compile(
    rf"(?:the\s+)?(?P<first>{_NAME})(?P<middle>(?:(?:,|\s+(?:vs\.?|versus))\s+(?:the\s+)?{_NAME})*)"
    r",?\s+(?:and|or|vs\.?"
    rf"|versus)\s+(?:(?:in|at|for|of|from|with|the)\s+)?(?P<last>{_NAME})"
)
_COMPARING_WORDS = (
    frozenset(
        "compare compared compares comparison differ differs difference different versus vs each "
        "both respectively".split()
    )
    | COMPARATIVES
)
_NAME_RUN = re.compile(
    r"(?:[A-Z][\w&-]*|[\w-]*\d[\w-]*)(?:\s+(?:[A-Z][\w&-]*|\d[\w-]*))*", re.UNICODE
)
_THAN = re.compile(
    rf"\s*,?\s*\b(?:than|compared\s+(?:with|to))\s+(?:(?:that|those)\s+of\s+)?"
    rf"(?:(?:in|at|for|from|on|during|under|with)\s+)?(?:the\s+)?"
    rf"(?P<last>{_NAME})"
)
Compared = tuple[tuple[str, ...], tuple[str, ...]]
"""A comparison's subjects, and the question asked of each alone."""
_PHRASE_TOKEN = re.compile(r"[\w'’](?:[\w'’./-]*[\w'’])?|[^\w\s]")
_PHRASE_ENDS = frozenset(",;:?!()-–—/.")
_PHRASE_JOINS = frozenset({"or", "vs", "versus", "and"})
_PHRASE_LEADS = frozenset(
    "the a an our your their its this that these those in at for of on from with".split()
)
_COMPARED_BY_AND = re.compile(
    r"\b(?:compare[sd]?|comparison|differ|differs|difference|different|both)\b",
    re.IGNORECASE,
)
_OPENER = re.compile(r"^\s*(?:and|but|also|so|what about|how about|what of)\b", re.IGNORECASE)
_PREPOSITIONS = frozenset(
    "in at for of on from with to outside inside during before after under over by within".split()
)
_ACROSS = re.compile(
    r"\b(?:two|three|both|each|either|which)\s+(?:of\s+(?:the|our|these|those)\s+)?"
    r"(?:(?:the|our|these|those)\s+)?(?:[\w-]+\s+)?(?P<noun>contracts?|agreements?|suppliers?"
    r"|vendors?|providers?|proposals?|policies|policy|offers?|quotes?|documents?|partners?"
    r"|companies|company)\b",
    re.IGNORECASE,
)
"""Documents compared by a common noun: "the two contracts", "which supplier", "both
proposals", "each of our agreements"."""
_SEVERAL = frozenset("two three both each either".split())
_FOLLOW_UP = re.compile(r"^\s*(?:and|so|what about|how about|also)\b", re.IGNORECASE)
_YES_NO = re.compile(
    r"^(?:do|does|did|is|are|was|were|can|could|has|have|had|will|would|should|may|must)\b",
    re.IGNORECASE,
)
_CODE = re.compile(r"\d")
_CODE_WORD = re.compile(r"\b[A-Za-z]+\d\w*")
"""A code whose digits are no figure: "Q2", "P1"."""
_NOT = re.compile(r"\b(?:not|never)\b|n['’]t\b", re.IGNORECASE)
_KIND_WORDS = re.compile(
    r"\bhow (?:long|much|many|fast|quickly|soon|far|often|old|big|large)\b", re.IGNORECASE
)
_PLAIN_NUMBER = re.compile(r"\d[\d,.]*")
_YEAR = re.compile(r"(?:1[89]|20)\d{2}")
_LONG_ANSWER = re.compile(r"\b(list|summari[sz]e|summary|explain|describe|outline)\b", re.I)


@dataclass(frozen=True, slots=True)
class Part:
    """One thing the question asks."""

    text: str
    kind: Kind | None
    """The kind of fact wanted, or None when any sentence on the subject may answer."""
    terms: Mapping[str, float]
    """Stems of the key words with a weight (1, or ``BORROWED``)."""
    named: tuple[tuple[str, ...], ...]
    """The names, dates and codes the part is about, each as the stems of its words ("new",
    "york"): evidence must name them (a name of several words may lack one)."""
    asked_for: tuple[str, ...] = ()
    """Stems of the words that name what is asked for ("payment terms", "account number")."""
    head: tuple[str, ...] = ()
    """The words that name the thing asked for when a text that states it would name it too
    (``kinds.NAMED_NOUNS``): "the chief *executive*", "the *budget*", and with the word
    before an identifier's noun: "the *account number*", "the *dress code*" (not "the monthly
    limit": any amount names a limit; not "which organization": naming one answers)."""
    counted: tuple[str, ...] = ()
    """For a count: stems of what is counted ("how many *named users*")."""
    negated: bool = False
    """The part asks about what is not so ("Who did *not* design the bridge?")."""
    figures: frozenset[str] = frozenset()
    """The numbers the part states ("below *99.9*%", "a claim for £*3000*"): evidence must
    state them, or a range that holds them."""
    subject: str = ""
    """A comparison's subject, as the question names it ("Acme")."""
    keywords: tuple[str, ...] = ()
    """The key words as written, its own first: what to search for."""
    borrowed: tuple[str, ...] = ()
    """Those of ``keywords`` borrowed from another clause or the previous question."""

    @property
    def names(self) -> frozenset[str]:
        """The stems of every word of every name."""
        return frozenset(w for name in self.named for w in name)


@dataclass(frozen=True, slots=True)
class Asked:
    text: str
    parts: tuple[Part, ...]
    comparison: bool = False
    yes_no: bool = False
    wants_more: bool = False
    """Asks for a list, a summary or an explanation."""
    follow_up: bool = False
    """Leans on the previous question."""
    subjects: tuple[str, ...] = field(default=())
    together: Part | None = None
    """For subjects named together without a word that compares them ("When did the Acme
    and Brightline agreements take effect?"): the question as one part, which a sentence
    that names them all may answer at once; else each subject's part is answered."""

    across: bool = False
    """Compares the documents it names by a common noun, not by their names ("the two
    contracts", "which supplier", "both proposals"): each document opened is a subject,
    answered by its own best sentence."""

    def as_one(self) -> Asked | None:
        """The question as one part about all its subjects together, when it names them so."""
        if self.together is None:
            return None
        return replace(self, parts=(self.together,), comparison=False, subjects=(), together=None)

    @property
    def terms(self) -> dict[str, float]:
        """Every part's terms (the largest weight of each)."""
        merged: dict[str, float] = {}
        for part in self.parts:
            for term, weight in part.terms.items():
                merged[term] = max(weight, merged.get(term, 0.0))
        return merged


def meant(part: Part, asked: Asked) -> str:
    """What a part asks, as compared with sentences by meaning: its text, and for a
    follow-up the words it borrows."""
    return " ".join([part.text, *part.borrowed]) if asked.follow_up else part.text


def earlier_questions(history: Sequence[Message]) -> list[str]:
    """The user's questions in a conversation's history, oldest first (not the prompts the
    runtime injects)."""
    return [m.content for m in history if isinstance(m, UserMessage) and m.origin == "user"]


def tool_budget(asked: Asked, default: int, kept_open: int = 3) -> int:
    """The tool calls a question needs: ``default``, or for a comparison a search and an
    opened passage per subject (at most ``kept_open`` subjects: the passages the runtime
    keeps in full)."""
    return max(default, 2 * min(len(asked.subjects), kept_open))


def analyse(question: str, earlier: Sequence[str] = ()) -> Asked:
    """What ``question`` asks; ``earlier``: the conversation's previous questions, oldest
    first, for a follow-up that leans on them."""
    previous = analyse(earlier[-1], earlier[:-1]) if earlier else None
    text = question.strip()
    follow_up = previous is not None and _leans(text)
    if follow_up and previous is not None:
        resolved = _substituted(text, previous.text)
        if resolved is not None:
            return replace(analyse(resolved), follow_up=True)
        rephrased = _rephrased(text, previous.text)
        if rephrased is not None:
            return _naming(replace(analyse(rephrased[0]), follow_up=True), rephrased[1])
    clauses = [c for c in _SPLIT.split(text) if c.strip()] or [text]
    comparing = bool(_COMPARING.search(text))
    compared = _subjects(text, comparing=comparing) if comparing or len(clauses) == 1 else None
    subjects: tuple[str, ...] = ()
    together = None
    across = None if compared is not None else _across_documents(text, comparing)
    if compared is not None:
        subjects, asked_of = compared
        parts = _compared(text, subjects, asked_of)
        together = None if comparing else _part(text)
    elif across is not None and len(clauses) == 1:
        parts = [_across(text, across.group())]
    else:
        across = None
        parts = [_part(clauses[0])]
        for clause in clauses[1:]:
            parts.append(_borrowing(_part(clause), parts[0], follow_up=False))
    if follow_up and previous is not None:
        parts = [_borrowing(p, previous.parts[0], follow_up=True) for p in parts]
    return Asked(
        text=text,
        parts=tuple(parts),
        comparison=bool(subjects),
        yes_no=bool(_YES_NO.match(text)) and " or " not in text.lower(),
        wants_more=bool(_LONG_ANSWER.search(text)),
        follow_up=follow_up,
        subjects=subjects,
        together=together,
        across=across is not None,
    )


def _substituted(question: str, previous: str) -> str | None:
    """A follow-up that names something else asks the previous question of it: "And
    Brightline's?" after "What are Acme's payment terms?" asks "What are Brightline's
    payment terms?". The name replaced is the previous question's name of the same form
    (a code for a code: "P3" for "P1"), else its first; None unless the follow-up has one
    name and the previous question has some."""
    new, old = _name_runs(question), _name_runs(previous)
    if len(new) != 1 or not old:
        return None
    coded = bool(_CODE.search(new[0].group()))
    same = [m for m in old if bool(_CODE.search(m.group())) == coded] or old
    return f"{previous[: same[0].start()]}{new[0].group()}{previous[same[0].end() :]}"


def _naming(asked: Asked, phrase: str) -> Asked:
    """``asked`` with ``phrase`` a name its evidence must hold, as a name a follow-up puts in
    place of another is: what the follow-up asks about ("And from *interstate*?" is not
    answered by what is said of working from overseas)."""
    name = tuple(stem(w) for w in words(phrase) if is_key(w))
    return replace(asked, parts=tuple(replace(p, named=(*p.named, name)) for p in asked.parts))


def _rephrased(question: str, previous: str) -> tuple[str, str] | None:
    """A follow-up that is only a phrase ("And for the security gates?", "And the app store
    approval risk?", "What about outside business hours?") asks the previous question of
    it: in place of the previous question's phrase after the same preposition ("for a
    chilled display cabinet"), else of its phrase with the same last word ("the WMS data
    quality risk"), else with the phrase added when it has a preposition the previous
    question lacks; and the phrase. None when the follow-up is more than that."""
    opened = _OPENER.match(question)
    if opened is None:
        return None
    tokens = list(_PHRASE_TOKEN.finditer(question, opened.end()))
    lead = bare(tokens[0].group()) if tokens else ""
    preposition = lead if lead in _PREPOSITIONS else ""
    phrase = _phrase_words(tokens[1:] if preposition else tokens, skip_lead=True)
    rest = [t for t in tokens if t.start() >= phrase[-1].end()] if phrase else []
    if not phrase or any(t.group() not in "?.!" for t in rest):
        return None
    said = question[phrase[0].start() : phrase[-1].end()]
    earlier = list(_PHRASE_TOKEN.finditer(previous))
    for i, token in enumerate(earlier):
        if preposition and bare(token.group()) == preposition:
            # The phrase after the preposition, its determiner too ("for *a* chilled…").
            old = _phrase_words(earlier[i + 1 :], skip_lead=True)
            if old and i + 1 < len(earlier):
                said = question[tokens[1].start() : phrase[-1].end()]
                old = [earlier[i + 1], *old]
        elif not preposition and stem(bare(token.group())) == stem(bare(phrase[-1].group())):
            old = _phrase_words(earlier[i::-1])[::-1]
        else:
            continue
        if old:
            return f"{previous[: old[0].start()]}{said}{previous[old[-1].end() :]}", said
    if not preposition:
        return None
    end = previous.rstrip().rstrip("?.!")
    return f"{end} {preposition} {said}{previous[len(end) :]}", said


def _name_runs(text: str) -> list[re.Match[str]]:
    """The names of ``text`` after its first word: runs of capitalised words and codes."""
    first = re.match(r"\s*\S+", text)
    return [
        m
        for m in _NAME_RUN.finditer(text, first.end() if first else 0)
        if m.group() not in FIRST_PERSON
    ]


def _leans(question: str) -> bool:
    """A follow-up: "And…", "What about…", a pronoun, or at most two key words of its own."""
    said = words(question)
    own = [w for w in said if is_key(w)]
    return bool(_FOLLOW_UP.match(question)) or len(own) <= 2 or any(w in PRONOUNS for w in said)


def _part(clause: str) -> Part:
    kind = expected_kind(clause)
    # The question words of the kind are no terms: "how *long*…", "how *many*…".
    said = words(_KIND_WORDS.sub(" ", clause))
    terms = {stem(w): 1.0 for w in said if is_key(w)}
    counted: tuple[str, ...] = ()
    if kind == "count":
        counted = _counted(clause)
    named = tuple(n for n in _names(clause) if set(n) <= terms.keys())
    phrase = [w for w in asked_for(clause) if is_key(w)]
    last = phrase[-1] if phrase else ""
    # "what *number*" asks for a quantity; "the account *number*" names an identifier.
    names_it = last in NAMED_NOUNS and (last != "number" or len(phrase) > 1)
    head = tuple(phrase[-2:] if last in IDENTIFIER_NOUNS else phrase[-1:]) if names_it else ()
    return Part(
        text=clause,
        kind=kind,
        terms=terms,
        keywords=tuple(dict.fromkeys(w for w in said if is_key(w))),
        named=named,
        asked_for=tuple(stem(w) for w in phrase),
        head=head,
        counted=counted,
        figures=numbers(_CODE_WORD.sub(" ", clause)) - set().union(*(set(n) for n in named)),
        # "working from home or not" asks of either case, not of what is not so
        negated=bool(_NOT.search(WEAK_NEGATION.sub(" ", clause.lower()))),
    )


def _counted(clause: str) -> tuple[str, ...]:
    """Stems of what a count asks for: the key words of the three after "how many", up to a
    name after them ("how many *named users* does…"; "how many *stores* did Fennimore
    have": not Fennimore, the count's owner)."""
    after = re.split(r"\bhow many\b", fold(clause), maxsplit=1, flags=re.IGNORECASE)[-1]
    found: list[str] = []
    for word in re.findall(r"[\w'’-]+", after)[:3]:
        if word[0].isupper() and found:
            break
        bare = words(word)
        if bare and is_key(bare[0]):
            found.append(stem(bare[0]))
    return tuple(found)


def _names(text: str) -> list[tuple[str, ...]]:
    """The stems of each name: a run of capitalised words after the first ("Acme", "New
    York"), a code ("Q2", "P1", "INC-2025-0314"), a year, a day of the month ("*21*
    March"); not amounts and counts ("£3,000", "10,000 miles", "25 users"), which a text may
    state otherwise."""
    tokens = re.findall(r"\d[\d,.]*\d|[\w'’&-]+", fold(text))
    found: list[list[str]] = []
    joined = False
    for i, token in enumerate(tokens):
        bare = re.sub(r"['’]s$", "", token)
        capital = i > 0 and bare[:1].isupper() and bare not in FIRST_PERSON
        coded = bool(_CODE.search(bare)) and not _PLAIN_NUMBER.fullmatch(bare)
        dated = bool(_YEAR.fullmatch(bare)) or (
            bare.isdigit() and any(t.lower() in MONTHS for t in tokens[i - 1 : i + 2] if t)
        )
        if capital or coded or dated:
            stems = [stem(w) for w in words(bare)]
            if joined and capital:
                found[-1] += stems
            else:
                found.append(stems)
        joined = (capital or coded or dated) and bare == token
    return [tuple(name) for name in found if name]


def _borrowing(part: Part, other: Part, *, follow_up: bool) -> Part:
    """``part`` with ``other``'s terms at half weight. A clause of the same question keeps
    its own kind and names (the first clause's names stay out of the second's terms); a
    follow-up takes ``other``'s kind when it names none, and its names when it has none of
    its own ("And after that?"; "And in Manchester?" replaces London)."""
    keep_names = follow_up and not part.named
    borrowed = {t: BORROWED for t in other.terms if t not in part.terms}
    if not keep_names:
        borrowed = {t: w for t, w in borrowed.items() if t not in other.names}
    surface = tuple(w for w in other.keywords if stem(w) in borrowed)
    taken = replace(
        part,
        terms={**part.terms, **borrowed},
        keywords=(*part.keywords, *surface),
        borrowed=(*part.borrowed, *surface),
    )
    if not follow_up:
        return taken
    return replace(
        taken,
        named=part.named + (other.named if keep_names else ()),
        kind=part.kind or other.kind,
        asked_for=part.asked_for or other.asked_for,
        head=part.head or other.head,
        counted=part.counted or other.counted,
    )


def _subjects(question: str, *, comparing: bool = False) -> Compared | None:
    """The names a comparison puts side by side ("Acme and Brightline", "Acme, Brightline
    and Corvid", "Corvid or Acme", "in Q2 2025 or in Q2 2024", "Acme… than Brightline")
    and the question asked of each; when ``comparing`` and it names none so, the phrases it
    does (``_phrases``)."""
    for match in _SUBJECTS.finditer(question):
        middle = re.findall(_NAME, match.group("middle") or "")
        found = [match.group("first"), *middle, match.group("last")]
        found = [re.sub(r"['’]s$", "", name).rstrip(".,;:?!") for name in found]
        if len(set(found)) >= 2 and all(_names(f"of {name}") for name in found):
            subjects = tuple(dict.fromkeys(found))
            return subjects, _asked_of(question, subjects, match.span())
    if not comparing:
        return None
    return _than(question) or _phrases(question)


def _asked_of(question: str, subjects: Sequence[str], span: tuple[int, int]) -> tuple[str, ...]:
    """The question asked of each subject alone: the span naming them all replaced by its
    name ("Compare the notice periods of Acme")."""
    return tuple(f"{question[: span[0]]}{subject}{question[span[1] :]}" for subject in subjects)


def _than(question: str) -> Compared | None:
    """Two names compared by "than" or "compared with" ("Is Acme's notice period longer
    than Brightline's?"): the one after it and the last name of the same form before it
    (a code for a code); the question without the "than…" asked of each."""
    match = _THAN.search(question)
    if match is None:
        return None
    last = match.group("last")
    coded = bool(_CODE.search(last))
    first_word = re.match(r"\s*\S+", question)
    start = first_word.end() if first_word else 0
    named = re.compile(_NAME).finditer(question, start, match.start())
    earlier = [m for m in named if bool(_CODE.search(m.group())) == coded]
    if not earlier:
        return None
    first = earlier[-1]
    subjects = tuple(re.sub(r"['’]s$", "", n).rstrip(".,;:?!") for n in (first.group(), last))
    if subjects[0] == subjects[1] or not all(_names(f"of {name}") for name in subjects):
        return None
    rest = f"{question[: match.start()].rstrip()}{question[match.end() :]}"
    other = f"{rest[: first.start()]}{last}{rest[first.end() :]}"
    return subjects, (rest, other)


def _phrases(question: str) -> Compared | None:
    """Subjects a comparison names by phrases of any case ("the LED track spotlight or the
    emergency exit sign", "primary carer versus secondary carer", "cobaltline vs
    tallowwood payment terms") with a word that compares ("vs", "longer", "compare") or
    chooses ("which… or"): the key words either side of "or", "vs" or "versus" (of
    "and" only when a word such as "compare" asks for a comparison), up to a word that is
    none. The second phrase is at most as long as the first: what follows is what both are
    compared by ("tallowwood *payment terms*")."""
    said = set(words(question))
    if not (said & _COMPARING_WORDS or ({"which", "who"} & said and "or" in said)):
        return None
    tokens = list(_PHRASE_TOKEN.finditer(question))
    joins = _PHRASE_JOINS if _COMPARED_BY_AND.search(question) else _PHRASE_JOINS - {"and"}
    for i, token in enumerate(tokens):
        if token.group().lower().rstrip(".") not in joins:
            continue
        before = _phrase_words(tokens[i - 1 :: -1] if i else [])[::-1]
        after = _phrase_words(tokens[i + 1 :], skip_lead=True)[: len(before)]
        if not before or not after:
            continue
        found = [question[p[0].start() : p[-1].end()] for p in (before, after)]
        if fold(found[0]).lower() != fold(found[1]).lower():
            span = (before[0].start(), after[-1].end())
            return tuple(found), _asked_of(question, found, span)
    return None


def _phrase_words(
    tokens: Sequence[re.Match[str]], *, skip_lead: bool = False
) -> list[re.Match[str]]:
    """The key words at the start of ``tokens``, after one determiner or preposition when
    ``skip_lead`` ("or *the* emergency exit sign"; not "and *by how much*…", a clause)."""
    found: list[re.Match[str]] = []
    for token in tokens:
        word = bare(token.group())
        if is_key(word) and word not in _COMPARING_WORDS and token.group()[0] not in _PHRASE_ENDS:
            found.append(token)
        elif found or not skip_lead or word not in _PHRASE_LEADS:
            break
        else:
            skip_lead = False
    return found


def _across_documents(question: str, comparing: bool) -> re.Match[str] | None:
    """Where a question compares documents by a common noun: "the two contracts", "both
    proposals", or "which supplier" with a word that compares ("which supplier responds
    *faster*"; not "which supplier did the committee pick", a fact)."""
    found = _ACROSS.search(question)
    if found is None or bare(found.group().split()[0]) in _SEVERAL:
        return found
    return found if comparing or COMPARATIVES & set(words(question)) else None


def _across(question: str, noun: str) -> Part:
    """The part a comparison across documents asks of each: the question without the words
    that compare and those that name the documents ("two supplier contracts"), which they
    need not use; "which" asks for the fact its comparative compares, not for a name."""
    whole = _part(question)
    kind = comparative_kind(question) or whole.kind if whole.kind in CHOOSING_KINDS else whole.kind
    dropped = {stem(w) for w in _COMPARING_WORDS} | {stem(w) for w in words(noun)}
    return replace(
        whole,
        kind=kind,
        terms={t: w for t, w in whole.terms.items() if t not in dropped},
        keywords=tuple(w for w in whole.keywords if stem(w) not in dropped),
        head=() if set(whole.head) & set(words(noun)) else whole.head,
    )


def _compared(question: str, subjects: Sequence[str], asked_of: Sequence[str]) -> list[Part]:
    """A part per subject: the question's terms without the other subjects' names, and its
    text the question asked of that subject alone ("Compare the notice periods of Acme").
    "Who" or "which" picks among the subjects ("Who responds faster, Corvid or Acme?"):
    each part asks for the fact its comparative compares (a duration)."""
    whole = _part(question)
    if whole.kind in CHOOSING_KINDS:
        whole = replace(whole, kind=comparative_kind(question, comparing=True) or whole.kind)
    named = {s: tuple(stem(w) for w in words(s)) for s in subjects}
    every = frozenset().union(*named.values())
    framing = {stem(w) for w in _COMPARING_WORDS}
    shared = {t: w for t, w in whole.terms.items() if t not in every | framing}
    keywords = [w for w in whole.keywords if stem(w) in shared]
    parts = []
    for (subject, own), text in zip(named.items(), asked_of, strict=True):
        parts.append(
            replace(
                whole,
                text=text,
                terms={**shared, **dict.fromkeys(own, 1.0)},
                named=(*(n for n in whole.named if not every & set(n)), tuple(own)),
                subject=subject,
                keywords=(*words(subject), *keywords),
            )
        )
    return parts


__all__ = ["BORROWED", "Asked", "Part", "analyse", "earlier_questions", "meant", "tool_budget"]
