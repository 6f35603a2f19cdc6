"""Build the set's DOCX, PDF, XLSX and PPTX documents from their plain-text sources.

    .venv/bin/python evals/business/tools/build_documents.py evals/business/dev

reads every ``<part>/sources/<name>.<format>.txt`` and writes ``<part>/documents/<name>.<format>``:
DOCX (python-docx), PDF (reportlab), XLSX (openpyxl) or PPTX (python-pptx). The generated
files are committed: the eval never builds anything. Needs those four packages
(``pip install python-docx reportlab openpyxl python-pptx``).

The source markup, one element per paragraph (blank lines separate paragraphs):

    @title: Core title            document metadata
    @footer: Text                 PDF only: printed at the foot of every page with its number
    @notes: Text                  PPTX only: the slide's speaker notes
    # Title                       the document's title line (PPTX: the title slide; the
                                  paragraph after it is its subtitle)
    ## Heading / ### Subheading   (XLSX: ## starts a sheet of that name; PPTX: ## a slide)
    - bullet item / 1. numbered item
    | a | b | c |                 table rows (consecutive lines; the first is the header)
    @pagebreak
    anything else                 a paragraph (its lines joined by spaces)

In an XLSX a paragraph is a row of one cell, and a table cell that is a plain number
("1,150", "18.50") is written as a number, as a spreadsheet holds it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

FIXED_DATE = datetime(2025, 9, 1)  # so that a rebuild changes no metadata
_NUMBERED = re.compile(r"^(\d+)\.\s+(.*)$")
_NUMBER = re.compile(r"^-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")


@dataclass
class Element:
    kind: str  # title, h1, h2, para, bullet, number, table, pagebreak, notes
    text: str = ""
    rows: list[list[str]] = field(default_factory=list)
    number: int = 0


@dataclass
class Source:
    title: str
    footer: str
    elements: list[Element]


def read_source(path: Path) -> Source:
    title, footer, elements = "", "", []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        table: list[list[str]] = []
        for line in lines:
            if line.startswith("|"):
                table.append([cell.strip() for cell in line.strip("|").split("|")])
                continue
            if table:
                elements.append(Element("table", rows=table))
                table = []
            if line.startswith("@title:"):
                title = line.removeprefix("@title:").strip()
            elif line.startswith("@footer:"):
                footer = line.removeprefix("@footer:").strip()
            elif line.startswith("@notes:"):
                elements.append(Element("notes", line.removeprefix("@notes:").strip()))
            elif line == "@pagebreak":
                elements.append(Element("pagebreak"))
            elif line.startswith("### "):
                elements.append(Element("h2", line[4:]))
            elif line.startswith("## "):
                elements.append(Element("h1", line[3:]))
            elif line.startswith("# "):
                elements.append(Element("title", line[2:]))
            elif line.startswith("- "):
                elements.append(Element("bullet", line[2:]))
            elif numbered := _NUMBERED.match(line):
                elements.append(Element("number", numbered[2], number=int(numbered[1])))
            elif elements and elements[-1].kind == "para":
                elements[-1].text += " " + line  # a paragraph wrapped over several lines
            else:
                elements.append(Element("para", line))
        if table:
            elements.append(Element("table", rows=table))
        # A new block always starts a new paragraph.
        elements.append(Element("end"))
    return Source(title, footer, [e for e in elements if e.kind != "end"])


def build_docx(source: Source, target: Path) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = source.title
    document.core_properties.author = "docuchat evaluation set"
    document.core_properties.created = FIXED_DATE
    document.core_properties.modified = FIXED_DATE
    for element in source.elements:
        if element.kind == "title":
            document.add_heading(element.text, level=0)
        elif element.kind in ("h1", "h2"):
            document.add_heading(element.text, level=1 if element.kind == "h1" else 2)
        elif element.kind == "bullet":
            document.add_paragraph(element.text, style="List Bullet")
        elif element.kind == "number":
            document.add_paragraph(element.text, style="List Number")
        elif element.kind == "table":
            table = document.add_table(rows=0, cols=len(element.rows[0]))
            table.style = "Table Grid"
            for row in element.rows:
                cells = table.add_row().cells
                for cell, text in zip(cells, row, strict=True):
                    cell.text = text
        elif element.kind == "pagebreak":
            document.add_page_break()
        else:
            document.add_paragraph(element.text)
    document.save(str(target))


def build_pdf(source: Source, target: Path) -> None:
    from reportlab import rl_config
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.lib.units import cm
    from reportlab.platypus import (
        PageBreak,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    rl_config.invariant = True  # no creation date or random id: the same bytes every build
    styles = getSampleStyleSheet()
    flow: list[object] = []
    for element in source.elements:
        text = escape(element.text)
        if element.kind == "title":
            flow.append(Paragraph(text, styles["Title"]))
        elif element.kind == "h1":
            flow.append(Paragraph(text, styles["Heading2"]))
        elif element.kind == "h2":
            flow.append(Paragraph(text, styles["Heading3"]))
        elif element.kind == "bullet":
            flow.append(Paragraph(f"• {text}", styles["BodyText"]))
        elif element.kind == "number":
            flow.append(Paragraph(f"{element.number}. {text}", styles["BodyText"]))
        elif element.kind == "table":
            cells = [[Paragraph(escape(c), styles["BodyText"]) for c in r] for r in element.rows]
            table = Table(cells, hAlign="LEFT")
            table.setStyle(
                TableStyle(
                    [
                        ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                        ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                        ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ]
                )
            )
            flow += [table, Spacer(1, 0.3 * cm)]
        elif element.kind == "pagebreak":
            flow.append(PageBreak())
        else:
            flow.append(Paragraph(text, styles["BodyText"]))

    def footer(canvas: object, document: object) -> None:
        if source.footer:
            canvas.setFont("Helvetica", 8)  # type: ignore[attr-defined]
            page = canvas.getPageNumber()  # type: ignore[attr-defined]
            canvas.drawString(2 * cm, 1.2 * cm, f"{source.footer} - page {page}")  # type: ignore[attr-defined]

    pdf = SimpleDocTemplate(
        str(target),
        pagesize=A4,
        title=source.title,
        author="docuchat evaluation set",
        leftMargin=2.2 * cm,
        rightMargin=2.2 * cm,
        topMargin=2 * cm,
        bottomMargin=2.2 * cm,
    )
    pdf.build(flow, onFirstPage=footer, onLaterPages=footer)


def build_xlsx(source: Source, target: Path) -> None:
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    workbook.properties.title = source.title
    workbook.properties.creator = "docuchat evaluation set"
    workbook.properties.created = FIXED_DATE
    sheet = None
    for element in source.elements:
        if element.kind == "h1":
            sheet = workbook.create_sheet(element.text)
            continue
        if sheet is None:
            raise SystemExit(f"{target}: a sheet (## Name) must come before any row")
        if element.kind == "table":
            for row in element.rows:
                sheet.append([_cell_value(cell) for cell in row])
        else:
            sheet.append([element.text])
    workbook.save(str(target))


def _cell_value(text: str) -> str | int | float:
    if not _NUMBER.match(text):
        return text
    number = text.replace(",", "")
    return float(number) if "." in number else int(number)


def build_pptx(source: Source, target: Path) -> None:
    from pptx import Presentation
    from pptx.util import Cm, Pt

    deck = Presentation()
    deck.core_properties.title = source.title
    deck.core_properties.author = "docuchat evaluation set"
    deck.core_properties.created = FIXED_DATE
    deck.core_properties.modified = FIXED_DATE
    left, width, line_height = Cm(1.5), deck.slide_width - Cm(3), Cm(0.8)
    slides: list[tuple[Any, list[Element]]] = []
    for element in source.elements:
        if element.kind in ("title", "h1"):
            layout = deck.slide_layouts[0 if element.kind == "title" else 5]  # title / title only
            slide = deck.slides.add_slide(layout)
            slide.shapes.title.text = element.text
            slides.append((slide, []))
        elif not slides:
            raise SystemExit(f"{target}: a slide (# or ##) must come before any content")
        else:
            slides[-1][1].append(element)
    for slide, elements in slides:
        if len(slide.placeholders) > 1 and elements and elements[0].kind == "para":
            slide.placeholders[1].text = elements.pop(0).text  # the title slide's subtitle
        top: int = Cm(4.5)
        for group in _runs_of_text(elements):
            if group[0].kind == "notes":
                slide.notes_slide.notes_text_frame.text = group[0].text
            elif group[0].kind == "table":
                rows = group[0].rows
                shape = slide.shapes.add_table(len(rows), len(rows[0]), left, top, width, Cm(1))
                for r, row in enumerate(rows):
                    for c, text in enumerate(row):
                        cell = shape.table.cell(r, c)
                        cell.text = text
                        cell.text_frame.paragraphs[0].font.size = Pt(12)
                top += Cm(1) * len(rows) + Cm(0.5)
            else:
                lines = [f"{e.number}. {e.text}" if e.kind == "number" else e.text for e in group]
                height = line_height * sum(1 + len(line) // 90 for line in lines)
                frame = slide.shapes.add_textbox(left, top, width, height).text_frame
                frame.word_wrap = True
                frame.text = lines[0]
                for line in lines[1:]:
                    frame.add_paragraph().text = line
                for paragraph in frame.paragraphs:
                    paragraph.font.size = Pt(16)
                top += height + Cm(0.3)
    deck.save(str(target))


def _runs_of_text(elements: list[Element]) -> list[list[Element]]:
    """A slide's elements grouped: each table and each note alone, consecutive text together
    (one text box)."""
    groups: list[list[Element]] = []
    for element in elements:
        alone = element.kind in ("table", "notes")
        if alone or not groups or groups[-1][0].kind in ("table", "notes"):
            groups.append([element])
        else:
            groups[-1].append(element)
    return groups


def main(parts: list[str]) -> None:
    builders = {"docx": build_docx, "pdf": build_pdf, "xlsx": build_xlsx, "pptx": build_pptx}
    for part in map(Path, parts):
        for path in sorted((part / "sources").glob("*.txt")):
            name = path.name.removesuffix(".txt")
            suffix = name.rsplit(".", 1)[-1]
            if suffix not in builders:
                raise SystemExit(f"{path}: the name must end in .{'.txt, .'.join(builders)}.txt")
            target = part / "documents" / name
            builders[suffix](read_source(path), target)
            print(f"{path} -> {target}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["evals/business/dev", "evals/business/sealed", "evals/business/sealed2"])
