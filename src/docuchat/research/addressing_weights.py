"""The fitted weights of ``research.addressing``: written by
``python bench/fit_addressing.py --write`` (do not edit by hand).
"""

BY_MEANING = {
    "close": 1.0357,
    "coverage": 1.4292,
    "covered": 0.1256,
    "elsewhere": -0.6098,
    "elsewhere_margin": -0.0777,
    "head_missing": -1.1430,
    "held": 3.8047,
    "kind_found": 0.0086,
    "kind_not_found": -1.8352,
    "name_missing": -0.4525,
    "names_missing": -0.7041,
    "sheet_row": 0.9164,
    "similarity": 3.3473,
    "unnegated": -0.3008,
}
BY_MEANING_BIAS = -7.3243
BY_MEANING_THRESHOLD = 0.375
BY_WORDS = {
    "coverage": 1.1918,
    "covered": 1.2346,
    "elsewhere": -0.5634,
    "elsewhere_margin": -0.0465,
    "head_missing": -1.3442,
    "held": 4.6969,
    "kind_found": 0.0747,
    "kind_not_found": -1.9972,
    "name_missing": -0.3384,
    "names_missing": -0.9106,
    "sheet_row": 0.0778,
    "unnegated": 0.0516,
}
BY_WORDS_BIAS = -6.7060
BY_WORDS_THRESHOLD = 0.250
