"""The offline model: a deterministic, extractive stand-in for a language model.

It speaks the research agent's tool protocol through the runtime like any
model and reads nothing but the request: the question (the last user message
that is not one of the runtime's own prompts), the results of this turn's
``search_docs`` and ``open_citation`` calls, and whether tools are offered.
Each call decides one step from the transcript alone:

1. search the question's key terms;
2. search once more with other words if that found nothing (the question as
   asked), or if no result shows the question's names and numbers (those
   alone);
3. open the most promising passages (up to three, in one response; the
   runtime keeps only the last three opened in full);
4. answer with the sentences of the opened passages that best answer the
   question (one or two, about 60 words at most, more when the question asks
   for a list or a summary), quoted verbatim with their ``[N]`` after the
   prefix "From the documents (extractive):", or say "The documents do not
   say." when the evidence is weak or contradicts the question.

Without tools (forced synthesis, the pipeline's answer step) it answers from
whatever passages the transcript holds. A follow-up that leans on the
conversation ("when was it built?") borrows the previous question's key terms.

Sentences are ranked by a linear score of lexical features (weighted question
term coverage in the sentence and its neighbours, whether it holds the kind of
answer asked for, the rank of its passage, ...); a list or table counts its
introduction as context ("…these limits per night:" then "London | £160").
The answer is withheld when the best sentence fails checks that mark a
question the documents do not answer: a number or name of the question that
it does not mention, a negation it does not share, a word of the question
swapped for its antonym or for another word inside an otherwise copied phrase,
a "who" question with the roles reversed. The weights were fitted on two SQuAD
2.0 articles and checked on a third (see the README's evaluation).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Literal

from docuchat.agent.prompts import EMPTY_RESPONSE_NUDGE, SYNTHESIS_PROMPT
from docuchat.models.base import (
    AssistantMessage,
    Message,
    ModelRequest,
    ModelResponse,
    StreamItem,
    TextDelta,
    TokenUsage,
    ToolCall,
    ToolResultsMessage,
    UserMessage,
)
from docuchat.models.tokens import JSON_CHARS_PER_TOKEN, PROSE_CHARS_PER_TOKEN, TokenEstimator
from docuchat.research.prompts import PIPELINE_PROMPT
from docuchat.research.text import STOPWORDS, sentence_spans, stem
from docuchat.research.text import words as plain_words

SEARCH = "search_docs"
OPEN = "open_citation"
PREFIX = "From the documents (extractive): "
ABSTAIN = "The documents do not say."
MAX_OPENS = 3  # the runtime keeps only the last three opened passages in full
ANSWER_WORDS = 60
LONG_ANSWER_WORDS = 150
LONG_ANSWER_SENTENCES = 5
RUNNER_UP_MARGIN = 2.0
HEADING_WORDS = 8
MIN_MATCHED_SHARE = 0.25

AnswerType = Literal["date", "number", "name"] | None

_RUNTIME_PROMPTS = frozenset({SYNTHESIS_PROMPT, EMPTY_RESPONSE_NUDGE, PIPELINE_PROMPT})
_RUNTIME_PREFIXES = ("Your output failed validation", "Respond by calling the")
# Words that frame a question rather than say what it is about.
_FRAMING = frozenset(
    "name named called call kind type sort example term word mean meaning refer refers".split()
)
_PRONOUNS = frozenset("it its they them their he him his she her this that these those".split())
_NEGATIONS = frozenset("not no never none nothing neither nor without cannot".split())
_NUMBER_WORDS = frozenset(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred hundreds thousand thousands million millions billion billions dozen "
    "dozens half quarter twice".split()
)
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
_ANTONYM_PAIRS = (
    "most least|more less|more fewer|higher lower|highest lowest|larger smaller|largest "
    "smallest|bigger smaller|biggest smallest|greater lesser|greatest least|best worst|better "
    "worse|first last|earliest latest|earlier later|early late|before after|increase decrease|"
    "rise fall|gain loss|win lose|won lost|victory defeat|north south|east west|northern "
    "southern|eastern western|upper lower|inner outer|major minor|maximum minimum|positive "
    "negative|strong weak|easy hard|easy difficult|easier harder|simple complex|common rare|"
    "commonly rarely|always never|all none|same different|true false|old new|oldest newest|"
    "ancient modern|medieval modern|private public|internal external|import export|accept "
    "reject|allow forbid|allow prohibit|success failure|succeed fail|include exclude|long "
    "short|longest shortest|wide narrow|high low|above below|inside outside|open closed|start "
    "end|begin end|birth death|born died|buy sell|bought sold|give receive|attack defend|rich "
    "poor|large small|big small|theoretical practical|theoretical experimental|general "
    "specific|past future|past present|left right|top bottom|hot cold|fast slow|heavy light|"
    "young old|male female|men women|husband wife|father mother|son daughter|brother sister|"
    "input output|open close|open closed|formal informal|direct indirect|finite infinite|"
    "natural artificial|domestic foreign|urban rural|offensive defensive|majority minority|"
    "agree disagree|support oppose|ally enemy|friend enemy|peace war"
)
_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "non", "dis")
_YEAR = re.compile(r"^(1\d{3}|20\d{2})s?$")
_DIGIT = re.compile(r"\d")
_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s?$")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_LISTED = re.compile(r"[\d:|]")
_SENTENCE_CLOSED = re.compile(r"[.!?…][\"'”’)\]]*$")
_TYPE_CUES: tuple[tuple[AnswerType, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            r"^when\b|\b(what|which) (year|century|decade|date|month|day|era|period)\b"
            r"|\bhow long ago\b"
        ),
    ),
    (
        "number",
        re.compile(
            r"\bhow (many|much|long|far|old|big|large|tall|high|often|fast|wide|deep|heavy)\b"
            r"|\bwhat (percentage|percent|proportion|number|amount|fraction|share|size)\b"
        ),
    ),
    ("name", re.compile(r"\b(who|whom|whose)\b|^where\b")),
)
_LONG_ANSWER = re.compile(r"\b(list|summari[sz]e|summary|explain|describe|details?)\b")
_WEAK_NEGATION = re.compile(r"\b(or not|may or may not)\b")


def _antonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in _ANTONYM_PAIRS.split("|"):
        a, b = (stem(w) for w in pair.split())
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {word: frozenset(opposites) for word, opposites in table.items()}


_ANTONYMS = _antonyms()


# ── words ───────────────────────────────────────────────────────────────────
def _fold(text: str) -> str:
    """Without accents, so that "Hervé" matches "Herve"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _words(text: str) -> list[str]:
    """Lower-cased words without accents or possessive endings ("Norman's" -> "norman")."""
    return [_POSSESSIVE.sub("", w) for w in plain_words(_fold(text))]


