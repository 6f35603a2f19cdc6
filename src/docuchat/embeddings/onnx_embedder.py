"""all-MiniLM-L6-v2 as an int8 ONNX model on onnxruntime: the fast CPU path.

The model file is built from the installed weights on first use (see
:mod:`docuchat.embeddings.onnx_export`) and cached, so later runs need neither
torch nor the export.

Each text runs on its own. Dynamic int8 quantisation scales activations over
the whole input, so a text batched with others (and their padding) would get a
slightly different vector each time (cosine 0.994 apart, as far as int8 is
from float32); alone, a text always gets the same vector, which is what a
cache keyed by text needs, and nothing is padded. Texts run in parallel, one
per core, each on a single thread: on 2 cores that embeds 90 SciFact
abstracts a second, against 60 for one text at a time on both cores, whose
threads must meet after every operation.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from docuchat.embeddings.base import Vectors, l2_normalize
from docuchat.embeddings.onnx_export import INPUT_NAMES, OUTPUT_NAME, export_int8
from docuchat.embeddings.weights import MINILM_ID, MiniLMWeights
from docuchat.errors import ConfigError


class OnnxEmbedder:
    name = f"{MINILM_ID}-onnx-int8"
    space = MINILM_ID  # within cosine 0.995 of the float32 vectors: the same space
    dim = 384

    def __init__(self, weights: MiniLMWeights, cache_dir: Path) -> None:
        self._weights = weights
        self._model_file = self.model_file_in(cache_dir)

    @classmethod
    def model_file_in(cls, cache_dir: Path) -> Path:
        """Where the exported model is cached."""
        return cache_dir / f"{cls.name}.onnx"

    def build(self) -> None:
        """Export the model file now if it is not there yet (needs torch; seconds)."""
        if self._model_file.is_file():
            return
        try:
            export_int8(self._weights, self._model_file)
        except OSError as error:  # the models folder cannot be written: a user's setting
            raise ConfigError(
                f"cannot build the embedder's model in {self._model_file.parent}: {error}"
                " (set DOCUCHAT_HOME to a writable folder)"
            ) from error

    @cached_property
    def _session(self) -> Any:
        import onnxruntime

        self.build()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # the parallelism is across texts
        return onnxruntime.InferenceSession(
            str(self._model_file), options, providers=["CPUExecutionProvider"]
        )

    @cached_property
    def _tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self._weights.tokenizer_file))
        tokenizer.enable_truncation(max_length=self._weights.max_seq_length)
        tokenizer.no_padding()  # the file pads to a fixed length; one text needs none
        return tokenizer

    def embed(self, texts: Sequence[str]) -> Vectors:
        session = self._session  # loaded (or built) here, not raced for by the workers

        def embed_one(encoding: Any) -> Vectors:
            feed = {
                INPUT_NAMES[0]: np.array([encoding.ids], dtype=np.int64),
                INPUT_NAMES[1]: np.array([encoding.attention_mask], dtype=np.int64),
            }
            vector: Vectors = session.run([OUTPUT_NAME], feed)[0][0]
            return vector

        encodings = self._tokenizer.encode_batch(list(texts))
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            rows = list(pool.map(embed_one, encodings))
        return l2_normalize(np.array(rows, dtype=np.float32).reshape(len(texts), self.dim))
