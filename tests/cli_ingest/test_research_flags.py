"""``ask``'s research controls from flags and from ``[research]`` in the config file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import run, run_json
from .test_user_errors import write_config


def tool_names(answer: dict[str, Any]) -> list[str]:
    """The tools that ran (a call past a limit is answered with an error instead)."""
    return [e["name"] for e in answer["trace"] if e["type"] == "tool_call_finished" and e["ok"]]


def test_the_detail_level_comes_from_the_flag_else_the_config_file(
    good_folder: Path, home: Path
) -> None:
    run("ingest", str(good_folder))
    question = ["ask", "What do volcanoes, glaciers and tides do?", "--mode", "pipeline"]

    standard = run_json(*question)
    brief = run_json(*question, "--detail", "brief")
    write_config(home, '[research]\ndetail = "detailed"\n')
    detailed = run_json(*question)

    assert tool_names(standard).count("open_citation") == 3
    assert tool_names(brief).count("open_citation") == 2
    assert tool_names(detailed).count("open_citation") == 4  # every passage there is
    assert run_json("config")["settings"]["research"]["value"]["detail"] == "detailed"


def test_limits_from_flags_bound_the_agent(good_folder: Path) -> None:
    run("ingest", str(good_folder))

    answer = run_json("ask", "What do volcanoes do?", "--max-tool-calls", "1")

    assert tool_names(answer) == ["search_docs"]  # the one call the flag allows
    limits = [e for e in answer["trace"] if e["type"] == "limit_reached"]
    assert [e["limit"] for e in limits] == ["max_tool_calls"]


def test_a_model_outside_models_allowed_is_refused_and_one_below_the_bar_runs_the_pipeline(
    good_folder: Path, home: Path
) -> None:
    run("ingest", str(good_folder))
    write_config(
        home,
        '[research]\nmodels_allowed = ["scripted", "offline"]\nmin_model_for_agent = "offline"\n',
    )

    refused = run("ask", "Why do tides happen?", "--model", "anthropic:claude")
    weak = run_json("ask", "Why do tides happen?", "--model", "scripted")
    strong = run_json("ask", "Why do tides happen?")

    assert refused.exit_code == 1
    assert "'anthropic:claude' is not in [research] models_allowed" in refused.output
    assert (weak["mode"], weak["mode_reason"]) == (
        "pipeline",
        "scripted is below min_model_for_agent (offline): the fixed pipeline answered",
    )
    assert (strong["mode"], strong["mode_reason"]) == ("agent", "")
    assert "below min_model_for_agent" in run("ask", "Tides?", "--model", "scripted").stdout


def test_a_misspelt_research_key_is_named_with_its_table(home: Path) -> None:
    path = write_config(home, '[research]\ndetial = "brief"\n')

    result = run("config")

    assert result.exit_code == 1
    assert f"{path}: unknown key 'research.detial' (did you mean 'research.detail'?)" in (
        result.output
    )
