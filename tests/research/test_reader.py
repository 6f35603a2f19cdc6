"""The reader (``research.reader``): MiniLM with its trained adapters reads a part of a
question against a sentence; the research agent weighs its logit when it judges the
sentences an answer cites, and only then."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docuchat.corpus.ingest import embed_pending, ingest_paths
from docuchat.embeddings import get_embedder
from docuchat.embeddings.hashing import HashingEmbedder
from docuchat.embeddings.weights import MINILM_ID, find_minilm_weights
from docuchat.research import Answer, ResearchAgent
from docuchat.research.addressing import BY_MEANING, BY_READING, BY_WORDS
from docuchat.research.offline import OfflineModel
from docuchat.research.questions import analyse, meant
from docuchat.research.reader import ADAPTERS, Reader, installed_reader, model_file_in
from docuchat.research.reader_export import ADAPTED, merged, pooled
from docuchat.research.relevance import Addressing
from docuchat.search.hybrid import HybridSearcher
from docuchat.store import open_store

from .test_relevance import _ask

QUESTION = "How many days of annual leave do full-time employees get?"
ANSWER = "Full-time employees receive 25 days of paid annual leave each calendar year."
NEAR_MISS = "Requests for annual leave must reach your manager at least 10 days in advance."
CARRIED = "Up to 5 days of unused annual leave may be carried over into the next year."
ILL = "Employees who are ill must tell their manager before 10 a.m. on the first day."
POLICY = f"""# Leave policy

## Annual leave

{ANSWER} {NEAR_MISS} {CARRIED}

## Sick leave

{ILL}
"""


@pytest.fixture
def reader(onnx_models: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Reader:
    """The reader built in the session's models folder, which is also the models folder of
    a private DOCUCHAT_HOME (where the research agent looks for it)."""
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "models").symlink_to(onnx_models)
    monkeypatch.setenv("DOCUCHAT_HOME", str(tmp_path / "home"))
    found = installed_reader()
    assert found is not None
    return found


def test_the_reader_tells_the_sentence_that_answers_from_near_misses(reader: Reader) -> None:
    """Each holds the question's words and states a number of days; one answers it."""
    answers, *misses = reader([(QUESTION, ANSWER), (QUESTION, NEAR_MISS), (QUESTION, CARRIED)])
    assert answers > 2 + max(misses)
    assert answers > 0 > reader([(QUESTION, ILL)])[0]
    assert reader([]) == []


def test_the_built_reader_reads_as_the_trained_one(reader: Reader, tmp_path: Path) -> None:
    """The model on onnxruntime gives the logits of the adapters merged into MiniLM in torch
    (a sentence cut at ``MAX_TOKENS`` too); with the adapters zeroed, MiniLM under the same
    head reads otherwise: the trained adapters are what it reads with."""
    import torch
    from transformers import AutoTokenizer

    weights = find_minilm_weights()
    assert weights is not None
    pairs = [(QUESTION, ANSWER), (QUESTION, NEAR_MISS), (QUESTION, POLICY * 4)]
    tokenizer = AutoTokenizer.from_pretrained(str(weights.folder))
    with np.load(ADAPTERS) as arrays:
        found = {name: arrays[name] for name in arrays.files}
    assert {name.split(".")[1] for name in found if name[0].isdigit()} == set(ADAPTED)
    zeroed = tmp_path / "zeroed.npz"
    np.savez(zeroed, **{k: np.zeros_like(v) if k.endswith(".b") else v for k, v in found.items()})
    with torch.no_grad():
        model, head = merged(weights, ADAPTERS)
        trained = head(pooled(model, tokenizer, pairs)).squeeze(-1).tolist()
        model, head = merged(weights, zeroed)
        plain = head(pooled(model, tokenizer, pairs[:1])).squeeze(-1).tolist()
    assert reader(pairs) == pytest.approx(trained, abs=1e-4)
    assert abs(plain[0] - trained[0]) > 0.5


