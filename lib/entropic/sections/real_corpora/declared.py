"""What App. B's page judges, and how, declared before the results that it judges were computed.

Written and committed before the 15.36M-token grid was completed on the CPU and before the long run
started (the git history of this file dates each statement); the page prints these statements as they
stand here. Nothing here may be changed after seeing which way a verdict falls: a later change is a new
declaration, and the page then says which results were computed after it.
"""

from __future__ import annotations

DECLARED = {
    "headline budget": (
        "The main table and the ledger judge App. B at the largest budget whose 18-cell grid is complete "
        "(15.36M tokens per model once its five missing cells are stored; until then 1.536M, and the page says "
        "so). The other budget and every checkpoint are the budget axis of the specification table; a verdict "
        "that differs between budgets is marked in the main table with the budgets at which the claim holds."),
    "long run": (
        "One model (english, d_model = 256, seed 0) is trained to 61.44M tokens, four times the largest "
        "budget, and measured at every doubling of its tokens. Its layer-0 reading (per-head R_eff of W_QK, "
        "eq. 1, mean over the four heads) at the last checkpoint supports the paper's 'layer 0 ≈ 13–19' if it "
        "lies in [12.5, 19.5] (the paper's range at its rounding); contradicts it if it lies outside that range "
        "and changed by less than 2 % over the last doubling of tokens (settled); is undecided otherwise (still "
        "moving: a longer run is needed). Layer 1 against 'layer 1 ≈ 30–44' by the same rule, with [29.5, 44.5]."),
    "correlations": (
        "Every correlation is shown under two units: the six corpus means at the largest width (the reading of "
        "B.2 and B.3 (ii)) and the pooled 18 corpus × width cells (B.3 (i)'s unit). Beside each, the |r| that "
        "that many points need for p < 0.05 (two-sided t-test: 0.811 for 6, 0.468 for 18). The verdict uses "
        "the six corpora; the pooled reading is shown, not substituted."),
    "tracks fitting progress": (
        "Main reading, the paper's sentence: across corpora at the largest width, Pearson(final validation loss, "
        "measured R_eff) is negative and significant (permutation p < 0.05), while Pearson(predicted rank, "
        "measured R_eff) is not positive and significant. Our second reading, within each run (the rank rises "
        "as the loss falls along training), is shown beside it and named as ours."),
    "ridge": (
        "'Collapses to full rank': numerical rank of the ridge operator = T under NumPy's matrix_rank rule at "
        "the precision the operator is computed in (float64: singular values above T·ε₆₄·σ₁). The float32 rule "
        "(T·ε₃₂·σ₁, the precision the models train in) and R_eff ≥ 0.9 T stay as other readings, and the prose "
        "states the verdict of the reading it names."),
    "H₁": (
        "The paper does not define H₁. The unigram entropy (nats per character) stays the main reading; the "
        "conditional entropy H(x_t | x_{t−1}) is shown beside it as a data-only alternative, and the FFN verdict says "
        "whether it changes under it."),
    "lag-MI predictor": (
        "A lag is informative when its MI exceeds the maximum, over all lags, of the MI of shuffled streams "
        "(a max-over-lags permutation null, holding the family-wise false-positive rate at 5 %). Required: an "
        "i.i.d. stream and a shuffled corpus give 0 informative lags and a predicted rank of 0 in at least 95 % "
        "of draws. The previous rule (the lag-1 null's 95 % quantile at every lag) stays as a second reading."),
    "lag-MI null, circular shifts (declared 2026-12-02, before it was applied)": (
        "The shuffled copies of the max-over-lags null destroy the stream's own autocorrelation and so underestimate "
        "the plug-in bias on an autocorrelated stream (a lag-1 copy chain gets every lag 'informative'). From this "
        "declaration on, the null copies are circular shifts of the stream by a shift drawn from [N/4, 3N/4], which "
        "keep it; the decision is the max-over-lags rule's, over the shifted copies. The predictor's main reading "
        "becomes the effective number of informative lags under this null; the shuffled rule stays as a reading, "
        "and the page shows the six predicted ranks under both (before and after). Every verdict that reads the "
        "predictor reads the new main reading."),
    "spectra": (
        "Every new measurement stores the singular values of every matrix it measures; the energy effective "
        "rank (eq. 2) and the per-layer readings are computed from them for the cells that have them, and the "
        "page names those cells. Cells computed before spectra were stored are not retrained to add them."),
}
