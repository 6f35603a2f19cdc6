"""The fitted weights of ``research.addressing``: written by
``python bench/fit_addressing.py --write`` (do not edit by hand).
"""

BY_MEANING = {
    "close": 1.0581,
    "coverage": 1.0030,
    "covered": 0.4454,
    "elsewhere": -0.6351,
    "elsewhere_margin": -0.0731,
    "head_missing": -1.0928,
    "held": 3.7113,
    "kind_found": 0.2827,
    "kind_not_found": -2.3835,
    "name_missing": -0.7564,
    "names_missing": -0.9932,
    "sheet_row": 0.8479,
    "similarity": 3.0585,
    "unnegated": 0.0000,
}
BY_MEANING_BIAS = -7.2282
BY_MEANING_THRESHOLD = 0.375
BY_WORDS = {
    "coverage": 1.2717,
    "covered": 0.9091,
    "elsewhere": -0.4793,
    "elsewhere_margin": -0.0232,
    "head_missing": -1.1968,
    "held": 4.7887,
    "kind_found": 0.3609,
    "kind_not_found": -2.5518,
    "name_missing": -0.6066,
    "names_missing": -1.2291,
    "sheet_row": -0.0120,
    "unnegated": 0.0000,
}
BY_WORDS_BIAS = -6.7492
BY_WORDS_THRESHOLD = 0.150
