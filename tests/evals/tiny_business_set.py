"""A tiny business set written by the tests: two documents, one question of each kind."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from email.message import EmailMessage
from pathlib import Path
from typing import Any

ACME_PAY = "Payment terms are 30 days from the invoice date."
ACME_NOTICE = "Either party may end the contract with 90 days' written notice."
ACME_REGION = "The service runs in Frankfurt."
BRIGHT_PAY = "Invoices are payable within 45 days of receipt."
BRIGHT_NOTICE = "Either party may terminate this agreement with 60 days' written notice."

DOCUMENTS = {
    "acme-terms.md": f"# Acme Hosting Terms\n\n{ACME_PAY} {ACME_NOTICE}\n\n{ACME_REGION}\n",
    "brightline-terms.txt": (
        f"Brightline Subscription Terms\n\n{BRIGHT_PAY}\n{BRIGHT_NOTICE}\n"
        "The platform is hosted in Ireland.\n"
    ),
}


def part(answers: str, document: str, quote: str, subject: str = "") -> dict[str, Any]:
    found = {"answers": [answers], "evidence": [{"document": document, "quote": quote}]}
    return {"subject": subject, **found} if subject else found


QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "t-fact",
        "kind": "fact",
        "question": "What are Acme's payment terms?",
        "parts": [part("30 days", "acme-terms.md", ACME_PAY)],
    },
    {
        "id": "t-two",
        "kind": "two_part",
        "question": "Where does the Acme service run, and what are its payment terms?",
        "parts": [
            part("Frankfurt", "acme-terms.md", ACME_REGION),
            part("30 days", "acme-terms.md", ACME_PAY),
        ],
    },
    {
        "id": "t-cmp",
        "kind": "comparison",
        "question": "Compare the notice periods of Acme and Brightline.",
        "parts": [
            part("90 days", "acme-terms.md", ACME_NOTICE, "Acme"),
            part("60 days", "brightline-terms.txt", BRIGHT_NOTICE, "Brightline"),
        ],
    },
    {
        "id": "t-fu",
        "kind": "follow_up",
        "history": ["What are Acme's payment terms?"],
        "question": "And Brightline's?",
        "parts": [part("45 days", "brightline-terms.txt", BRIGHT_PAY)],
    },
    {
        "id": "t-un-bank",
        "kind": "unanswerable",
        "category": "absent_kind",
        "question": "What is Acme's bank account number?",
    },
    {
        "id": "t-un-late",
        "kind": "unanswerable",
        "category": "near_miss",
        "question": "What late-payment interest does Acme charge?",
        "note": "payment terms only",
    },
]


def write_set(
    folder: Path,
    questions: Iterable[Mapping[str, Any]] = QUESTIONS,
    documents: Mapping[str, str] = DOCUMENTS,
) -> Path:
    (folder / "documents").mkdir(parents=True)
    for name, text in documents.items():
        (folder / "documents" / name).write_text(text, encoding="utf-8")
    lines = "".join(json.dumps(q) + "\n" for q in questions)
    (folder / "questions.jsonl").write_text(lines, encoding="utf-8")
    return folder


SCHEDULE_ROW = "2 | LED lighting | 2025-10-06"


def write_email(path: Path, attachments: Mapping[str, bytes] = {}) -> None:
    """An e-mail with a CSV schedule attached (its rows extracted as ``SCHEDULE_ROW``), and
    ``attachments`` besides."""
    message = EmailMessage()
    message["From"] = "Owen Fletcher <owen@fennimore.example>"
    message["To"] = "Lucy Grant <lucy@fennimore.example>"
    message["Subject"] = "Harrogate refit"
    message.set_content("Hi Lucy,\n\nThe refit schedule is attached.\n")
    schedule = b"Phase,Work,Start\n1,Stockroom clearance,2025-09-29\n2,LED lighting,2025-10-06\n"
    files = {"schedule.csv": schedule, **attachments}
    for name, data in files.items():
        message.add_attachment(data, maintype="application", subtype="octet-stream", filename=name)
    path.write_bytes(bytes(message))
