"""The sentences the intro page generates from other pages' sources (never typed): what the theory page states.

Used by ``notebooks/intro.md`` (the verdict and the findings come from ``ledger``).
"""

from __future__ import annotations

import re

ENVIRONMENTS = ("theorem", "proposition", "corollary", "lemma")


def argument_sentence(theory: str) -> str:
    """How many results of each kind the theory page (its MyST source ``theory``) states, and which of the
    paper's theorems its theorems cover (read from their titles, e.g. "(the paper's Theorems 1 and 5)")."""
    counts = {kind: len(re.findall(rf"^```{{prf:{kind}}}", theory, flags=re.MULTILINE)) for kind in ENVIRONMENTS}
    titles = re.findall(r"^```\{prf:theorem\}(.*)$", theory, flags=re.MULTILINE)
    covered = sorted({int(n) for title in titles for n in re.findall(r"\b(\d+)\b", title.split("paper's", 1)[-1])
                      if "paper's" in title})
    parts = [f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items() if n]
    if not parts:
        return "the paper's results."
    text = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    if covered:
        text += (f", the theorems stating the paper's Theorems {', '.join(map(str, covered[:-1]))} and "
                 f"{covered[-1]} in pairs (the linear surrogate and its attention-native form)")
    return text + ", each with its proof and, where a statement can be checked numerically, a check computed on " \
                  "the page."
