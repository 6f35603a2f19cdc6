"""An in-memory BM25 index of one owner's chunks, scored with NumPy the way FTS5's bm25() scores.

Postings are stored per term (compressed sparse rows: the chunk rows holding
the term and each row's saturated term frequency). A query adds up, per row,
``idf(term) * saturation`` over its terms, in query order and in float64, with
FTS5's formula and constants, so a query ranks as FTS5 ranks the same rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

# FTS5's bm25() constants and its floor for the IDF of terms in over half the rows.
K1 = 1.2
B = 0.75
MIN_IDF = 1e-6
OBJECT_BYTES = 100  # a short str in a list or dict, with its pointer

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class BM25Index:
    """Rows are chunks in key order; ``starts[t]:starts[t + 1]`` are term ``t``'s postings."""

    generation: int
    chunk_keys: Ints  # per row, ascending
    doc_keys: Ints
    chunk_ids: list[str]
    doc_ids: list[str]
    terms: dict[str, int]
    starts: Ints
    posting_rows: npt.NDArray[np.int32]
    saturation: Floats  # tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / mean length))

    @property
    def nbytes(self) -> int:
        """About the memory it holds: its arrays, and ids and terms at ~100 bytes each."""
        arrays = (self.chunk_keys, self.doc_keys, self.starts, self.posting_rows, self.saturation)
        objects = 2 * len(self.chunk_ids) + len(self.terms)
        return sum(a.nbytes for a in arrays) + OBJECT_BYTES * objects

    @classmethod
    def build(
        cls,
        generation: int,
        chunk_keys: Ints,
        doc_keys: Ints,
        chunk_ids: list[str],
        doc_ids: list[str],
        terms: Sequence[str],
        instances: tuple[Ints, Ints, Floats],
    ) -> BM25Index:
        """Index rows ``chunk_keys`` from token ``instances``: (term position in ``terms``,
        chunk key, column weight), one entry per token, in any order."""
        term_of, key_of, weight = instances
        row_of = np.searchsorted(chunk_keys, key_of)
        if len(row_of) and (
            row_of.max() >= len(chunk_keys) or (chunk_keys[row_of] != key_of).any()
        ):
            raise ValueError("token instances name chunks outside the index")
        lengths = np.bincount(row_of, minlength=len(chunk_keys)).astype(np.float64)
        mean_length = lengths.sum() / len(chunk_keys) if len(row_of) else 1.0
        # One posting per (term, row); its frequency is the sum of its tokens' weights.
        pair = term_of * len(chunk_keys) + row_of
        pairs, first = np.unique(pair, return_inverse=True)
        tf = np.bincount(first, weights=weight, minlength=len(pairs))
        posting_term, posting_rows = np.divmod(pairs, max(len(chunk_keys), 1))
        norm = K1 * (1 - B + B * lengths[posting_rows] / mean_length)
        return cls(
            generation=generation,
            chunk_keys=chunk_keys,
            doc_keys=doc_keys,
            chunk_ids=chunk_ids,
            doc_ids=doc_ids,
            terms={term: t for t, term in enumerate(terms)},
            starts=np.searchsorted(posting_term, np.arange(len(terms) + 1)).astype(np.int64),
            posting_rows=posting_rows.astype(np.int32),
            saturation=(tf * (K1 + 1)) / (tf + norm),
        )

    def search(
        self, terms: Sequence[str], k: int, allowed: npt.NDArray[np.bool_] | None = None
    ) -> tuple[Ints, Floats]:
        """The best ``k`` rows holding any of ``terms`` (among ``allowed`` rows), best
        first, ties in chunk-key order; and their scores (higher is better)."""
        rows, contributions = [], []
        for term in terms:
            t = self.terms.get(term)
            if t is None:
                continue
            start, end = self.starts[t], self.starts[t + 1]
            contributions.append(self._idf(int(end - start)) * self.saturation[start:end])
            rows.append(self.posting_rows[start:end])
        if not rows or k <= 0:
            return np.empty(0, np.int64), np.empty(0, np.float64)
        scores: Floats = np.bincount(
            np.concatenate(rows),
            weights=np.concatenate(contributions),
            minlength=len(self.chunk_keys),
        ).astype(np.float64, copy=False)
        if allowed is not None:
            scores[~allowed] = 0.0
        found = np.flatnonzero(scores)
        if len(found) > k:
            # Every row scoring at least the k-th best: ties at the cut stay candidates.
            kth = np.partition(scores[found], len(found) - k)[len(found) - k]
            found = found[scores[found] >= kth]
        best = found[np.lexsort((found, -scores[found]))][:k]
        return best.astype(np.int64), scores[best]

    def _idf(self, hits: int) -> float:
        rows = len(self.chunk_keys)
        return max(math.log((rows - hits + 0.5) / (hits + 0.5)), MIN_IDF)
