"""Embedders behind one interface, chosen by a spec string.

=========================  =========================================================
spec                       embedder
=========================  =========================================================
``minilm``                 all-MiniLM-L6-v2 on sentence-transformers + PyTorch, float32
                           (the reference numerics)
``minilm-bf16``            the same in bfloat16: same retrieval quality, 3.7x as fast
                           on CPUs with native bfloat16 (Intel AMX, AVX512-BF16)
``minilm-onnx``            the same weights as an int8 ONNX model on onnxruntime:
                           same retrieval quality, 2.3x as fast as float32 here, and
                           no PyTorch needed once built
``openai:<model>``         an OpenAI-compatible ``/embeddings`` endpoint
                           (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``)
``hash`` / ``hash:<dim>``  a hashed bag of words: no model, for tests and minimal installs
``none``                   no vectors: search is BM25 only
``auto``                   the best local variant of all-MiniLM-L6-v2 for the ``purpose``
                           (below); ``none`` without the ``embed`` extra
=========================  =========================================================

The three MiniLM variants share one vector space (``Embedder.space``): texts
embedded by one are searched with queries embedded by another. So ``auto``
picks per purpose: for ``documents`` (ingest: many texts) the fastest
throughput, ``minilm-bf16`` on CPUs with native bfloat16, else
``minilm-onnx``, else ``minilm``; for ``queries`` (search, ask: one text in
a fresh process) the fastest start, ``minilm-onnx``, which needs no PyTorch
(importing it takes seconds), else the PyTorch variants.

The local models need the ``embed`` extra (``pip install 'docuchat[embed]'``);
heavy libraries are imported only when a model first embeds something.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from docuchat.config import default_home
from docuchat.embeddings.base import Embedder, Vectors, l2_normalize
from docuchat.embeddings.hashing import HashingEmbedder
from docuchat.embeddings.onnx_embedder import OnnxEmbedder
from docuchat.embeddings.sentence_transformer import SentenceTransformerEmbedder, native_bfloat16
from docuchat.embeddings.weights import MiniLMWeights, find_minilm_weights, installed
from docuchat.errors import ConfigError

if TYPE_CHECKING:
    from docuchat.embeddings.openai import OpenAIEmbedder

_EXTRA_HINT = "install the embed extra: pip install 'docuchat[embed]'"
_ONNX_RUNTIME = ("onnxruntime", "tokenizers")
_ONNX_EXPORT = ("torch", "transformers", "onnx")

Purpose = Literal["documents", "queries"]
"""What an embedder is for: many texts to store, or one question in a fresh process."""


def get_embedder(
    spec: str, *, purpose: Purpose = "documents", cache_dir: Path | None = None
) -> Embedder | None:
    """The embedder named by ``spec`` (see the module docstring); None for ``none``.

    ``purpose`` only matters to ``auto``. ``cache_dir`` holds models built
    locally (the ONNX export); it defaults to ``$DOCUCHAT_HOME/models``.
    """
    models = cache_dir or default_home() / "models"
    kind, _, arg = spec.partition(":")
    if spec == "none":
        return None
    if spec == "auto":
        return _auto(models, purpose)
    if spec in ("minilm", "minilm-bf16"):
        return _sentence_transformer(_require_weights(spec), bfloat16=spec == "minilm-bf16")
    if spec == "minilm-onnx":
        return _onnx(_require_weights(spec), models)
    if kind == "openai" and arg:
        from docuchat.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder.from_env(arg)
    if kind == "hash":
        return HashingEmbedder(_hash_dim(arg))
    raise ConfigError(
        f"unknown embedder {spec!r}: use minilm, minilm-bf16, minilm-onnx, openai:<model>, "
        "hash[:<dim>], none or auto"
    )


def _auto(models: Path, purpose: Purpose) -> Embedder | None:
    weights = find_minilm_weights()
    if weights is None:
        return None
    bfloat16 = native_bfloat16() and installed("sentence_transformers")
    exported = OnnxEmbedder.model_file_in(models).is_file()
    onnx = installed(*_ONNX_RUNTIME) and (exported or installed(*_ONNX_EXPORT))
    if bfloat16 and purpose == "documents":
        return _sentence_transformer(weights, bfloat16=True)
    if onnx:
        return _onnx(weights, models)
    if installed("sentence_transformers"):
        return _sentence_transformer(weights, bfloat16=bfloat16)
    return None


def prepare_for_queries(spec: str, *, cache_dir: Path | None = None) -> Embedder | None:
    """Build what ``spec``'s query embedder needs (the int8 export, once per home) now,
    while ingesting, rather than in the first question's cold start; that embedder."""
    embedder = get_embedder(spec, purpose="queries", cache_dir=cache_dir)
    if isinstance(embedder, OnnxEmbedder):
        embedder.build()
    return embedder


def _require_weights(spec: str) -> MiniLMWeights:
    weights = find_minilm_weights()
    if weights is None:
        raise ConfigError(f"embedder {spec!r} needs the all-MiniLM-L6-v2 weights: {_EXTRA_HINT}")
    return weights


def _sentence_transformer(weights: MiniLMWeights, *, bfloat16: bool) -> Embedder:
    if not installed("sentence_transformers"):
        raise ConfigError(f"embedder 'minilm' needs sentence-transformers: {_EXTRA_HINT}")
    return SentenceTransformerEmbedder(weights, bfloat16=bfloat16)


def _onnx(weights: MiniLMWeights, models: Path) -> Embedder:
    exported = OnnxEmbedder.model_file_in(models).is_file()
    needed = _ONNX_RUNTIME if exported else _ONNX_RUNTIME + _ONNX_EXPORT
    if not installed(*needed):
        raise ConfigError(f"embedder 'minilm-onnx' needs {', '.join(needed)}: {_EXTRA_HINT}")
    return OnnxEmbedder(weights, models)


def _hash_dim(arg: str) -> int:
    if not arg:
        return HashingEmbedder.DEFAULT_DIM
    if not arg.isdigit():
        raise ConfigError(f"hash embedder dimension must be an integer, got {arg!r}")
    return int(arg)


def __getattr__(name: str) -> Any:
    # The HTTP embedder brings httpx and aiohttp: imported when asked for, not by every
    # command that only needs a local model.
    if name == "OpenAIEmbedder":
        from docuchat.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Embedder",
    "HashingEmbedder",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "Purpose",
    "SentenceTransformerEmbedder",
    "Vectors",
    "get_embedder",
    "l2_normalize",
    "prepare_for_queries",
]
