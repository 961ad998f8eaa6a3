"""The book's one voice for the names code uses: a teacher, a spectrum or a setting named in words, a measure
written as the mathematics it is. Applied where text reaches a reader (``publish.page`` applies it to every table
cell, caption and glued sentence), so that ``linear_qk`` or ``R_eff`` in a section's strings reads "linear" or
$R_\\mathrm{eff}$ on the page. Text between backticks (a parameter a reader types, set as code) and text already
in math is left as it is.
"""

from __future__ import annotations

import re

WORDS = {  # code name -> words
    "linear_qk": "linear", "softmax_qk": "softmax", "power_law": "power-law", "d_model": "width",
    "r_star": "r*", "r_stars": "r*", "full_rank": "full rank",
}
MATH = {  # plain-text notation -> MyST math
    "R̃_eff": r"\tilde R_\mathrm{eff}", "R_eff": r"R_\mathrm{eff}", "CV_seed": r"\mathrm{CV}_\mathrm{seed}",
    "W_QK^h": r"W_{QK}^h", "W_QK": r"W_{QK}", "W_Q": r"W_Q", "W_K": r"W_K", "W_1": r"W_1", "W_2": r"W_2",
    "d_h": r"d_h", "E_X": r"\mathbb E_X", "H(x_t | x_{t−1})": r"H(x_t \mid x_{t-1})", "x_t": r"x_t",
    "K_student": r"K_\mathrm{student}", "Y_n (X_n V)⁺": r"Y_n (X_n V)^+", "X_n V": r"X_n V",
}
CODE = {"matrix_rank", "default_rng"}  # names of code a reader may look up (NumPy's), set as code
_PROTECTED = re.compile(r"(`[^`]*`|\$[^$]*\$|\{[a-z:-]+\}`[^`]*`)")  # code, math, MyST roles: left as they are
_TOKEN = re.compile(r"(?<![\w\\])(" + "|".join(re.escape(k) for k in sorted({*WORDS, *MATH, *CODE}, key=len,
                                                                                 reverse=True)) + r")(?![\w])")


def word(name):
    """The words for one code name (the name itself when it has none; non-strings as they are)."""
    return WORDS.get(name, name) if isinstance(name, str) else name


def _replace(match: re.Match) -> str:
    token = match.group(1)
    if token in CODE:
        return f"`{token}`"
    return WORDS[token] if token in WORDS else f"${MATH[token]}$"


def in_words(text: str) -> str:
    """``text`` with every code name in words and every plain-text measure as math (see the module docstring)."""
    parts = _PROTECTED.split(text)
    return "".join(part if k % 2 else _TOKEN.sub(_replace, part) for k, part in enumerate(parts))