def _content(words: Iterable[str]) -> list[str]:
    return [stem(w) for w in words if w not in STOPWORDS]


def _negated(text: str) -> bool:
    words = plain_words(_WEAK_NEGATION.sub(" ", text.lower()))
    return any(w in _NEGATIONS or w.endswith("n't") for w in words)


# ── the transcript ──────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class _Hit:
    doc_id: str
    chunk_id: str
    snippet: str


@dataclass(frozen=True, slots=True)
class _Passage:
    n: int
    chunk_id: str
    text: str


@dataclass(slots=True)
class _Turn:
    """What the current turn of the conversation holds so far."""

    question: str = ""
    earlier_questions: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    searches: list[list[_Hit]] = field(default_factory=list)
    passages: dict[int, _Passage] = field(default_factory=dict)
    opened: list[str] = field(default_factory=list)
    """Chunk ids in the order they were asked for: the order of preference."""
    tool_calls: int = 0
    steps: int = 0
    calls_in_transcript: int = 0

    def reading_order(self) -> list[_Passage]:
        """The passages in the order they were asked for (their numbers follow the order in
        which the tools finished, which concurrent calls do not fix)."""
        asked = {chunk_id: i for i, chunk_id in reversed(list(enumerate(self.opened)))}
        return sorted(
            self.passages.values(), key=lambda p: (asked.get(p.chunk_id, len(asked)), p.n)
        )


def _is_question(message: Message) -> bool:
    return (
        isinstance(message, UserMessage)
        and message.content not in _RUNTIME_PROMPTS
        and not message.content.startswith(_RUNTIME_PREFIXES)
    )