@pytest.mark.usefixtures("onnx_models")  # the embed extra (torch for the build)
def test_a_new_reader_is_built_once_and_replaces_an_older_one(tmp_path: Path) -> None:
    """A new version's adapters get a model file of their own; the older reader's 90 MB go,
    the embedder's model stays."""
    weights = find_minilm_weights()
    assert weights is not None
    models = tmp_path / "models"
    models.mkdir()
    older = models / f"{MINILM_ID}-reader-000000000000.onnx"
    older.write_bytes(b"an older reader")
    embedder = models / "all-MiniLM-L6-v2-onnx-int8.onnx"
    embedder.write_bytes(b"the embedder")

    Reader.built(weights, models)

    assert sorted(models.iterdir()) == sorted([embedder, model_file_in(models)])
    built = model_file_in(models).stat().st_mtime_ns
    Reader.built(weights, models)
    assert model_file_in(models).stat().st_mtime_ns == built


@pytest.fixture
def searcher(tmp_path: Path, onnx_models: Path) -> HybridSearcher:
    """The policy in a real SQLite store, searched with MiniLM (the score's similarity)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "leave.md").write_text(POLICY, encoding="utf-8")
    store = open_store(tmp_path / "docuchat.db")
    embedder = get_embedder("minilm-onnx", cache_dir=onnx_models)
    assert embedder is not None
    ingest_paths(store, "alice", [folder])
    embed_pending(store, "alice", embedder)
    return HybridSearcher(store, embedder)


def _cited(answer: Answer) -> Addressing:
    assert answer.relevance is not None
    [cited] = answer.relevance.citations.values()
    return cited.judged


def test_the_agent_weighs_the_readers_logit_for_the_quote_it_presents(
    reader: Reader, searcher: HybridSearcher
) -> None:
    agent = ResearchAgent(searcher, OfflineModel(embedder=searcher.embedder), "alice")
    answer = agent.ask_sync(QUESTION)
    assert "25 days" in answer.answer and answer.presentation == "answer"
    judged = _cited(answer)
    assert judged.signals is not None and judged.verdict is not None
    asked = analyse(QUESTION)
    read = reader([(meant(asked.parts[0], asked), ANSWER)])[0]
    assert judged.signals.reader == pytest.approx(read, abs=1e-4)
    assert judged.verdict.threshold == BY_READING.threshold
    assert "reader" in dict(judged.verdict.weighed)


def test_a_cited_sentence_that_fails_a_gate_is_weighed_unread(
    reader: Reader, searcher: HybridSearcher
) -> None:
    """Any model's citations are judged: the score with the reader's logit was fitted on
    sentences that pass every gate, so one that states no number of days is not read."""
    judged = _cited(_ask(searcher, QUESTION, ILL.rstrip(".")))
    assert judged.signals is not None and judged.signals.reader is None
    assert judged.verdict is not None and judged.verdict.threshold == BY_MEANING.threshold
    assert not judged.addresses
    quoted = _cited(_ask(searcher, QUESTION, ANSWER.rstrip(".")))
    assert quoted.signals is not None and quoted.signals.reader is not None


def test_without_minilms_similarity_nothing_is_read(searcher: HybridSearcher) -> None:
    """An embedder the score was not fitted on: the score weighs words alone, unread."""
    searcher.embedder = HashingEmbedder(256)
    judged = _cited(ResearchAgent(searcher, OfflineModel(), "alice").ask_sync(QUESTION))
    assert judged.signals is not None and judged.signals.reader is None
    assert judged.verdict is not None and judged.verdict.threshold == BY_WORDS.threshold


def test_a_reader_that_cannot_be_built_leaves_the_score_to_the_signals(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Its models folder is a file: no reader, a warning that says so, and no error."""
    models = tmp_path / "models"
    models.write_text("not a folder", encoding="utf-8")
    assert installed_reader(models) is None
    assert "no reader" in caplog.text and "signals alone" in caplog.text
