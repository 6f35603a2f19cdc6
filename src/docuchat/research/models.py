"""The models a research question can be answered with, by spec string.

``docuchat.models.get_model`` builds the provider adapters; this adds the
models that belong to the research assistant itself: ``offline``, the
extractive model of the research protocol (which ranks sentences by the
store's embedder when it has one), and ``auto``: a model server that answers
here (:func:`docuchat.models.auto.choose_model`), else ``offline``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from docuchat.embeddings import Embedder
from docuchat.models import Model, get_model
from docuchat.models.auto import choose_model
from docuchat.research.offline import OfflineModel

if TYPE_CHECKING:
    from docuchat.models.http_pool import HTTPPool


@dataclass(frozen=True, slots=True)
class ChosenModel:
    model: Model
    choice: str
    """Why this model, for people: what ``auto`` found; empty for a model named outright."""


def choose_research_model(
    spec: str, *, http_client: HTTPPool | None = None, embedder: Embedder | None = None
) -> ChosenModel:
    """The model named by ``spec``: ``offline``, ``auto``, or any spec ``get_model`` knows."""
    if spec == "auto":
        found = choose_model()
        served = found.served_model(http_client=http_client)
        return ChosenModel(served or OfflineModel(embedder=embedder), f"auto: {found.why}")
    if spec == "offline":
        return ChosenModel(OfflineModel(embedder=embedder), "")
    return ChosenModel(get_model(spec, http_client=http_client), "")


def research_model(
    spec: str, *, http_client: HTTPPool | None = None, embedder: Embedder | None = None
) -> Model:
    """The model named by ``spec`` (see :func:`choose_research_model`)."""
    return choose_research_model(spec, http_client=http_client, embedder=embedder).model


__all__ = ["ChosenModel", "choose_research_model", "research_model"]