def _decode(content: str) -> dict[str, Any] | None:
    """The JSON object a tool returned (a note after it, as on a repeated call, is ignored)."""
    try:
        value, _ = json.JSONDecoder().raw_decode(content.strip())
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def read_turn(messages: Sequence[Message]) -> _Turn:
    """The current question, earlier questions, and this turn's tool calls and results."""
    turn = _Turn()
    turn.calls_in_transcript = sum(
        len(m.tool_calls) for m in messages if isinstance(m, AssistantMessage)
    )
    asked = [i for i, m in enumerate(messages) if _is_question(m)]
    questions = [m.content for m in messages if isinstance(m, UserMessage) and _is_question(m)]
    if not asked:
        return turn
    turn.question, turn.earlier_questions = questions[-1], questions[:-1]
    for message in messages[asked[-1] + 1 :]:
        if isinstance(message, AssistantMessage):
            turn.steps += 1
            for call in message.tool_calls:
                turn.tool_calls += 1
                if call.name == SEARCH:
                    turn.queries.append(str(call.arguments.get("query", "")))
                elif call.name == OPEN:
                    turn.opened.append(str(call.arguments.get("chunkId", "")))
        elif isinstance(message, ToolResultsMessage):
            for result in message.results:
                data = None if result.is_error else _decode(result.content)
                if data is not None:
                    _take_result(turn, result.name, data)
    return turn


def _take_result(turn: _Turn, tool: str, data: dict[str, Any]) -> None:
    if tool == SEARCH and isinstance(data.get("hits"), list):
        turn.searches.append(
            [
                _Hit(str(h["docId"]), str(h["chunkId"]), str(h.get("snippet", "")))
                for h in data["hits"]
                if isinstance(h, dict) and "docId" in h and "chunkId" in h
            ]
        )
    elif isinstance(data.get("citation"), int) and isinstance(data.get("text"), str):
        n = data["citation"]
        turn.passages[n] = _Passage(n, str(data.get("chunkId", "")), data["text"])


# ── the question ────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class _Question:
    text: str
    words: tuple[str, ...]
    keywords: tuple[str, ...]
    """Surface words to search for."""
    terms: dict[str, float]
    """Stemmed key terms with a prior weight (terms borrowed from history weigh half)."""
    sequence: tuple[str, ...]
    """The question's own key terms in order."""
    capitalised: frozenset[str]
    numbers: frozenset[str]
    answer_type: AnswerType
    negated: bool
    wants_more: bool


def analyse(question: str, earlier: Sequence[str] = ()) -> _Question:
    words = _words(question)
    own = list(dict.fromkeys(w for w in words if _is_key(w)))
    keywords = list(own)
    terms = {stem(w): 1.0 for w in own}
    if earlier and (len(own) <= 2 or any(w in _PRONOUNS for w in words)):
        borrowed = [w for w in dict.fromkeys(_words(earlier[-1])) if _is_key(w)]
        borrowed = [w for w in borrowed if stem(w) not in terms]
        keywords += borrowed
        terms |= {stem(w): 0.5 for w in borrowed}
    lowered = question.lower()
    tokens = _TOKEN.findall(_fold(question))
    return _Question(
        text=question,
        words=tuple(words),
        keywords=tuple(keywords),
        terms=terms,
        sequence=tuple(stem(w) for w in words if _is_key(w)),
        capitalised=frozenset(
            stem(_POSSESSIVE.sub("", t.lower())) for t in tokens[1:] if t[0].isupper()
        )
        & terms.keys(),
        numbers=frozenset(stem(w) for w in words if _DIGIT.search(w)),
        answer_type=next((kind for kind, cue in _TYPE_CUES if cue.search(lowered)), None),
        negated=_negated(question),
        wants_more=bool(_LONG_ANSWER.search(lowered)),
    )


def _is_key(word: str) -> bool:
    return word not in STOPWORDS and word not in _FRAMING and len(word) > 1


# ── planning ────────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class _Budget:
    tool_calls: int
    steps: int


def _plan(turn: _Turn, question: _Question, budget: _Budget) -> list[tuple[str, dict[str, str]]]:
    """The next tool calls, or none when it is time to answer."""
    calls_left = budget.tool_calls - turn.tool_calls
    steps_left = budget.steps - turn.steps - 1  # keep the last step for the answer
    if calls_left <= 0 or steps_left <= 0 or turn.opened or not question.text.strip():
        return []
    if not turn.queries:
        return [(SEARCH, {"query": " ".join(question.keywords) or question.text})]
    if len(turn.queries) == 1 and calls_left >= 2 and steps_left >= 2:
        refined = _refined_query(turn, question)
        if refined:
            return [(SEARCH, {"query": refined})]
    hits = _rank_hits([h for search in turn.searches for h in search], question)
    return [
        (OPEN, {"docId": h.doc_id, "chunkId": h.chunk_id}) for h in hits[:MAX_OPENS][:calls_left]
    ]


