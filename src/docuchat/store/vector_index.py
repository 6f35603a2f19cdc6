"""In-memory vector search with NumPy: exact, and an optional IVF index.

Exact search is one matrix-vector product over a contiguous float32 matrix
plus ``argpartition``, so it runs at about memory bandwidth. The IVF index
(spherical k-means centroids, the ``nprobe`` nearest lists scanned) reads a
small fraction of the matrix and pays off on large collections. Its lists are
contiguous row ranges of a matrix reordered once, so probing streams through
memory like exact search does instead of gathering scattered rows.

Products run on one BLAS thread: a matrix-vector product is bound by memory,
not arithmetic, so a second thread gains little, and on a busy machine (or a
server answering several queries at once) BLAS threads waiting for a core
made a 10,000-row search 30 times slower.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

Matrix = npt.NDArray[np.float32]
Rows = npt.NDArray[np.int64]

_ASSIGN_BLOCK = 16_384


def top_k(scores: npt.NDArray[np.float32], k: int) -> Rows:
    """Positions of the ``k`` highest scores, best first; ties go to the lower position."""
    if k <= 0 or scores.size == 0:
        return np.empty(0, dtype=np.int64)
    if k < scores.size:
        kth = scores[np.argpartition(scores, scores.size - k)[scores.size - k]]
        best = np.flatnonzero(scores >= kth)  # all of the k-th score's ties, in order
    else:
        best = np.arange(scores.size)
    order = np.lexsort((best, -scores[best]))[:k]
    return best[order].astype(np.int64, copy=False)


def search(matrix: Matrix, query: Matrix, k: int, rows: Rows | None = None) -> tuple[Rows, Matrix]:
    """Exact top ``k`` rows of ``matrix`` by dot product, optionally among ``rows`` only."""
    with one_blas_thread():
        scores = matrix @ query if rows is None else matrix[rows] @ query
    best = top_k(scores, k)
    return (best if rows is None else rows[best]), scores[best]


@contextmanager
def one_blas_thread() -> Iterator[None]:
    with _blas().limit(limits=1, user_api="blas"):
        yield


@cache
def _blas() -> ThreadpoolController:
    return ThreadpoolController()


@dataclass(frozen=True, slots=True)
class IVFIndex:
    """Lists of rows nearest to each centroid, for a matrix reordered by ``order``.

    After ``matrix = matrix[index.order]`` (and the same for anything aligned
    with its rows), list ``i`` is rows ``offsets[i]:offsets[i + 1]``.
    """

    centroids: Matrix
    order: Rows
    offsets: Rows

    @classmethod
    def build(
        cls, matrix: Matrix, *, n_lists: int | None = None, iterations: int = 8, seed: int = 0
    ) -> IVFIndex:
        n = matrix.shape[0]
        n_lists = n_lists or max(1, round(n**0.5))
        rng = np.random.default_rng(seed)
        sample_size = min(n, n_lists * 40)
        sample = matrix[np.sort(rng.choice(n, sample_size, replace=False))]
        centroids = sample[rng.choice(sample_size, n_lists, replace=False)].copy()
        for _ in range(iterations):
            centroids = _update(centroids, sample, _assign(centroids, sample), rng)
        assignment = _assign(centroids, matrix)
        order = np.argsort(assignment, kind="stable").astype(np.int64)
        offsets = np.zeros(n_lists + 1, dtype=np.int64)
        np.cumsum(np.bincount(assignment, minlength=n_lists), out=offsets[1:])
        return cls(centroids=centroids, order=order, offsets=offsets)

    def probe(self, query: Matrix, nprobe: int) -> list[tuple[int, int]]:
        """Row ranges (of the reordered matrix) of the ``nprobe`` lists nearest to ``query``."""
        with one_blas_thread():
            lists = np.sort(top_k(self.centroids @ query, nprobe))
        return [(int(self.offsets[i]), int(self.offsets[i + 1])) for i in lists]


def search_ranges(
    matrix: Matrix, query: Matrix, k: int, ranges: list[tuple[int, int]]
) -> tuple[Rows, Matrix]:
    """Exact top ``k`` rows by dot product among the given row ranges."""
    with one_blas_thread():
        scores = np.concatenate([matrix[start:end] @ query for start, end in ranges])
    rows = rows_in(ranges)
    best = top_k(scores, k)
    return rows[best], scores[best]


def rows_in(ranges: list[tuple[int, int]]) -> Rows:
    return np.concatenate([np.arange(start, end, dtype=np.int64) for start, end in ranges])


def _assign(centroids: Matrix, points: Matrix) -> npt.NDArray[np.intp]:
    out = np.empty(points.shape[0], dtype=np.intp)
    for start in range(0, points.shape[0], _ASSIGN_BLOCK):
        block = points[start : start + _ASSIGN_BLOCK]
        out[start : start + block.shape[0]] = np.argmax(block @ centroids.T, axis=1)
    return out


def _update(
    centroids: Matrix, points: Matrix, assignment: npt.NDArray[np.intp], rng: np.random.Generator
) -> Matrix:
    sums = np.zeros_like(centroids)
    np.add.at(sums, assignment, points)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    empty = norms[:, 0] == 0
    sums[empty] = points[rng.choice(points.shape[0], int(empty.sum()), replace=False)]
    norms[empty] = 1.0
    updated: Matrix = (sums / norms).astype(np.float32, copy=False)
    return updated
