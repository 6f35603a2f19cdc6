"""What the end-to-end answer evals share: the cached index folder, the research agent over
it, and the summary statistics they report."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from docuchat.corpus.ingest import Progress, embed_pending
from docuchat.embeddings import Embedder
from docuchat.errors import ConfigError
from docuchat.models.base import Model
from docuchat.research import ResearchAgent
from docuchat.research.offline import OfflineModel
from docuchat.research.relevance import THRESHOLDS, Thresholds
from docuchat.search.hybrid import HybridSearcher
from docuchat.store import Store


@dataclass(frozen=True, slots=True)
class IndexStatus:
    """Where the documents were indexed, and what this run had to add."""

    path: Path | None
    """The cached store; None for a temporary one."""
    added: int
    """Documents ingested by this run (0 when the cached index held them all)."""
    embedded: int
    """Texts embedded by this run (0 when every vector was cached)."""

    @property
    def reused(self) -> bool:
        return self.path is not None and self.added == 0 and self.embedded == 0


@contextmanager
def index_folder(key: str, cache_root: Path | None) -> Iterator[Path]:
    """The cached index's folder ``cache_root/key``, or a temporary one without a root."""
    if cache_root is None:
        with tempfile.TemporaryDirectory(prefix="docuchat-qa-") as temporary:
            yield Path(temporary)
        return
    cached = cache_root / key
    try:
        cached.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the index folder {cached}: {exc.strerror}") from exc
    yield cached


def research_agent(
    store: Store,
    owner: str,
    model: Model,
    embedder: Embedder | None,
    progress: Progress | None = None,
    thresholds: Thresholds = THRESHOLDS,
) -> tuple[ResearchAgent, int]:
    """The research agent (agent mode) over ``owner``'s documents, and how many texts had
    to be embedded first. With an embedder, search is hybrid and the offline model also
    ranks the sentences it reads by the embedder's similarity. ``thresholds``: how the agent
    (and the offline model) judge whether a sentence addresses the question."""
    embedded = 0
    if isinstance(model, OfflineModel):
        model = model.with_thresholds(thresholds)
    if embedder is not None:
        embedded = embed_pending(store, owner, embedder, progress=progress)
        if isinstance(model, OfflineModel):
            model = model.with_embedder(embedder)
    agent = ResearchAgent(HybridSearcher(store, embedder), model, owner, thresholds=thresholds)
    return agent, embedded


def mean(values: Iterable[float]) -> float:
    """The mean rounded to 4 places (0 when there are no values)."""
    items = list(values)
    return round(sum(items) / len(items), 4) if items else 0.0


def percentile(ordered: Sequence[float], percent: float) -> float:
    """Nearest-rank percentile of sorted values (0 when there are none)."""
    if not ordered:
        return 0.0
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


__all__ = ["IndexStatus", "index_folder", "mean", "percentile", "research_agent"]