def _refined_query(turn: _Turn, question: _Question) -> str | None:
    """Other words when the search found nothing (the question as asked), or nothing that
    mentions the question's names and numbers (those alone); None when it went well."""
    hits = turn.searches[-1] if turn.searches else []
    specific = question.capitalised | question.numbers
    seen = set().union(*(_stems(h.snippet) for h in hits))
    if hits and not specific - seen:
        return None
    focus = " ".join(w for w in question.keywords if stem(w) in specific - seen)
    query = focus if hits and focus else question.text
    return None if query.casefold() in {q.casefold() for q in turn.queries} else query


def _rank_hits(hits: Sequence[_Hit], question: _Question) -> list[_Hit]:
    """Distinct hits; a snippet holding more of the question's terms moves a hit up."""
    unique = list({h.chunk_id: h for h in hits}.values())

    def key(item: tuple[int, _Hit]) -> float:
        rank, hit = item
        covered = sum(question.terms[t] for t in question.terms.keys() & _stems(hit.snippet))
        return covered / (sum(question.terms.values()) or 1.0) + 1.0 / (1 + rank)

    return [hit for _, hit in sorted(enumerate(unique), key=key, reverse=True)]


def _stems(text: str) -> set[str]:
    return set(_content(_words(text)))


# ── the evidence ────────────────────────────────────────────────────────────
@dataclass(frozen=True, slots=True)
class _Sentence:
    n: int
    rank: int
    """The passage's position among those read (0 for the first opened)."""
    text: str
    words: tuple[str, ...]
    sequence: tuple[str, ...]
    stems: frozenset[str]
    context: frozenset[str]
    """Stems of the neighbouring sentences of the same paragraph, not in this one."""
    vocabulary: frozenset[str]
    """Stems of every word, stopwords included, of this sentence and its neighbours."""
    items: tuple[int, ...] = ()
    """For a sentence that introduces a list or table: the ids of its items' sentences."""
    id: int = 0
    """The sentence's position among all those read."""

    @property
    def window(self) -> frozenset[str]:
        return self.stems | self.context


def _sentences(passages: Iterable[_Passage]) -> list[_Sentence]:
    """Every sentence of the passages (best first), each knowing its neighbours: the sentences
    next to it in its paragraph, and for a list or a table, with the sentence that introduces
    it ("…within these limits:"), all of its items."""
    found: list[_Sentence] = []
    for rank, passage in enumerate(passages):
        texts: list[str] = []
        groups: list[tuple[int, int]] = []  # per sentence: (its paragraph, its list or table)
        for number, paragraph in enumerate(_PARAGRAPH_BREAK.split(passage.text)):
            for start, end in sentence_spans(paragraph):
                text = paragraph[start:end]
                if _is_heading(text):
                    continue
                listed = bool(texts) and start == 0 and _continues(texts[-1], text)
                groups.append((number, groups[-1][1] if listed else len(texts)))
                texts.append(text)
        found += _neighbours(passage.n, rank, texts, groups, len(found))
    return found


def _continues(before: str, after: str) -> bool:
    """A list or table runs on across paragraph breaks, from its introduction ("…:") to its
    items, and from item to item (lines that do not end like a sentence)."""
    item = not _SENTENCE_CLOSED.search(after) and not after.endswith(":")
    return item and not _SENTENCE_CLOSED.search(before)


