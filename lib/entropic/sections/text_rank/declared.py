"""What the capacity sweep's page judges, and how, declared and committed before the students it judges were
trained (the git history of this file dates each statement); the page prints these statements as they stand here.

``DECLARED`` is the first declaration (``FIRST_DATE``), made before any of the sweep's students was trained; its
outcomes stay on the page. ``SECOND`` (``SECOND_DATE``) adds the uncertainty of r̂, a reading of curves that are not
monotone in r, a calibration at further known ranks, more seeds where the outcome is within the seeds' spread and
one-engine curves; it was committed before any student it asks for was trained. A student whose provenance date
is later than a declaration was computed after it, and the page says which results came after which."""

from __future__ import annotations

DECLARED = {
    "the student class": (
        "App. B's architecture at d_model = 128 (two layers, four heads of width 32, FFN, App. B's training "
        "protocol, split and checkpoints), with every head's query and key maps of width r ∈ {1, 2, 4, 8, 16, 32}, "
        "so that W_QK^h has rank ≤ r; values and outputs keep width 32, and the score keeps App. B's scale 1/√32 "
        "for every r. A probe before this declaration (one seed, 4.1M tokens, a routing corpus like the one below "
        "with a non-flat kernel) gave this class a knee at r* (validation loss 2.807, 2.742, 2.721, 2.712, 2.712, "
        "2.710 at r = 1, 2, 4, 8, 16, 32); the power check below decides it. If the power check fails, the sweep is "
        "repeated with the paper's own class (one attention layer of one head, no FFN) before any real-corpus "
        "verdict is read."),
    "the budget": (
        "7.68M training tokens per student (7,500 AdamW steps of 16 windows of 64 characters), measured also at "
        "1.536M and 3.84M. App. B's stored d_model = 128 models still lower their validation loss between 7.68M and "
        "15.36M in every corpus (by 3–6 %), so no student reads its corpus past the point where validation loss is "
        "lowest. Three seeds per corpus and r (0, 1, 2): the tolerance below needs a spread, and three is what the "
        "CPU affords for 7 corpora × 6 widths (about 4 minutes a student on one core)."),
    "reuse": (
        "At r = 32 the student is App. B's model, so each real corpus's r = 32 students are App. B's stored seeds "
        "0–2 at its 7.68M checkpoint (a constant learning rate makes that checkpoint the model a 7.68M run "
        "trains), not trained again. Check: english's seed-0 r = 32 student is trained again by this sweep's "
        "engine (one model at a time, fused attention, AdamW's fused kernel); the reuse stands if its validation "
        "loss lies within english's tolerance τ of the stored one. If not, every corpus's r = 32 students are "
        "trained by this engine before any verdict is read."),
    "the tolerance and r̂": (
        "Per corpus and budget, ℓ(r) is the mean validation loss (App. B's interleaved split, 256 windows) of the "
        "seeds at width r. The seeds' spread s is the pooled standard deviation over widths (the root mean of the "
        "per-width sample variances), and τ = 2 · s · √(2/n) with n the number of seeds: two standard errors of a "
        "difference of two widths' means. The attention-native rank r̂ is the smallest r with ℓ(r) − ℓ(32) ≤ τ. "
        "Readings at τ/2 and 2τ are shown, not substituted."),
    "the power check": (
        "The same sweep on a char corpus of known routing rank (the routing corpus: a fresh key and value at "
        "every even position, and at every odd position the value of an earlier memory chosen by a softmax over "
        "a rank-8, flat-spectrum kernel on keys, entries of root mean square 6; 32 keys, 4 values, documents of "
        "64 characters). It passes if r̂ = 8 at 7.68M. If it does not, every real-corpus verdict below is "
        "undecided (the sweep cannot see rank at this budget)."),
    "(a) low rank": (
        "Per real corpus, the claim 'real text admits a low-rank attention-native description' is supported if "
        "r̂ < 32 (a width below the full one is within τ of it, and the next narrower width in the grid, if any, "
        "is more than τ above), contradicted if r̂ = 32 (ℓ(16) − ℓ(32) > τ), and undecided if the power check "
        "fails or if the verdict differs between 3.84M and 7.68M (still moving with the budget)."),
    "(b) separates corpora": (
        "r̂ separates corpora if the coefficient of variation of the six r̂ (population standard deviation over "
        "the mean) exceeds 0.20, the top of the paper's range for the model-side measures (0.06–0.20); it does "
        "not if the CV is at most 0.20; undecided if any corpus's (a) is undecided. Shown beside it: the CV of App. "
        "B's measures at d_model = 128 and of the lag-MI predictor."),
    "(c) the predictor predicts r̂": (
        "Pearson's r between the lag-MI predictor's rank (App. B's data-side predictor) and r̂ across the six "
        "corpora, with the exact permutation p over all 720 orders: supported if r > 0 and p < 0.05 (|r| ≥ 0.81 "
        "is needed at six points), contradicted if r < 0 and p < 0.05, not significant otherwise; undecided if r̂ "
        "is the same for all six corpora (no correlation is defined) or any corpus's (a) is undecided. Spearman's "
        "ρ is shown beside it."),
    "concentration": (
        "Shown, not judged: the mean per-head R_eff (eq. 1) and R̃_eff (eq. 2) of the learned kernels at every r, "
        "and whether the full-width students' per-head R̃_eff lies near r̂ (as recovery would predict). R̃_eff of "
        "the reused r = 32 students exists only where App. B stored spectra; the page names those corpora."),
}


