"""Build the int8 ONNX model of all-MiniLM-L6-v2 from the installed weights, once.

The graph takes ``input_ids`` and ``attention_mask`` and returns the
sentence-transformers embedding itself (mean pooling over real tokens, then L2
normalisation), so the runtime needs only onnxruntime and a tokenizer. Weights
are quantised to int8 per output channel ("dynamic" quantisation: activations
are quantised on the fly), which keeps cosine similarity to the PyTorch
vectors above 0.99 while running about twice as fast on a CPU. Per-tensor
quantisation does not: it drops that similarity to about 0.93.

Needs torch, transformers and onnx at export time only; nothing is downloaded.
"""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from docuchat.embeddings.weights import MiniLMWeights, isolate_hugging_face

INPUT_NAMES = ("input_ids", "attention_mask")
OUTPUT_NAME = "embedding"


def export_int8(weights: MiniLMWeights, target: Path) -> None:
    """Write the quantised model to ``target`` atomically (a crash leaves no partial file)."""
    isolate_hugging_face()
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    class PooledEncoder(torch.nn.Module):
        def __init__(self, encoder: Any) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.encoder(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=torch.zeros_like(input_ids),
            ).last_hidden_state
            return torch.nn.functional.normalize(mean_of(hidden, attention_mask), p=2.0, dim=1)

    encoder = AutoModel.from_pretrained(str(weights.folder)).eval()
    with building(target) as int8:
        fp32 = int8.with_name("fp32.onnx")
        export_tokens_model(PooledEncoder(encoder), fp32, INPUT_NAMES, OUTPUT_NAME)
        quantize_dynamic(fp32, int8, per_channel=True, weight_type=QuantType.QInt8)


@contextmanager
def building(target: Path) -> Iterator[Path]:
    """A file to build ``target`` in, in a scratch folder beside it, moved into place when
    the build ends well (a crash leaves no partial file), the exporters' noise silenced."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with _quiet(), tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        built = Path(scratch) / target.name
        yield built
        os.replace(built, target)


def mean_of(tokens: Any, mask: Any) -> Any:
    """The mean of each row's output tokens (torch tensors), its padding left out."""
    weights = mask.unsqueeze(-1).to(tokens.dtype)
    return (tokens * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1e-9)


def export_tokens_model(
    module: Any, target: Path, inputs: Sequence[str], output: str, batch: int = 2
) -> None:
    """Trace ``module``, whose inputs are token rows (a batch of ids, a mask...), into an ONNX
    file at ``target``, batch and length left free."""
    import torch

    example = torch.ones((batch, 8), dtype=torch.long)
    token_axes = {0: "batch", 1: "tokens"}
    with torch.no_grad():
        torch.onnx.export(
            module,
            tuple(example for _ in inputs),
            str(target),
            dynamo=False,
            input_names=list(inputs),
            output_names=[output],
            dynamic_axes={**dict.fromkeys(inputs, token_axes), output: {0: "batch"}},
            opset_version=17,
        )


@contextmanager
def _quiet() -> Iterator[None]:
    """The exporter's tracer warnings and the quantiser's advice are noise to our users."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.disable(logging.WARNING)
        try:
            yield
        finally:
            logging.disable(logging.NOTSET)