def _neighbours(
    n: int, rank: int, texts: Sequence[str], groups: Sequence[tuple[int, int]], first: int
) -> list[_Sentence]:
    words = [_words(t) for t in texts]
    sequences = [_content(w) for w in words]
    stems = [frozenset(s) for s in sequences]
    every = [frozenset(stem(w) for w in ws) for ws in words]
    found = []
    for i, text in enumerate(texts):
        paragraph, listing = groups[i]
        around = {j for j in (i - 1, i + 1) if 0 <= j < len(texts) and groups[j][0] == paragraph}
        members = {j for j, group in enumerate(groups) if group[1] == listing and j != i}
        context = frozenset().union(*(stems[j] for j in around | members)) - stems[i]
        vocabulary = every[i].union(*(every[j] for j in around | members))
        items = tuple(sorted(first + j for j in members)) if listing == i else ()
        found.append(
            _Sentence(
                n,
                rank,
                text,
                tuple(words[i]),
                tuple(sequences[i]),
                stems[i],
                context,
                vocabulary,
                items,
                first + i,
            )
        )
    return found


def _is_heading(text: str) -> bool:
    """A short line without a full stop, a number or a colon: a title, not a sentence to
    quote (a list item or a table row usually has one of them)."""
    short = len(text.split()) < HEADING_WORDS
    return short and not _SENTENCE_CLOSED.search(text) and not _LISTED.search(text)


def _term_weights(question: _Question, sentences: Sequence[_Sentence]) -> dict[str, float]:
    """The question's prior weights times inverse sentence frequency among what was read."""
    total = len(sentences)
    weights = {}
    for term, prior in question.terms.items():
        df = sum(1 for s in sentences if term in s.stems)
        weights[term] = prior * math.log(1 + (total - df + 0.5) / (df + 0.5))
    return weights


def _names(question: _Question, sentences: Sequence[_Sentence]) -> frozenset[str]:
    """Capitalised question words that the passages never use in lower case."""
    lower = {stem(t) for s in sentences for t in _TOKEN.findall(_fold(s.text)) if t.islower()}
    return question.capitalised - lower


def _relevance(
    s: _Sentence, q: _Question, weights: dict[str, float], names: frozenset[str]
) -> float:
    """How likely ``s`` holds the answer: a linear score fitted on SQuAD (see module doc)."""
    total = sum(weights.values()) or 1.0
    inside = sum(w for t, w in weights.items() if t in s.stems) / total
    around = sum(w for t, w in weights.items() if t in s.context) / total
    share = len(q.terms.keys() & s.stems) / len(q.terms)
    bigrams = _bigram_share(q.sequence, s.sequence)
    typed = 0.0 if q.answer_type is None else (1.0 if _holds_answer_type(s, q) else -1.0)
    novel = len(s.stems - q.terms.keys())
    return (
        2.9 * inside
        + 1.2 * around
        + 2.6 * share
        + 0.4 * bigrams
        + 0.8 * typed
        + 1.1 / (1 + s.rank)
        + 0.6 * math.log1p(len(s.words))
        - 0.4 * math.log1p(novel)
        - 0.5 * bool(names - s.window)
    )


def _bigram_share(question: Sequence[str], sentence: Sequence[str]) -> float:
    """Share of the question's term pairs that the sentence has side by side (or one apart)."""
    asked = set(pairwise(question))
    if not asked:
        return 0.0
    near = set(pairwise(sentence)) | set(zip(sentence, sentence[2:], strict=False))
    return len(asked & near) / len(asked)


def _holds_answer_type(s: _Sentence, q: _Question) -> bool:
    """The sentence holds a date, number or name that the question does not already give."""
    asked = set(q.words)
    new = [w for w in s.words if w not in asked]
    if q.answer_type == "date":
        return any(_YEAR.match(w) or w in _MONTHS or w in ("century", "centuries") for w in new)
    if q.answer_type == "number":
        return any(_DIGIT.search(w) or w in _NUMBER_WORDS for w in new)
    tokens = _TOKEN.findall(_fold(s.text))[1:]
    return any(t[0].isupper() and _POSSESSIVE.sub("", t.lower()) not in asked for t in tokens)


# ── doubts: signs that the best sentence does not answer this question ─────
DOUBT_THRESHOLD = 0.5  # balances answers and abstentions on SQuAD 2.0 (README has the curve)


def _doubt(s: _Sentence, q: _Question, names: frozenset[str], read: frozenset[str]) -> float:
    """Weighted signs that the documents do not answer ``q``; abstain at the threshold.

    Question words found in nothing that was read (``read``: its stems), and not
    explained as a swapped word, lower the doubt: the question is merely worded
    differently from the documents.
    """
    window = s.window
    swapped = _antonym_swapped(q, s)
    changed = _substituted(q, s)
    reworded = q.terms.keys() - read - swapped - changed - names - q.numbers
    return (
        1.0 * bool(q.numbers - window)
        + 0.6 * bool(names - window)
        + 0.3 * bool(names - s.stems)
        + 1.4 * (q.negated and not _negated(s.text))
        + 0.65 * bool(swapped)
        + 0.5 * bool(changed)
        + 0.45 * _roles_reversed(q, s, names)
        - 0.25 * len(reworded)
    )


