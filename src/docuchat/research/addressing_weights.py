"""The fitted weights of ``research.addressing``: written by
``python bench/fit_addressing.py --write`` (do not edit by hand).
"""

BY_MEANING = {
    "close": -0.0449,
    "coverage": 0.7585,
    "covered": 0.3633,
    "elsewhere": -0.6839,
    "elsewhere_margin": -0.1138,
    "head_missing": -1.1613,
    "held": 2.8896,
    "kind_found": 0.3471,
    "kind_not_found": -1.4872,
    "name_missing": -1.1339,
    "names_missing": -0.6876,
    "sheet_row": 0.7926,
    "similarity": 4.8076,
    "unnegated": -2.0311,
}
BY_MEANING_BIAS = -6.8959
BY_MEANING_THRESHOLD = 0.300
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
