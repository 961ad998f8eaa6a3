"""Validated, typed parameters for each section notebook.

Each notebook's ``parameters`` cell holds literals; the notebook then builds one of these frozen
dataclasses, whose ``__post_init__`` raises ``ValueError`` naming the offending parameter, before
any training starts.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .models import LADDER
from .tasks import SPECTRA, TEACHERS


def _positive_int(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _positive_float(name: str, value, allow_zero: bool = False) -> None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and (
        value >= 0 if allow_zero else value > 0)
    if not ok:
        raise ValueError(f"{name} must be a {'non-negative' if allow_zero else 'positive'} number, got {value!r}")


def _seeds(name: str, value) -> tuple[int, ...]:
    seeds = tuple(value) if isinstance(value, (list, tuple)) else None
    if not seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
        raise ValueError(f"{name} must be a non-empty list of non-negative integers, got {value!r}")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"{name} holds duplicates: {value!r}")
    return seeds


def _choice(name: str, value, allowed) -> None:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {tuple(allowed)}, got {value!r}")


def _names(name: str, value, allowed) -> tuple:
    """A non-empty tuple of names from a list (or a single name), each one of ``allowed``."""
    names = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    if not names:
        raise ValueError(f"{name} must name at least one of {tuple(allowed)}")
    for item in names:
        _choice(name, item, allowed)
    return names


@dataclass(frozen=True)
class _Config:
    """Validation shared by every section: positive sizes, a positive learning rate (and recovery
    init where there is one), σ ≥ 0, distinct non-negative seeds."""

    POSITIVE_INTS = ("T", "d", "n", "steps")
    POSITIVE_FLOATS = ("lr",)

    def __post_init__(self):
        for name in self.POSITIVE_INTS:
            _positive_int(name, getattr(self, name))
        for name in self.POSITIVE_FLOATS:
            _positive_float(name, getattr(self, name))
        _positive_float("sigma", self.sigma, allow_zero=True)
        object.__setattr__(self, "seeds", _seeds("seeds", self.seeds))

    @classmethod
    def from_params(cls, params: dict) -> _Config:
        """Build from a parameter dict; unknown names raise ``ValueError``."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(params) - names)
        if unknown:
            raise ValueError(f"unknown parameter(s) {unknown} for {cls.__name__}; known: {sorted(names)}")
        return cls(**params)


@dataclass(frozen=True)
class SurrogateConfig(_Config):
    """§4 linear surrogate (Table 1). Paper: T=16, d=12, r*=3, σ=0.05."""

    T: int = 16
    d: int = 12
    r_star: int = 3
    sigma: float = 0.05
    n: int = 3000
    seeds: tuple = (0, 1, 2, 3, 4)
    steps: int = 1500
    recovery_steps: int = 2500
    recovery_init: float = 0.3
    lr: float = 1e-2
    spectrum: str = "sharp"

    POSITIVE_INTS = ("T", "d", "r_star", "n", "steps", "recovery_steps")
    POSITIVE_FLOATS = ("lr", "recovery_init")

    def __post_init__(self):
        super().__post_init__()
        _choice("spectrum", self.spectrum, SPECTRA)
        if self.r_star > self.T:
            raise ValueError(f"r_star={self.r_star} exceeds T={self.T}: A* is a (T, T) operator")
        if 2 * self.r_star > self.T:
            raise ValueError(f"the rank sweep r = 1 … 2·r_star needs 2·r_star <= T, "
                             f"got r_star={self.r_star}, T={self.T}")

    @property
    def sweep_ranks(self) -> list[int]:
        return list(range(1, 2 * self.r_star + 1))


@dataclass(frozen=True)
class LadderConfig(_Config):
    """§5 interpolation ladder (Table 2). Paper: T=12, d=10, r*=3, fixed-operator task."""

    T: int = 12
    d: int = 10
    r_star: int = 3
    sigma: float = 0.05
    n: int = 3000
    seeds: tuple = (0, 1, 2, 3, 4)
    steps: int = 1500
    lr: float = 1e-2
    rungs: tuple = ("B0", "B1", "B1c", "B2", "B3")
    sweep: bool = True  # also train r = 1 … 2·r* (else only r = r*)

    POSITIVE_INTS = ("T", "d", "r_star", "n", "steps")

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "rungs", _names("rungs", self.rungs, LADDER))
        if self.r_star > self.T:
            raise ValueError(f"r_star={self.r_star} exceeds T={self.T}: A* is a (T, T) operator")
        top = 2 * self.r_star if self.sweep else self.r_star
        if top > min(self.T, self.d):
            raise ValueError(f"student ranks up to {top} need min(T, d) >= {top}, got T={self.T}, d={self.d}")

    @property
    def ranks(self) -> list[int]:
        return list(range(1, 2 * self.r_star + 1)) if self.sweep else [self.r_star]


@dataclass(frozen=True)
class AttentionGridConfig(_Config):
    """§6 attention-native grid (Table 3). Paper: T=16, d=32, r* ∈ {1,2,3,4,6,8}, n=3000, 5 seeds."""

    T: int = 16
    d: int = 32
    r_stars: tuple = (1, 2, 3, 4, 6, 8)
    teachers: tuple = ("linear_qk", "softmax_qk")
    n: int = 3000
    seeds: tuple = (0, 1, 2, 3, 4)
    sigma: float = 0.05
    steps: int = 1500
    recovery_steps: int = 2500
    recovery_init: float = 0.3
    lr: float = 1e-2
    spectrum: str = "sharp"

    POSITIVE_INTS = ("T", "d", "n", "steps", "recovery_steps")
    POSITIVE_FLOATS = ("lr", "recovery_init")

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "r_stars", _seeds("r_stars", self.r_stars))
        object.__setattr__(self, "teachers", _names("teachers", self.teachers, TEACHERS))
        _choice("spectrum", self.spectrum, SPECTRA)
        if min(self.r_stars) < 1 or 2 * max(self.r_stars) > self.d:
            raise ValueError(f"r_stars must lie in [1, d/2] so that the sweep r = 1 … 2·r* fits in d={self.d}, "
                             f"got {self.r_stars}")