def _antonym_swapped(q: _Question, s: _Sentence) -> set[str]:
    """Question words (stopwords like "most" included) that the sentence and its neighbours
    lack while they have their opposite, or their negated form ("complicated" against
    "uncomplicated")."""
    said = s.vocabulary
    swapped = set()
    for term in {stem(w) for w in q.words} - said:
        negated_forms = {p + term for p in _NEGATING_PREFIXES}
        positive_forms = {term[len(p) :] for p in _NEGATING_PREFIXES if term.startswith(p)}
        if (_ANTONYMS.get(term, frozenset()) | negated_forms | positive_forms) & said:
            swapped.add(term)
    return swapped


def _substituted(q: _Question, s: _Sentence) -> set[str]:
    """Question terms missing where the sentence has other words between their neighbours:
    the question copies the sentence's phrase but changes a word of it."""
    position: dict[str, int] = {}
    for i, term in enumerate(s.sequence):
        position.setdefault(term, i)
    terms = q.sequence
    changed = set()
    for i, term in enumerate(terms[1:-1], 1):
        before, after = position.get(terms[i - 1], -9), position.get(terms[i + 1], -9)
        if term not in s.window and before >= 0 and 2 <= after - before <= 3:
            changed.add(term)
    return changed


_PASSIVE_MARKERS = frozenset("was were been be is are being".split())


def _roles_reversed(q: _Question, s: _Sentence, names: frozenset[str]) -> bool:
    """A "who" question puts a named party on the other side of the shared verb than the
    sentence does (passive voice accounted for): "who did X marry?" asks for X's spouse,
    and "Y married X" does not say it."""
    if not q.words or q.words[0] not in ("who", "whom"):
        return False
    said = [stem(w) for w in s.words]
    keys = [(i, stem(w)) for i, w in enumerate(q.words) if _is_key(w)]
    verb = next(
        ((i, t) for i, t in keys if t not in names and t in said and t not in _NUMBER_WORDS), None
    )
    if verb is None:
        return False
    asked_at, at = verb[0], said.index(verb[1])
    passive = at > 0 and s.words[at - 1] in _PASSIVE_MARKERS and "by" in s.words[at + 1 :]
    return any(
        ((said.index(term) < at) != passive) != (i < asked_at)
        for i, term in keys
        if term in names and term in said
    )


# ── the answer ──────────────────────────────────────────────────────────────
def compose_answer(
    question: _Question, passages: Sequence[_Passage], threshold: float = DOUBT_THRESHOLD
) -> str:
    """Quoted best sentences with their citations, or the abstention."""
    sentences = _sentences(passages)
    if not sentences or not question.terms:
        return ABSTAIN
    weights = _term_weights(question, sentences)
    names = _names(question, sentences)
    scores = {s.id: _relevance(s, question, weights, names) for s in sentences}
    ranked = sorted(sentences, key=lambda s: scores[s.id], reverse=True)
    best = ranked[0]
    own = [t for t, prior in question.terms.items() if prior == 1.0] or list(question.terms)
    if sum(t in best.window for t in own) < MIN_MATCHED_SHARE * len(own):
        return ABSTAIN  # nothing read is about the question
    read = frozenset().union(*(s.stems for s in sentences))
    if _doubt(best, question, names, read) >= threshold:
        return ABSTAIN
    return PREFIX + " ".join(_quote(s) for s in _pick(ranked, scores, question))


