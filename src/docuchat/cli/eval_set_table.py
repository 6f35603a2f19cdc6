"""The human table of ``docuchat eval qa --set``: one row per kind, then overall."""

from __future__ import annotations

from rich.table import Table

from docuchat.evals.business import GOALS, BusinessReport

_ANSWERABLE = ("fact", "two_part", "comparison", "follow_up")
_COLUMNS = ("right", "found", "quoted", "cited", "declined", "wrong")
_CAPTION = (
    "right: one part found and quoted, or every part found and cited;"
    " wrong: answers that do not decline and are not right"
)


def set_table(report: BusinessReport) -> Table:
    scores = report.to_dict()
    kinds, overall, latency = scores["kinds"], scores["overall"], scores["latency_ms"]
    goals = ", ".join(f"{row} {goal}" for row, goal in GOALS.items())
    table = Table(
        caption=f"{_CAPTION}\ngoals (issue 10, sealed part): {goals}\n"
        f"latency per question p50 / p95: {latency['p50']:.0f} / {latency['p95']:.0f} ms\n"
        f"answers (answerable questions) showing a stray quote: {overall['with_stray_quote']:.3f}",
        caption_justify="left",
    )
    table.add_column("", no_wrap=True)
    for header in ("n", *_COLUMNS):
        table.add_column(header, justify="right", no_wrap=True)

    def row(label: str, n: int, **shares: float) -> None:
        table.add_row(label, str(n), *(f"{shares[c]:.3f}" if c in shares else "" for c in _COLUMNS))

    for kind in _ANSWERABLE:
        figures = kinds[kind]
        shares = {c: figures[c] for c in _COLUMNS[:-1]}
        row(kind, figures["n"], **shares, wrong=figures["wrong_as_answer"])
    unanswerable = kinds["unanswerable"]
    row(
        "unanswerable",
        unanswerable["n"],
        declined=unanswerable["declined"],
        wrong=unanswerable["wrong_as_answer"],
    )
    for category, figures in scores["unanswerable_by_category"].items():
        row(f"  {category}", figures["n"], declined=figures["declined"])
    row("overall", overall["n"], right=overall["right"], wrong=overall["wrong_of_all"])
    row("  answered", overall["answered"], wrong=overall["wrong_of_answered"])
    return table
