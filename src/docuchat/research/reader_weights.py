"""The learned score with the reader's logit (``research.addressing.BY_READING``):
written by ``python bench/train_reader.py --write`` with the reader's adapters
(do not edit by hand).
"""

BY_READING = {
    "close": -0.3283,
    "coverage": -0.0050,
    "covered": -0.0000,
    "elsewhere": 0.0000,
    "elsewhere_margin": 0.0000,
    "head_missing": 0.0000,
    "held": 1.5879,
    "kind_found": 0.0193,
    "kind_not_found": 0.0000,
    "name_missing": 0.0000,
    "names_missing": 0.0000,
    "reader": 0.8976,
    "sheet_row": -0.1252,
    "similarity": 1.9156,
    "unnegated": 0.0000,
}
BY_READING_BIAS = -2.9681
BY_READING_THRESHOLD = 0.450