FIRST_DATE = "2026-12-02 13:48 UTC"
SECOND_DATE = "2026-12-04 15:31 UTC"

SECOND = {
    "why a second declaration": (
        "The first declaration's outcomes rest on three seeds whose spread is of the order of the gaps that decide "
        "them, and its reading was checked at one known rank. This declaration states, before the students it asks "
        "for are trained, how r̂'s uncertainty is measured, how a curve that is not monotone is read, when an "
        "outcome counts as decided, and which further students are trained. The first declaration's outcomes stay "
        "on the page beside the second's; nothing of the first is re-judged by hand."),
    "the reading of r̂": (
        "ℓ(r) is the mean validation loss of the seeds at width r, as first declared. The curve that is read is "
        "the non-increasing fit of these means in r (isotonic regression by pool-adjacent-violators, each width "
        "weighted by its number of seeds): a head of width r can realize every kernel of a narrower one, so a loss "
        "that rises with the width is read as the seeds' noise and pooled with its neighbours. τ is as first "
        "declared (from the per-width sample variances of the raw losses), and r̂ is the smallest r whose fitted "
        "loss is within τ of the fitted full-width loss. The first declaration's reading (the raw means) is shown "
        "beside it."),
    "the uncertainty of r̂": (
        "2,000 resamples per corpus: in each, every width's stored seeds are drawn with replacement (as many as "
        "are stored), independently across widths, and r̂ is read again by the rule above (τ recomputed from the "
        "resample). The draws come from NumPy's PCG64 generator (numpy.random.default_rng) seeded with the CRC-32 "
        "of the corpus's name, so a corpus's resamples do not depend on which other corpora are read. Shown per "
        "corpus: the mode of the resampled r̂ with its share, and a 90 % interval (the 5th and 95th percentiles "
        "of the resampled r̂, each a width of the grid)."),
    "(a) low rank, second rule": (
        "Per real corpus, the outcome of the point reading (supported if r̂ < 32, contradicted if r̂ = 32) is "
        "decided only where at least 90 % of the resamples give the same outcome (its agreement); otherwise it is "
        "undecided: within the seeds' spread. The first declaration's conditions still apply (the power check at "
        "r* = 8, the same outcome at 3.84M tokens, both read by this rule). A contradiction is decided only if "
        "the calibration below tells the known rank 16 from the full width (r̂ < 32 at r* = 16 in at least 90 % "
        "of its resamples); otherwise a reading of 32 may be a sweep that cannot tell 16 from 32."),
    "(b) separates corpora, second rule": (
        "The CV of the six r̂ (population standard deviation over the mean) with its 90 % interval over joint "
        "resamples (resample b takes every corpus's b-th resample). The bar is the larger of 0.20 and the largest "
        "across-corpus CV of App. B's own model-side measures at d_model = 128 (its participation ratio, 0.334, "
        "when this was declared). r̂ separates corpora if the interval's lower end exceeds the bar, does not if "
        "its upper end is at most 0.20, and is undecided otherwise (within the seeds' spread) or if the power "
        "check fails. The interval carries every corpus's uncertainty, so (b) no longer waits for every (a)."),
    "(c) the predictor predicts r̂, second rule": (
        "Unchanged: Pearson's r between the lag-MI predictor's rank and r̂ (the second reading) with the exact "
        "permutation p, Spearman's ρ beside it, undecided if any corpus's (a) is undecided. The 90 % interval of "
        "Pearson's r over the joint resamples is shown, not judged."),
    "the calibration": (
        "The power check repeated on the routing corpus with a kernel of known rank r* = 2 and r* = 16 (every other "
        "setting as the power check's: 32 keys, 4 values, entries of root mean square 6; the same class, budget, "
        "seeds 0–2 and rule). A known rank is read if r̂ lies within one grid step of it (r*/2 ≤ r̂ ≤ 2r*) and "
        "at least 90 % of its resamples do too. The page shows r̂ against r* = 2, 8, 16 with 90 % intervals and "
        "states the calibrated range: from the smallest to the largest known rank read, when every known rank "
        "between them is read. A real-corpus r̂ outside that range is shown as outside it, with the knee's depth "
        "(the loss gap one grid step below r*, in units of τ) of the known rank that was missed. If a known rank "
        "is missed and the CPU affords it, the check at that rank is repeated with the paper's own class (one "
        "attention layer of one head of width 32, no FFN) at the same budget, seeds and rule; that reading says "
        "whether the class widens the range and changes no real-corpus outcome."),
    "more seeds": (
        "Seeds 3 and 4 at every width below 32 for each real corpus whose (a) the second rule leaves undecided at "
        "three seeds (on the stored students: music, python and shakespeare); their r = 32 students are App. B's "
        "stored seeds 3 and 4 at the same checkpoint. Those corpora are then read with five seeds (τ with n = 5), "
        "and the five-seed reading is their outcome; the three-seed reading stays shown."),
    "one engine": (
        "For every corpus that receives more seeds, and every other corpus whose (a) margin is smaller than the "
        "reuse check's difference (0.0069 nats; the margin is the distance of the smallest fitted gap below the "
        "full width from τ; no decided corpus at three seeds), the full-width students of all its seeds are "
        "trained by the sweep's engine as well, so that each of its curves comes from one engine. Where both "
        "exist, the one-engine reading is the outcome and the reading with App. B's full-width models is shown "
        "beside it."),
    "cost": (
        "36 calibration students, 30 students of seeds 3 and 4 and 15 full-width students: 81 students of about "
        "4 minutes each on one thread, two at a time."),
}
