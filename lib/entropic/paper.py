"""The paper's own reported numbers, quoted from its text with their location.

These are the reference values every reproduced table is set beside; they are never used to compute
any of our numbers.
"""

from __future__ import annotations

# §4, "Empirical validation" and Table 1 (T=16, d=12, r*=3, noise floor 0.48).
TABLE1 = {
    "noise_floor": 0.48,
    "excess_r1": 28.5,
    "excess_r2": 8.8,
    "excess_r_star": 2e-4,
    "mp_corrected_effective_rank": 2.97,
    "data_only_numerical_rank": 3,
}

# §5, Table 2 (T=12, d=10, r*=3): excess risk at r = r* for each rung.
TABLE2_EXCESS = {"B0": 0.0, "B1": 69.4, "B1c": 69.0, "B2": 68.7, "B3": 51.9}

# §6, Table 3 and its caption (T=16, d=32, 5 seeds).
TABLE3 = {
    "deficiency_linear_at_r_star_minus_1": 450.0,   # "∼450"
    "deficiency_softmax_at_r_star_minus_1": 2.5,    # "∼2.5"
    "excess_at_r_star": 0.0,                        # "≈ 0, slightly negative"
    "recovery_count": 6,                            # "6/6"
    "cv_seed_max": 0.003,                           # "CV_seed ≤ 0.003"
}
