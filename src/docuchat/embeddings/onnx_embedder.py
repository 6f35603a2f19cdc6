"""all-MiniLM-L6-v2 as an int8 ONNX model on onnxruntime: the fast CPU path.

The model file is built from the installed weights on first use (see
:mod:`docuchat.embeddings.onnx_export`) and cached, so later runs need neither
torch nor the export. Texts are embedded shortest first in small batches:
padding is wasted work, and on a CPU small batches run faster per text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from docuchat.embeddings.base import Vectors, l2_normalize
from docuchat.embeddings.onnx_export import INPUT_NAMES, OUTPUT_NAME, export_int8
from docuchat.embeddings.weights import MINILM_ID, MiniLMWeights


class OnnxEmbedder:
    name = f"{MINILM_ID}-onnx-int8"
    dim = 384

    def __init__(self, weights: MiniLMWeights, cache_dir: Path, *, batch_size: int = 4) -> None:
        self._weights = weights
        self._model_file = self.model_file_in(cache_dir)
        self._batch_size = batch_size

    @classmethod
    def model_file_in(cls, cache_dir: Path) -> Path:
        """Where the exported model is cached."""
        return cache_dir / f"{cls.name}.onnx"

    @cached_property
    def _session(self) -> Any:
        import onnxruntime

        if not self._model_file.is_file():
            export_int8(self._weights, self._model_file)
        return onnxruntime.InferenceSession(
            str(self._model_file), providers=["CPUExecutionProvider"]
        )

    @cached_property
    def _tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self._weights.tokenizer_file))
        padding = tokenizer.padding or {}
        tokenizer.enable_truncation(max_length=self._weights.max_seq_length)
        # Pad each batch to its longest text (the file asks for a fixed length).
        tokenizer.enable_padding(
            pad_id=padding.get("pad_id", 0), pad_token=padding.get("pad_token", "[PAD]")
        )
        return tokenizer

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = np.argsort([len(text) for text in texts], kind="stable")
        for start in range(0, len(texts), self._batch_size):
            rows = order[start : start + self._batch_size]
            encodings = self._tokenizer.encode_batch([texts[row] for row in rows])
            feed = {
                INPUT_NAMES[0]: np.array([e.ids for e in encodings], dtype=np.int64),
                INPUT_NAMES[1]: np.array([e.attention_mask for e in encodings], dtype=np.int64),
            }
            out[rows] = self._session.run([OUTPUT_NAME], feed)[0]
        return l2_normalize(out)