def _pick(
    ranked: Sequence[_Sentence], scores: dict[int, float], question: _Question
) -> list[_Sentence]:
    """The best sentence, then runners-up that score nearly as well and fit the word budget;
    for a short answer, the item asked about when the best introduces a list, else the
    runner-up from another passage first (a second source)."""
    best = ranked[0]
    budget = LONG_ANSWER_WORDS if question.wants_more else ANSWER_WORDS
    close = [
        s
        for s in ranked[1:]
        if scores[best.id] - scores[s.id] <= RUNNER_UP_MARGIN and not _overlap(s, best)
    ]
    if not question.wants_more:
        fitting = [s for s in close if len(best.words) + len(s.words) <= budget]
        elsewhere = [s for s in fitting if s.n != best.n]
        return [best, *(_asked_item(best, ranked, question) or elsewhere or fitting)[:1]]
    chosen, used = [best], len(best.words)
    for other in close:
        fits = len(chosen) < LONG_ANSWER_SENTENCES and used + len(other.words) <= budget
        if fits and not any(_overlap(other, c) for c in chosen):
            chosen.append(other)
            used += len(other.words)
    return chosen


def _asked_item(
    best: _Sentence, ranked: Sequence[_Sentence], question: _Question
) -> list[_Sentence]:
    """When the best sentence introduces a list or table, the item that names what the
    question asks and the introduction does not ("London | £160" under "…these limits:")."""
    items = [s for s in ranked if s.id in best.items]
    missing = question.terms.keys() - best.stems
    return [s for s in items if missing & s.stems][:1]


def _overlap(a: _Sentence, b: _Sentence) -> bool:
    """The same sentence, also when read twice from overlapping passages (maybe cut short)."""
    return a.text in b.text or b.text in a.text


def _quote(sentence: _Sentence) -> str:
    """The sentence in quotes with its citation; one that does not end like a sentence (a
    list's introduction, a table row) ends in "…", so that the next quote stays apart."""
    text = sentence.text.rstrip()
    if not _SENTENCE_CLOSED.search(text):
        text = text.removesuffix(":") + "…"
    return f"“{text}” [{sentence.n}]"


# ── the model ───────────────────────────────────────────────────────────────
class OfflineModel:
    """Plans searches, opens passages and answers by quoting them: no network, no weights."""

    name = "offline"

    def __init__(
        self,
        *,
        max_tool_calls: int = 5,
        max_iterations: int = 5,
        doubt_threshold: float = DOUBT_THRESHOLD,
    ) -> None:
        """``doubt_threshold``: lower abstains more often, higher answers more often."""
        self.budget = _Budget(max_tool_calls, max_iterations)
        self.doubt_threshold = doubt_threshold
        self._estimator = TokenEstimator()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        response = self._respond(request)
        usage = TokenUsage(self._estimator.estimate(request), _output_tokens(response))
        return ModelResponse(
            text=response.text,
            tool_calls=response.tool_calls,
            usage=usage,
            finish_reason=response.finish_reason,
            model=self.name,
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamItem]:
        response = await self.complete(request)
        for piece in re.findall(r"\S+\s*|\s+", response.text):
            yield TextDelta(piece)
        yield response

    def _respond(self, request: ModelRequest) -> ModelResponse:
        turn = read_turn(request.messages)
        question = analyse(turn.question, turn.earlier_questions)
        offered = {t.name for t in request.tools} if request.tool_choice != "none" else set()
        if {SEARCH, OPEN} <= offered:
            planned = _plan(turn, question, self.budget)
            if planned:
                return _tool_calls(planned, turn)
        text = compose_answer(question, turn.reading_order(), self.doubt_threshold)
        return ModelResponse(text=text, finish_reason="stop")


def _tool_calls(planned: list[tuple[str, dict[str, str]]], turn: _Turn) -> ModelResponse:
    first = turn.calls_in_transcript + 1
    calls = tuple(
        ToolCall(f"offline_{first + i}", name, arguments)
        for i, (name, arguments) in enumerate(planned)
    )
    name, arguments = planned[0]
    if name == SEARCH and turn.queries:
        text = f"That search found little; searching again with other words: {arguments['query']}"
    elif name == SEARCH:
        text = f"Searching the documents for: {arguments['query']}"
    else:
        text = f"Opening the {len(calls)} most promising passage(s), then answering from them."
    return ModelResponse(text=text, tool_calls=calls, finish_reason="tool_calls")


def _output_tokens(response: ModelResponse) -> int:
    arguments = sum(len(c.name) + len(json.dumps(dict(c.arguments))) for c in response.tool_calls)
    return math.ceil(len(response.text) / PROSE_CHARS_PER_TOKEN + arguments / JSON_CHARS_PER_TOKEN)


__all__ = ["OfflineModel"]
