"""The learned score with the reader's logit (``research.addressing.BY_READING``):
written by ``python bench/train_reader.py --write`` with the reader's adapters
(do not edit by hand).
"""

BY_READING = {
    "close": -0.0104,
    "coverage": -0.2066,
    "covered": 0.0000,
    "elsewhere": 0.0000,
    "elsewhere_margin": 0.0000,
    "head_missing": 0.0000,
    "held": 1.2851,
    "kind_found": -0.2325,
    "kind_not_found": 0.0000,
    "name_missing": 0.0000,
    "names_missing": 0.0000,
    "reader": 0.9344,
    "sheet_row": -0.4430,
    "similarity": 0.9865,
    "unnegated": 0.0000,
}
BY_READING_BIAS = -2.1838
BY_READING_THRESHOLD = 0.450
