"""The §6 task grid, declared once: the fields that Table 3 (``sections.attention_native``) and Table 4
(``sections.predictability``) run on, with the paper's values (App. C: T = 16, d = 32, five seeds, r* from 1
to 8, both teachers of eq. 9, σ = 0.05, n = 3000). A section's ``Config`` inherits them and adds its own."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.synthetic.tasks import SPECTRA, TEACHERS
from .config import SectionConfig, distinct_ints, noise_level, one_of, param, positive_int, some_of


@dataclass(frozen=True)
class AttentionTaskGrid(SectionConfig):
    T: int = param(16, "tokens per sequence", positive_int)
    d: int = param(32, "width", positive_int)
    r_stars: tuple = param((1, 2, 3, 4, 6, 8), "teacher kernel ranks r*", distinct_ints(1))
    teachers: tuple = param(TEACHERS, "teacher types of eq. 9 (a trained student is of its teacher's type)",
                            some_of(*TEACHERS))
    n: int = param(3000, "sequences per task", positive_int)
    seeds: tuple = param((0, 1, 2, 3, 4), "one task per seed and r*", distinct_ints(0))
    sigma: float = param(0.05, "observation noise standard deviation", noise_level)
    spectrum: str = param("sharp", "teacher spectrum: sharp (eq. 8), power_law or flat (App. D)", one_of(*SPECTRA))
