"""The fitted weights of ``research.addressing``: written by
``python bench/fit_addressing.py --write`` (do not edit by hand).
"""

BY_MEANING = {
    "close": -0.0461,
    "coverage": 0.7502,
    "covered": 0.3532,
    "elsewhere": -0.6777,
    "elsewhere_margin": -0.1102,
    "head_missing": -1.1447,
    "held": 2.8687,
    "kind_found": 0.3652,
    "kind_not_found": -1.6582,
    "name_missing": -1.1304,
    "names_missing": -0.7353,
    "sheet_row": 0.7437,
    "similarity": 4.8254,
    "unnegated": -2.1935,
}
BY_MEANING_BIAS = -6.8880
BY_MEANING_THRESHOLD = 0.325
BY_WORDS = {
    "coverage": 0.8444,
    "covered": 0.5052,
    "elsewhere": -0.6472,
    "elsewhere_margin": -0.1080,
    "head_missing": -1.5407,
    "held": 4.1746,
    "kind_found": 0.0447,
    "kind_not_found": -2.2490,
    "name_missing": -0.9276,
    "names_missing": -1.0979,
    "sheet_row": 0.3586,
    "unnegated": -1.9808,
}
BY_WORDS_BIAS = -5.3502
BY_WORDS_THRESHOLD = 0.250
