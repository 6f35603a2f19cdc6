"""The frameworks the benchmark compares, docuchat first (ratios are to it)."""

from __future__ import annotations

from importlib.metadata import version

import loop_docuchat
import loop_langgraph
import loop_pydantic_ai
from loop_work import Framework

FRAMEWORKS: dict[str, Framework] = {
    f.name: f
    for f in (loop_docuchat.FRAMEWORK, loop_pydantic_ai.FRAMEWORK, loop_langgraph.FRAMEWORK)
}
OURS = loop_docuchat.FRAMEWORK.name


def versions(framework: Framework) -> str:
    return ", ".join(f"{d} {version(d)}" for d in framework.distributions)
