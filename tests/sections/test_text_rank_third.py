"""The capacity sweep's third declaration (sections/text_rank/third.py) on doctored students: paired gaps within
a seed, the margin, the budget condition, the calibration with its learnability, and (a) by the third rule."""

import json
import math
import shutil
import subprocess
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

from entropic import paths
from entropic.engine import statistics as stats
from entropic.sections import text_rank
from entropic.sections.text_rank import analysis, third

RANKS = (1, 2, 4, 8, 16, 32)
TOKENS = (1_536_000, 3_840_000, 4_800_512, 5_760_000, 6_719_488, 7_680_000)


def _students(corpus: str, gap, seeds=(5, 6, 7), seed_offset=0.05, base=1.3, **columns) -> pd.DataFrame:
    """One corpus's students: loss = base + seed offset + gap(r, tokens), the offset shared by every width of a
    seed (the seeds' data order), so that widths move together within a seed."""
    rows = []
    for k, seed in enumerate(seeds):
        for r in RANKS:
            for t in TOKENS:
                rows.append({"corpus": corpus, "rank": r, "seed": seed, "tokens": t, "step": t // 1024,
                             "val_loss": base + seed_offset * (k - 1) + (gap(r, t) if r < 32 else 0.0),
                             "source": analysis.SWEEP, **columns})
    return pd.DataFrame(rows)


def _cfg(**cfg):
    return text_rank.Config(**({"corpora": ("english",), "reuse": False, "check_corpus": None, "known_ranks": (),
                                "third_ranks": (), "copying_ranks": (), "more_seeds_for": (), "one_engine": ()}
                               | cfg))


def _deciding(students: pd.DataFrame, cfg) -> pd.DataFrame:
    table = third.readings(students, cfg)
    return table[table["decides"]].set_index("corpus")


def test_student_t_quantiles_match_their_tables():
    assert stats.t_quantile(0.95, 2) == pytest.approx(2.919986, abs=1e-5)
    assert stats.t_quantile(0.95, 1) == pytest.approx(6.313752, abs=1e-5)
    assert stats.t_quantile(0.95, 4) == pytest.approx(2.131847, abs=1e-5)
    with pytest.raises(ValueError):
        stats.t_quantile(0.95, 0)


def test_widths_that_move_together_within_a_seed_are_read_by_their_paired_gap():
    # the seeds sit 0.05 apart, ten times the margin; every width below 8 pays 0.05 more, 8 and 16 pay 0.002
    students = _students("english", lambda r, t: 0.05 if r < 8 else 0.002)
    row = _deciding(students, _cfg()).loc["english"]
    assert row["r_hat"] == 8 and row["exact"] and row["states"][2] == third.PERSISTING
    assert row["interval"] == (8, 8)  # a drawn seed brings all its widths: the offset cancels in every resample
    assert row["half"] == 8 and row["double"] == 8


def test_a_gap_that_halves_with_each_doubling_of_the_budget_is_closing_and_not_read_as_a_capacity_limit():
    closing = _students("english", lambda r, t: 0.1 * (7_680_000 / t) ** 1.5 if r == 16 else 0.2)
    cfg = _cfg()
    deciding = _deciding(closing, cfg)
    assert deciding.loc["english", "r_hat"] == 32 and deciding.loc["english", "states"][-1] == third.CLOSING
    outcome = third.low_rank("english", deciding, pd.DataFrame(), cfg)
    assert outcome["outcome"] == "undecided" and outcome["why"].startswith("budget: the width-16 gap is still closing")


def _calibration(learned: bool) -> pd.DataFrame:
    return pd.DataFrame({"generator": ["routing", "routing"], "known rank": [16, 32], "r_hat": [8, 32],
                         "learned": [learned, learned]})


def test_a_persisting_gap_at_16_contradicts_only_when_a_learned_generator_reads_32_as_32():
    cfg = _cfg()
    deciding = _deciding(_students("english", lambda r, t: 0.05), cfg)
    assert deciding.loc["english", "states"][-1] == third.PERSISTING
    assert third.low_rank("english", deciding, _calibration(True), cfg)["outcome"] == "contradicted"
    unlearned = third.low_rank("english", deciding, _calibration(False), cfg)
    assert unlearned["outcome"] == "undecided" and unlearned["why"].startswith("calibration: no learned generator")


