"""Dense similarity of a question and the sentences read, when an embedder is at hand.

Optional: without an embedder the offline model ranks sentences by words alone, and a
sentence addresses a question by its words alone (``relevance``). MiniLM-style embedders
were trained on question and answer pairs, so the similarity also finds sentences that
answer in other words.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from docuchat.embeddings import Embedder
from docuchat.embeddings.base import l2_normalize
from docuchat.embeddings.weights import MINILM_ID

CACHED_TEXTS = 4096


class SentenceSimilarity:
    """Cosine similarity by an embedder; each text is embedded once (while it stays among
    the last ``CACHED_TEXTS``), so the passages of a conversation are embedded once."""

    def __init__(self, embedder: Embedder, cached: int = CACHED_TEXTS) -> None:
        self.embedder = embedder
        self._cached = cached
        self._vectors: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()

    @property
    def fitted(self) -> bool:
        """Its cosines are the ones the learned score was fitted on (all-MiniLM-L6-v2, in any
        of its builds); another embedder's mean something else, so the score reads words
        alone (``research.addressing``)."""
        return self.embedder.name.startswith(MINILM_ID)

    def __len__(self) -> int:
        """How many texts' vectors it holds."""
        return len(self._vectors)

    def __call__(self, question: str, texts: Sequence[str]) -> list[float]:
        asked = self._embedded([question, *texts])
        return [float(asked @ self._vectors[t]) for t in texts]

    def in_context(
        self, question: str, texts: Sequence[str], contexts: Sequence[str]
    ) -> list[float]:
        """The cosine of the question and each text read in its context (its document's
        title): the mean of the two embeddings, so a context shared by many texts is
        embedded once ("Minutes taken by…" reads as the October committee's minutes); an
        empty context leaves the text alone."""
        asked = self._embedded([question, *texts, *(c for c in contexts if c)])
        read = [
            self._vectors[text] + self._vectors[context] if context else self._vectors[text]
            for text, context in zip(texts, contexts, strict=True)
        ]
        if not read:
            return []
        return [float(v) for v in l2_normalize(np.stack(read)) @ asked]

    def _embedded(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embeds the texts not yet held, keeps them as the most recent, and gives the first
        text's vector."""
        wanted = list(dict.fromkeys(texts))
        missing = [t for t in wanted if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.embedder.embed(missing), strict=True):
                self._vectors[text] = vector
        for text in wanted:
            self._vectors.move_to_end(text)
        while len(self._vectors) > max(self._cached, len(wanted)):
            self._vectors.popitem(last=False)
        return self._vectors[texts[0]]


def for_the_score(similarity: SentenceSimilarity | None) -> SentenceSimilarity | None:
    """``similarity`` when the learned score was fitted on its cosines, else None: the
    score then weighs words alone (``SentenceSimilarity.fitted``)."""
    return similarity if similarity is not None and similarity.fitted else None
