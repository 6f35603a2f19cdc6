"""The fitted weights of ``research.addressing``: written by
``python bench/fit_addressing.py --write`` (do not edit by hand).
"""

BY_MEANING = {
    "close": 0.9963,
    "coverage": 1.3680,
    "covered": 0.2290,
    "elsewhere": -0.5801,
    "elsewhere_margin": -0.0502,
    "head_missing": -1.1569,
    "held": 3.8387,
    "kind_found": -0.0065,
    "kind_not_found": -2.0073,
    "name_missing": -1.0332,
    "names_missing": -1.0192,
    "sheet_row": 0.9892,
    "similarity": 3.5165,
    "unnegated": -0.3684,
}
BY_MEANING_BIAS = -7.3249
BY_MEANING_THRESHOLD = 0.400
BY_WORDS = {
    "coverage": 1.2379,
    "covered": 1.1493,
    "elsewhere": -0.5160,
    "elsewhere_margin": -0.0268,
    "head_missing": -1.3561,
    "held": 4.7952,
    "kind_found": 0.0227,
    "kind_not_found": -2.1334,
    "name_missing": -0.8796,
    "names_missing": -1.1563,
    "sheet_row": 0.1448,
    "unnegated": 0.0085,
}
BY_WORDS_BIAS = -6.6122
BY_WORDS_THRESHOLD = 0.250
