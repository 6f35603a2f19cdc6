"""The reader's model built once from the installed MiniLM weights and its adapters, for
onnxruntime (``research.reader``), and the torch pieces that train it
(``bench/train_reader.py``).

The adapters (``reader_adapters.npz``: for each of MiniLM's six layers, a low-rank update
``B·A`` of the linear layers ``ADAPTED``, and the head over the mean of the output tokens)
are merged into the weights, W + B·A, and the whole reader, up to its logit, is exported in
float32: the learned score's weight on the logit was fitted on torch's logits, which int8
would move. Needs torch, transformers and onnx at export time only; nothing is downloaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docuchat.embeddings.onnx_export import building, export_tokens_model, mean_of
from docuchat.embeddings.weights import MiniLMWeights, isolate_hugging_face
from docuchat.research.reader import INPUT_NAMES, MAX_TOKENS, OUTPUT_NAME, Pair

ADAPTED = ("query", "value", "intermediate", "output")
"""The linear layers of each MiniLM layer that carry adapters (``adapted``'s order)."""


def adapted(layer: Any) -> tuple[Any, Any, Any, Any]:
    """A MiniLM (BERT) layer's linear layers named by ``ADAPTED``."""
    attention = layer.attention.self
    return attention.query, attention.value, layer.intermediate.dense, layer.output.dense


def pooled(model: Any, tokenizer: Any, pairs: Sequence[Pair]) -> Any:
    """``mean_of`` the model's output for each pair, read together (``MAX_TOKENS``, the
    sentence cut) by a transformers tokenizer, padded to the longest."""
    encoded = tokenizer(
        [q for q, _ in pairs],
        [s for _, s in pairs],
        truncation="only_second",
        max_length=MAX_TOKENS,
        padding=True,
        return_tensors="pt",
    )
    return mean_of(model(**encoded).last_hidden_state, encoded["attention_mask"])


def merged(weights: MiniLMWeights, adapters: Path) -> tuple[Any, Any]:
    """MiniLM with the adapters merged into its layers, and the head (a torch Linear)."""
    isolate_hugging_face()
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(weights.folder)).eval()
    head = torch.nn.Linear(model.config.hidden_size, 1)
    with np.load(adapters) as arrays, torch.no_grad():
        for i, layer in enumerate(model.encoder.layer):
            for name, linear in zip(ADAPTED, adapted(layer), strict=True):
                update = arrays[f"{i}.{name}.b"] @ arrays[f"{i}.{name}.a"]
                linear.weight += torch.from_numpy(update)
        head.weight.copy_(torch.from_numpy(arrays["head.weight"]))
        head.bias.copy_(torch.from_numpy(arrays["head.bias"]))
    return model, head.eval()


def export_reader(weights: MiniLMWeights, adapters: Path, target: Path) -> None:
    """Write the reader's model to ``target`` atomically (a crash leaves no partial file)."""
    import torch

    model, head = merged(weights, adapters)

    class Logit(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model, self.head = model, head

        def forward(self, ids: Any, mask: Any, types: Any) -> Any:
            tokens = self.model(input_ids=ids, attention_mask=mask, token_type_ids=types)
            return self.head(mean_of(tokens.last_hidden_state, mask)).squeeze(-1)

    with building(target) as built:
        export_tokens_model(Logit(), built, INPUT_NAMES, OUTPUT_NAME, batch=1)


__all__ = ["ADAPTED", "adapted", "export_reader", "merged", "pooled"]
