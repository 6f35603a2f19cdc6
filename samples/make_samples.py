"""Regenerate the two binary sample documents (PDF and DOCX) from the text below.

Not part of the build: the generated files are committed. To regenerate,
in any environment with ``reportlab`` and ``python-docx`` installed::

    python samples/make_samples.py

The Markdown and HTML samples are written by hand and not generated.
"""

from __future__ import annotations

from pathlib import Path

import docx
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer

DOCUMENTS = Path(__file__).parent / "documents"

HANDBOOK_TITLE = "Larkspur Analytics Employee Handbook"
# Each page: a list of (heading, paragraphs); a heading of None is the page's lead text.
HANDBOOK = [
    [
        (
            None,
            [
                "Edition 4, published 3 March 2025 by the People team. This handbook applies to "
                "every employee of Larkspur Analytics Ltd in the United Kingdom and Portugal. "
                "Questions about it go to Grace Okafor, People Lead, at people@larkspur.example.",
            ],
        ),
        (
            "1. About Larkspur",
            [
                "Larkspur Analytics is a data consultancy founded in 2016 in Leeds by Priya Raman "
                "(Chief Executive) and Tomás Ferreira (Chief Technology Officer). We help "
                "hospitals, councils and housing associations make sense of their data. In "
                "January 2025 we were 48 people: 39 in the Leeds office at 14 Wharf Street and 9 "
                "in the Lisbon office, which opened in September 2023.",
            ],
        ),
        (
            "2. Working hours",
            [
                "The standard working week is 37.5 hours. Core hours, when everyone is available "
                "for meetings, are 10:00 to 15:00 from Monday to Thursday and 10:00 to 13:00 on "
                "Fridays. Outside core hours you choose when you work, as long as your team "
                "knows how to reach you.",
            ],
        ),
        (
            "3. Annual leave",
            [
                "Full-time employees get 27 days of paid annual leave per year, plus the eight "
                "UK bank holidays (Portuguese public holidays in Lisbon). Part-time employees get "
                "the same allowance pro rata. After five years of service you gain one extra day "
                "per additional year of service, up to a maximum of 32 days.",
                "The leave year runs from 1 January to 31 December. Up to 5 unused days may be "
                "carried over into the next year, and carried-over days must be taken by "
                "31 March. Book leave in the Tally HR system; for more than three consecutive "
                "days, book at least two weeks in advance. The office closes from 27 to "
                "31 December, and these closure days do not count against your allowance.",
            ],
        ),
    ],
    [
        (
            "4. Sickness",
            [
                "If you are ill, tell your line manager by 09:30 on your first day of absence. "
                "You can self-certify absences of up to 7 calendar days; after that we need a fit "
                "note from a doctor. You receive full pay for up to 10 working days of sick leave "
                "in any rolling 12-month period, and statutory sick pay after that.",
            ],
        ),
        (
            "5. Parental leave",
            [
                "Birth and adoptive parents receive 16 weeks of leave on full pay, followed by "
                "statutory pay for the rest of their leave. Partners receive 6 weeks on full "
                "pay. Both apply once you have completed 6 months of service.",
            ],
        ),
        (
            "6. Hybrid and remote work",
            [
                "We work in the office at least two days a week; Tuesday and Wednesday are team "
                "days, when everyone comes in. With your manager's approval you may work from "
                "another country for up to 20 working days per calendar year.",
            ],
        ),
        (
            "7. Equipment",
            [
                "Everyone chooses a MacBook Pro or a ThinkPad laptop, replaced every three "
                "years. New starters also receive a one-off home office allowance of £400 for a "
                "chair, desk or screen.",
            ],
        ),
        (
            "8. Probation and notice",
            [
                "New employees serve a probation period of three months, with a review meeting "
                "in week ten. During probation the notice period is one week on either side. "
                "After probation it is one month, or three months for managers and directors.",
            ],
        ),
    ],
]

BENEFITS_TITLE = "Benefits Summary 2025"
BENEFITS_INTRO = (
    "This summary lists the benefits every permanent Larkspur Analytics employee receives in "
    "2025. Benefits start on your first day unless a waiting period is shown. The full terms "
    "are in each provider's policy documents, available from the People team."
)
BENEFITS = [
    ("Pension", "Larkspur pays 6% of salary when you contribute at least 4%.", "None"),
    ("Private health insurance", "Covers you, your partner and children.", "None"),
    ("Learning budget", "£1,200 per person per year, plus 5 learning days.", "3 months"),
    ("Life assurance", "Four times annual salary.", "None"),
    ("Cycle to work", "Bicycles and equipment up to £2,500, paid from gross salary.", "3 months"),
    ("Eye tests", "Reimbursed up to £50 every two years.", "None"),
    ("Share options", "EMI share options, granted each April.", "12 months"),
]
BENEFITS_CLOSING = (
    "The employee assistance programme offers free, confidential counselling by phone 24 hours "
    "a day. The company pays for a team lunch in each office every Friday."
)


def make_handbook_pdf(path: Path) -> None:
    styles = getSampleStyleSheet()
    story: list[object] = [Paragraph(HANDBOOK_TITLE, styles["Title"])]
    for number, page in enumerate(HANDBOOK):
        if number:
            story.append(PageBreak())
        for heading, paragraphs in page:
            if heading:
                story.append(Paragraph(heading, styles["Heading2"]))
            for text in paragraphs:
                story.extend([Paragraph(text, styles["BodyText"]), Spacer(1, 0.2 * cm)])
    document = SimpleDocTemplate(
        str(path),
        pagesize=A4,
        title=HANDBOOK_TITLE,
        author="Larkspur Analytics People team",
        subject="Employment policies",
        creator="docuchat samples/make_samples.py",
        leftMargin=2.5 * cm,
        rightMargin=2.5 * cm,
    )
    document.build(story)


def make_benefits_docx(path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = BENEFITS_TITLE
    document.core_properties.author = "Larkspur Analytics People team"
    document.add_heading(BENEFITS_TITLE, level=1)
    document.add_paragraph(BENEFITS_INTRO)
    table = document.add_table(rows=1, cols=3)
    table.style = "Light Grid Accent 1"
    header = ("Benefit", "What you get", "Waiting period")
    for cell, label in zip(table.rows[0].cells, header, strict=True):
        cell.text = label
    for row in BENEFITS:
        for cell, value in zip(table.add_row().cells, row, strict=True):
            cell.text = value
    document.add_heading("Support", level=2)
    document.add_paragraph(BENEFITS_CLOSING)
    document.save(str(path))


if __name__ == "__main__":
    make_handbook_pdf(DOCUMENTS / "employee-handbook.pdf")
    make_benefits_docx(DOCUMENTS / "benefits-summary.docx")
