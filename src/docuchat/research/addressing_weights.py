"""The fitted weights of ``research.addressing``: written by
``python bench/fit_addressing.py --write`` (do not edit by hand).
"""

BY_MEANING = {
    "close": 0.1276,
    "coverage": 0.9924,
    "covered": 0.2853,
    "elsewhere": -0.7241,
    "elsewhere_margin": -0.1267,
    "head_missing": -1.1990,
    "held": 2.7584,
    "kind_found": 0.4453,
    "kind_not_found": -1.4612,
    "name_missing": -1.1608,
    "names_missing": -0.6973,
    "sheet_row": 0.8914,
    "similarity": 4.6108,
    "unnegated": -2.0393,
}
BY_MEANING_BIAS = -6.9348
BY_MEANING_THRESHOLD = 0.325
BY_WORDS = {
    "coverage": 0.8353,
    "covered": 0.5229,
    "elsewhere": -0.6559,
    "elsewhere_margin": -0.1115,
    "head_missing": -1.5656,
    "held": 4.1784,
    "kind_found": 0.0322,
    "kind_not_found": -2.0180,
    "name_missing": -0.9327,
    "names_missing": -1.0795,
    "sheet_row": 0.4739,
    "unnegated": -1.8134,
}
BY_WORDS_BIAS = -5.3558
BY_WORDS_THRESHOLD = 0.250
