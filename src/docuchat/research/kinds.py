"""Kinds of answer: what kind of fact a question asks for, and the facts of each kind a text
states.

A question asks for a date ("when…"), a time ("at what time…"), a duration ("how long…",
"what notice period…"), an amount of money ("how much does it cost…", "what fee…"), a
percentage, a count of something ("how many stores…": a number counting stores), a quantity
of any kind ("what is the limit…"), a person ("who…", "which manager…"), a place or a name
("where…", "which supplier…"), an identifier ("what is the account number…") or a reason
("why…"). Questions whose wording names no kind (yes/no questions, "what are the terms of…")
ask for none, and any sentence may answer them.

The kind is read from the question's words: its question word, and else the noun that names
what is asked for ("what *fee*", "the notice *period*"). The lists below are the vocabulary
of those nouns, not answers to particular questions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from docuchat.research.text import STOPWORDS, fold
from docuchat.research.words import MONTHS, NUMBER_WORDS, stem

Kind = Literal[
    "date",
    "time",
    "duration",
    "money",
    "percent",
    "count",
    "quantity",
    "person",
    "name",
    "identifier",
    "reason",
]

_TENS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
_ONES = "one|two|three|four|five|six|seven|eight|nine"
_ONE_NUMBER = (
    rf"(?:\d[\d,]*(?:\.\d+)?|(?:{_TENS})-(?:{_ONES})|"
    + "|".join(sorted(NUMBER_WORDS | {"one", "a"}))
    + ")"
)
# as contracts write a number twice, in words and in figures: "forty-five (45) days"
_NUMBER = rf"{_ONE_NUMBER}(?:\s?\({_ONE_NUMBER}\))?"
_UNITS = (
    r"(?:(?:second|minute|hour|day|week|fortnight|month|quarter|year)s?"
    # as notes and tables abbreviate them: "4 hrs", "30 mins", "2 yrs", "48h"
    r"|(?:sec|min|hr|wk|mth|yr)s?|h)"
)
# Month names capitalised, as dates write them ("may" is a verb, "May" a month).
_MONTH = "|".join(m.capitalize() for m in sorted(MONTHS))
_SCALE = r"(?:\s?(?:m|bn|k|million|billion|thousand)\b)?"
_CLOCK = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_CURRENCY_CODES = (
    "AUD|BRL|CAD|CHF|CNY|CZK|DKK|EUR|GBP|HKD|INR|ISK|JPY|MXN|NOK|NZD|PLN|SEK|SGD|USD|ZAR"
)
"""ISO 4217 codes of the currencies business documents most often price in, written before
or after an amount ("AUD 750", "1,200 NZD"); in capitals only ("a cad 3 file" is no amount)."""
_PRICED = r"\d{1,3}(?:[ \u00a0]\d{3}(?!\d))+(?:[.,]\d+)?|\d(?:[\d,]*\d)?(?:\.\d+)?"
"""An amount after a currency: "4 500" as Nordic and French documents group thousands too
(groups of three digits exactly: "NOK 1 450 2026 fares" is 1 450)."""
_FINDERS: dict[str, re.Pattern[str]] = {
    "money": re.compile(
        # a share of an amount is an amount: "6% of salary"
        r"\b\d+(?:\.\d+)?\s?%\s+of\b|"
        # a sign, a sign after a country's letters ("NZ$", "A$") or a code before the amount
        rf"(?:\b(?-i:US|A|AU|NZ|C|CA|HK|S)\$|[£$€¥]|\b(?-i:{_CURRENCY_CODES}|kr)\.?\s?)\s?(?:{_PRICED}){_SCALE}"
        r"|\b\d[\d,]*(?:\.\d+)?" + _SCALE + r"\s?(?:p|pence|pounds|dollars|euros|cents|kroner"
        rf"|kronor|krone|francs|yen|rupees|kr|(?-i:{_CURRENCY_CODES}))\b",
        re.IGNORECASE,
    ),
    "percent": re.compile(r"\b\d+(?:\.\d+)?\s?(?:%|per ?cent\b|percentage points?\b|pts\b)"),
    "duration": re.compile(
        rf"\b{_NUMBER}(?:[\s-]+(?:business|working|calendar|clear|full|further))?[\s-]+{_UNITS}\b"
        r"|\b\d+(?:\.\d+)?(?:h|hrs?|mins?)\b|\b24\s?x\s?7\b|\bannual(?:ly)?\b|\b(?:month|week|dai|quarter|fortnight|year|hour)ly\b"
        # a day named by its place: "the next working day", "the same day"
        r"|\b(?:next|same|following)(?:\s+(?:business|working|calendar))?\s+day\b"
        r"|\bevery\s+(?:other\s+)?(?:day|week|fortnight|month|quarter|year)\b",
        re.IGNORECASE,
    ),
    "time": re.compile(
        r"\b\d{1,2}[:.]\d{2}\b(?:\s?(?:a\.m\.|p\.m\.|am|pm|gmt|utc|bst|cet))?"
        r"|\b\d{1,2}\s?(?:a\.m\.|p\.m\.|am|pm)(?!\w)|\b(?:midnight|noon|midday)\b"
        # in words: "half past eight", "a quarter to nine", "six o'clock", "six in the evening"
        rf"|\b(?:half|(?:a )?quarter) (?:past|to) {_CLOCK}\b|\b{_CLOCK} o['’]clock\b"
        rf"|\b{_CLOCK} in the (?:morning|afternoon|evening)\b",
        re.IGNORECASE,
    ),
    "date": re.compile(
        r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:" + _MONTH + r")\b(?:\s+\d{4})?"
        r"|\b(?:" + _MONTH + r")(?:\s+\d{1,2}(?:st|nd|rd|th)?,?)?\s+\d{4}\b"
        r"|\b(?:1\d{3}|20\d{2})s?\b|\bQ[1-4]\b|\b\d{4}-\d{2}-\d{2}\b"
        # written in figures: "01/08/2025", "1.8.25"
        r"|\b\d{1,2}([/.])\d{1,2}\1(?:\d{4}|\d{2})\b"
        r"|\b\d{1,2}(?:st|nd|rd|th)\b|\bcentur(?:y|ies)\b"
        r"|\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b"
        r"|\b(?:end|start|beginning|middle|mid)[\s-]+(?:of\s+)?(?:" + _MONTH + r")\b"
        r"|\b(?:" + _MONTH + r")\b",
    ),
    "quantity": re.compile(rf"\b\d[\d,]*(?:\.\d+)?\b|(?<!\w)[£$€]\d|\b{_NUMBER}\b(?!\s+of\b)"),
    "identifier": re.compile(
        r"\b(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z-])[A-Z0-9]+(?:-[A-Z0-9]+)+\b"
        r"|\+?\d[\d ()-]{7,}\d|\b[A-Z]{2,}\d{4,}\b|\b\d{6,}\b"
    ),
    "reason": re.compile(
        r"\b(?:because|due to|owing to|as a result|caused|cause|reasons?|so that|therefore"
        r"|thanks to|led to|since|in order to|given that|for (?:its|their|his|her))\b|,\s+so\b",
        re.IGNORECASE,
    ),
}
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’&-]*(?: (?:of )?[A-Z][\w'’&-]*)*")
_ROLE_WORDS = frozenset(
    "head manager officer director chair chairman chairwoman chairperson committee board "
    "team lead leader engineer controller counsel owner president secretary supervisor "
    "partner department".split()
)
_NOT_PERSONS = frozenset(
    "ltd limited inc plc llc llp gmbh group company corporation software services systems "
    "solutions agreement schedule contract policy report minutes committee board council "
    "department ministry university college school bank street road avenue room floor "
    "building centre center region".split()
)
"""Words that make a name one of an organisation, a document or a place."""
_NOT_A_PERSON_BEFORE = re.compile(r"(?:[\"“]|\b(?:in|at) (?:the )?)$", re.IGNORECASE)
"""What comes before a name that is no person's: a quotation mark (a contract's defined
term: the "Effective Date") or "in" and "at" (a place: "at the Wakefield centre")."""
_COUNT_WORDS = NUMBER_WORDS | {"one", "single"}
_CALENDAR_WORDS = MONTHS | {
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
}
_CURRENCY_SIGNS = frozenset("£$€¥")
_YEAR = re.compile(r"(?:1[89]|20)\d{2}")
_ANYTHING_NUMERIC = ("money", "percent", "duration", "quantity")


# ── what a question asks for ────────────────────────────────────────────────
_CUES: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (
        "reason",
        re.compile(
            r"\bwhy\b|\bwhat (?:caused|causes|was the cause|is the cause|led to|were the reasons"
            r"|was the reason|is the reason)\b|\bfor what reason\b|\bhow come\b"
        ),
    ),
    ("time", re.compile(r"\b(?:at )?what time\b")),
    (
        "duration",
        re.compile(
            r"\bhow (?:long|fast|quickly|soon|often|frequently)\b|\bhow much (?:notice|time)\b"
            r"|\bhow far (?:in advance|ahead)\b"
            r"|\bhow many (?:seconds|minutes|hours|days|weeks|months|years)\b"
            r"|\bwithin what (?:time|period)\b"
        ),
    ),
    (
        "date",
        re.compile(
            r"^(?:and |so )?when\b|\b(?:by|until|since|from|on) when\b|\bwhen (?:did|does|do|is|was"
            r"|will|are|were|must|should|can)\b|\b(?:what|which) (?:year|date|day|month|weekday)"
            r"\b|\buntil what\b|\bhow long ago\b"
        ),
    ),
    ("percent", re.compile(r"\bwhat (?:percentage|percent|proportion|share)\b|\bby how much\b")),
    ("count", re.compile(r"\bhow many\b")),
    ("person", re.compile(r"\b(?:who|whom)\b")),
    ("name", re.compile(r"^(?:and |so )?where\b|\bwhere (?:is|are|do|does|did|was|were|will)\b")),
)
_INCREMENT = re.compile(r"\bhow much (?:extra|more|less|additional|higher|lower)\b")
_PORTION = re.compile(r"\bhow much of (?:the|a|an|our|your|its|their|this|that)\b")
_NO_LONGER = re.compile(r"\b(?:no|any) longer\b")
"""Not a comparative: "a pass I no longer need" compares nothing."""
_MONEY_VERBS = frozenset(
    "cost costs pay paid pays paying spend spent spends charge charged charges sell sold "
    "earn earned lose lost owe owed invoice invoiced price priced worth".split()
)
_VALUE_NOUNS: dict[Kind, frozenset[str]] = {
    "money": frozenset("price prices cost costs fee fees charge charges cover spend".split()),
    "percent": frozenset("percentage share".split()),
    "duration": frozenset(
        "period periods terms duration time times notice timescale timeline window "
        "frequency".split()
    ),
    "date": frozenset("date dates deadline day year years decade century month era".split()),
    "quantity": frozenset(
        "limit limits rate rates maximum minimum total amount cap caps threshold value".split()
    ),
}
"""Nouns that name a value of a kind and nothing more ("the *limit*", "the notice *period*"):
a value of the kind is what they ask for, whatever words the text uses around it."""
IDENTIFIER_NOUNS = frozenset("number reference code id identifier password iban bic".split())
_HEAD_NOUNS: dict[Kind | None, frozenset[str]] = {
    "money": frozenset(
        "budget budgets revenue revenues sales profit profits salary salaries rent spending "
        "income turnover premium deductible expenditure capex contingency allowance".split()
    ),
    "percent": frozenset("margin availability growth uptime".split()),
    "duration": frozenset("retention".split()),
    "person": frozenset(
        "manager chair chairman chairwoman commander author owner contact director executive "
        "officer signatory sponsor controller counsel president secretary treasurer".split()
    ),
    "identifier": IDENTIFIER_NOUNS,
    "quantity": frozenset("score".split()),
    None: frozenset("rating excess".split()),
}
"""Nouns that name a thing of a kind ("what *budget*", "which *manager*", "the account
*number*"): a text that answers names it too (a budget is called a budget, an account number
an account number)."""
_CATEGORY_NOUNS: dict[Kind | None, frozenset[str]] = {
    "person": frozenset(
        "engineer engineers leader leaders person people member members employee employees "
        "individual individuals colleague colleagues".split()
    ),
    "name": frozenset(
        "region country city town location address place site law laws supplier suppliers "
        "vendor company provider store stores product scanners scanner system platform "
        "insurer bank airline agency centre center organization organisation".split()
    ),
}
"""Nouns of categories whose members have names ("which *supplier*", "what *organization*"):
naming a member answers, whether or not the text says "supplier"."""
_COMPARATIVES: dict[Kind, frozenset[str]] = {
    "duration": frozenset("longer shorter faster slower sooner later quicker".split()),
    "money": frozenset("cheaper dearer costlier pricier".split()),
    "quantity": frozenset("higher lower more less bigger smaller larger greater fewer".split()),
}
_SUPERLATIVES: dict[Kind, frozenset[str]] = {
    "duration": frozenset("longest shortest fastest slowest soonest quickest".split()),
    "money": frozenset("cheapest dearest costliest".split()),
    "quantity": frozenset("highest lowest biggest smallest largest greatest fewest".split()),
}
"""What a comparison of three or more compares ("which supplier gives us the *longest* to
pay: A, B or C?"); of no comparison, a superlative asks for a name ("the highest mountain")."""
VALUE_NOUNS = frozenset().union(*_VALUE_NOUNS.values())
NAMED_NOUNS = frozenset().union(*_HEAD_NOUNS.values())
COMPARATIVES = frozenset().union(*_COMPARATIVES.values())


_WH = re.compile(r"\b(?:what|which|whose)\b")
_PHRASE_START = re.compile(
    r"\b(?:how much|compare|how (?:do|does|did)|who (?:is|was|are|were|will be))\b"
)
_LEAD_IN = frozenset("s is are was were the a an our your its their".split())
_OBJECT_STARTS = frozenset("the a an us our your their its this that these those".split())
_STOP_HEAD = frozenset(
    "and or of for per in on at to from by with under about after before during between "
    "into over than within without via against towards toward across along around through "
    "when where while if because unless does do did is are was were will "
    "would can could should must has have had we i you our my they it this that".split()
)


def expected_kind(question: str) -> Kind | None:
    """The kind of fact ``question`` asks for, or None when its words name none."""
    lowered = fold(question).lower().strip()
    for kind, cue in _CUES:
        if cue.search(lowered):
            if kind == "count" and re.search(r"\bhow many (?:times|more|fewer)\b", lowered):
                return "quantity"
            return kind
    said = re.findall(r"[a-z][a-z'’-]*", lowered)
    head = asked_for(question)
    named: Kind | None = next(
        (
            k
            for table in (_VALUE_NOUNS, _HEAD_NOUNS, _CATEGORY_NOUNS)
            for k, nouns in table.items()
            if head and head[-1] in nouns and k is not None
        ),
        None,
    )
    if head == ("number",):  # "exceeds what *number*": a quantity, not an account number
        named = "quantity"
    if named is None:
        named = comparative_kind(question)
    if _INCREMENT.search(lowered) or _PORTION.search(lowered):
        # "how much extra", "how much of the price": an amount, or a share of one
        return "quantity"
    # a verb of money inside the phrase asked for only describes it: "how much *paid* leave"
    money = bool(_MONEY_VERBS.intersection(said).difference(head[:-1]))
    if named in (None, "quantity") and money and (_WH.search(lowered) or "how much" in lowered):
        return "money"
    if named is None and re.search(r"\bhow much\b", lowered):
        return "quantity"
    return named


def comparative_kind(question: str, *, comparing: bool = False) -> Kind | None:
    """The kind of fact a comparative of ``question`` compares: "faster" durations,
    "cheaper" amounts of money, "higher" quantities; when ``comparing`` (the question names
    its subjects side by side), a superlative's too ("the longest"); None when it has none."""
    lowered = _NO_LONGER.sub(" ", fold(question).lower().strip())
    said = set(re.findall(r"[a-z][a-z'’-]*", lowered))
    tables = (_COMPARATIVES, _SUPERLATIVES) if comparing else (_COMPARATIVES,)
    return next((k for t in tables for k, words in t.items() if words & said), None)


def asked_for(question: str) -> tuple[str, ...]:
    """The words that name what is asked for, lower-cased: the noun phrase after "what",
    "which", "how much" or "who is" ("what *warranty period* does…", "what is the *monthly
    limit* on…", "Acme's *payment terms*", "who is our *account manager*"); empty when there
    is none."""
    lowered = fold(question).lower().replace("’", "'")
    found = _WH.search(lowered) or _PHRASE_START.search(lowered)
    if found is None:
        return ()
    following = re.findall(r"[a-z0-9][a-z0-9'-]*", lowered[found.end() :])
    phrase: list[str] = []
    for i, word in enumerate(following):
        if word in _LEAD_IN and not phrase:
            continue
        if word in _STOP_HEAD:  # "what *did* the team learn": no noun names it
            break
        if word.endswith("'s"):  # the owner, not the thing asked for: "Acme's payment terms"
            phrase = []
            continue
        # A verb before its object ("which law *governs* the contract"), or a verb in the past
        # before a preposition or at the end ("which director *voted* against"): it ends.
        after = following[i + 1] if i + 1 < len(following) else ""
        if phrase and (
            after in _OBJECT_STARTS or (word.endswith("ed") and (after in _STOP_HEAD or not after))
        ):
            break
        phrase.append(word)
    return tuple(phrase)


# ── what a text states ──────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class Found:
    kind: Kind
    text: str
    """The words of the sentence that hold the fact ("30 days", "£184,000")."""


def find(kind: Kind, text: str, question: str = "", counted: Sequence[str] = ()) -> Found | None:
    """The first fact of ``kind`` that ``text`` states and ``question`` does not already
    give; ``counted``: for a count, the stems of what is counted ("stores")."""
    given = fold(question).lower()
    for value in _values(kind, text, counted):
        # "Acme's" is the question's "Acme"
        if re.sub(r"['’]s$", "", value.lower()) not in given:
            return Found(kind, value)
    return None


def _values(kind: Kind, text: str, counted: Sequence[str]) -> list[str]:
    folded = fold(text)
    if kind == "count":
        return _counts(folded, counted)
    if kind == "name":
        return [m.group() for m in _NAME.finditer(folded)]
    if kind == "person":
        names = [
            m.group()
            for m in _NAME.finditer(folded)
            if _may_be_person(m.group()) and not _NOT_A_PERSON_BEFORE.search(folded[: m.start()])
        ]
        return names + [w for w in re.findall(r"[a-z]+", folded.lower()) if w in _ROLE_WORDS]
    if kind == "quantity":
        dated = _spans(folded, ("date", "time"))
        return [
            m.group().strip()
            for k in _ANYTHING_NUMERIC
            for m in _FINDERS[k].finditer(folded)
            if not any(start <= m.start() < end for start, end in dated)
        ]
    if kind == "date":
        return [m.group() for k in ("date", "time") for m in _FINDERS[k].finditer(folded)]
    return [m.group() for m in _FINDERS[kind].finditer(folded)]


def _spans(text: str, kinds: Sequence[str]) -> list[tuple[int, int]]:
    return [m.span() for k in kinds for m in _FINDERS[k].finditer(text)]


def _may_be_person(name: str) -> bool:
    """Not an acronym ("TLS"), a month, a day, a word that opens a clause ("Because") or a
    name of an organisation, a document or a place ("Logistics Software", "the Software
    Subscription Agreement", "Room 3B"): a name a person may have."""
    said = name.split()
    first = said[0].lower()
    return (
        not said[0].isupper()
        and first not in _CALENDAR_WORDS
        and first not in STOPWORDS
        and not _NOT_PERSONS.intersection(w.lower() for w in said)
    )


def _counts(text: str, counted: Sequence[str]) -> list[str]:
    """Numbers followed, within five words, by a word for what is counted ("250 Named
    Users", "12 days of on-site training", "5 University of California campuses"), or a
    whole number right after it, as lists and tables put them ("Buses: 212", "Number of
    buses 212"); in figures or in words ("sixty-four")."""
    matches = list(re.finditer(r"[\w'’.,:-]+", text))
    tokens = [m.group() for m in matches]
    found = []
    for i, token in enumerate(tokens):
        if text[max(0, matches[i].start() - 1) : matches[i].start()] in _CURRENCY_SIGNS:
            continue  # "£350,000" is an amount, not a count
        bare = token.strip(".,").lower()
        beside = {t.strip(".,").lower() for t in tokens[max(0, i - 1) : i + 2]}
        if beside & MONTHS:  # a day of the month ("14 March"), not a count
            continue
        if not (
            re.fullmatch(r"\d[\d,]*(?:\.\d+)?", bare) or _COUNT_WORDS.issuperset(bare.split("-"))
        ):
            continue
        after = [stem(t.strip(".,:").lower()) for t in tokens[i + 1 : i + 6]]
        # a whole number right after what it counts ("Buses: 212"), not a year ("Buses ran
        # in 1998") or a version ("People & Culture, version 4.2")
        whole = re.fullmatch(r"\d[\d,]*", bare) and not _YEAR.fullmatch(bare)
        before = tokens[i - 1 : i] if whole and i else []
        if any(t in after or t in [stem(b.strip(".,:").lower()) for b in before] for t in counted):
            found.append(token.strip(".,"))
    return found


__all__ = [
    "COMPARATIVES",
    "IDENTIFIER_NOUNS",
    "NAMED_NOUNS",
    "VALUE_NOUNS",
    "Found",
    "Kind",
    "asked_for",
    "comparative_kind",
    "expected_kind",
    "find",
]