def test_a_width_within_the_margin_whose_gap_grows_out_of_it_is_not_within():
    # width 16 sits 0.008 above the full width at the budget but its gap grows by 0.01 per doubling
    growing = _students("english", lambda r, t: 0.2 if r < 16 else 0.008 + 0.01 * math.log2(t / 7_680_000),
                        seed_offset=0.0)
    row = _deciding(growing, _cfg()).loc["english"]
    assert row["r_hat"] == 32 and row["states"][-1] == third.PERSISTING


def test_the_calibration_reads_learnability_against_the_zero_kernel_teacher_and_counts_missed_grid_steps():
    gap = lambda r, t: 0.05 if r < 8 else 0.0  # noqa: E731 - a knee at 8
    cfg = _cfg(corpora=("english",), copying_ranks=(16,))
    learned = _students("copying rank 16", gap, seeds=(0, 1, 2), floor=1.25, blind=1.5)
    stuck = _students("copying rank 16", gap, seeds=(0, 1, 2), floor=1.0, blind=1.2)
    for students, expected in ((learned, True), (stuck, False)):
        calib = third.calibration(third.readings(students, cfg), list(RANKS))
        row = calib.iloc[0]
        assert row["missed by"] == -1 and row["r_hat"] == 8 and row["learned"] == expected
        assert not row["read"]


def test_a_routing_generator_stored_without_its_zero_kernel_teacher_is_regenerated_and_its_floor_checked():
    """The routing students of the earlier declarations stored the floor but not the zero-kernel teacher: the
    calibration regenerates the corpus for it, and refuses students whose floor is another corpus's."""
    from entropic.engine.corpus import routing

    cfg = _cfg(known_ranks=(2,), routing_docs=64, routing_val_docs=64)
    made = routing.routing_corpus(cfg.routing_keys, cfg.routing_values, 2, cfg.routing_scale, cfg.context,
                                  64, 64, seed=0)
    zero = routing.routing_blind(made, cfg.routing_values, cfg.context)
    gap = lambda r, t: 0.05 if r < 2 else 0.0  # noqa: E731 - a knee at 2
    stored = _students("routing rank 2", gap, seeds=(0, 1, 2), base=made.floor + 0.01, seed_offset=0.0,
                       floor=made.floor)
    row = third.calibration(third.readings(stored, cfg), list(RANKS)).iloc[0]
    assert row["blind_excess"] == pytest.approx(zero - made.floor) and row["learned"] and row["read"]
    with pytest.raises(ValueError, match="routing rank 2: the stored students' floor"):
        third.readings(stored.assign(floor=made.floor + 0.1), cfg)


def test_the_third_declaration_was_committed_before_any_student_it_asks_for_was_trained():
    git = shutil.which("git")
    if git is None or not (paths.ROOT / ".git").exists():
        pytest.skip("no git history to date the declaration by")
    log = subprocess.run([git, "log", "--format=%cI", "-S", "THIRD_DATE", "--reverse", "--",
                          "lib/entropic/sections/text_rank/declared.py"], cwd=paths.ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    declared = datetime.fromisoformat(log[0]).astimezone(UTC)
    assert declared.strftime("%Y-%m-%d %H:%M UTC") <= text_rank.THIRD_DATE
    cfg = text_rank.Config()
    earlier = {job.id for job in text_rank.jobs(text_rank.Config(third_ranks=(), copying_ranks=(), fresh_seeds=()))}
    for job in text_rank.jobs(cfg):
        path = paths.ROOT / "results" / "paper" / "text_rank" / f"{job.id}.json"
        if job.id not in earlier and path.exists():
            assert json.loads(path.read_text())["provenance"]["date"] >= text_rank.THIRD_DATE, job.id


def test_the_third_declaration_adds_its_students_and_leaves_the_earlier_jobs_as_they_were():
    earlier = {job.id for job in text_rank.jobs(text_rank.Config(third_ranks=(), copying_ranks=(), fresh_seeds=()))}
    planned = text_rank.jobs(text_rank.Config())
    new = [job for job in planned if job.id not in earlier]
    assert earlier < {job.id for job in planned} and len(new) == 2 * 18 + 2 * 18 + 6 * 6 * 3
    assert all(job.params["checkpoints"] == [1500, 3750, 4688, 5625, 6562, 7500] for job in new)
    assert {job.params["seed"] for job in new if job.params["corpus"] not in ("routing", "copying")} == {5, 6, 7}
    assert np.all([job.params["kind"] == "generated" for job in new if job.params["corpus"] in ("routing",
                                                                                                 "copying")])
