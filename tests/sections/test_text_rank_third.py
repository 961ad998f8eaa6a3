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
                             "budget": TOKENS[-1], "source": analysis.SWEEP,
                             "val_loss": base + seed_offset * (k - 1) + (gap(r, t) if r < 32 else 0.0), **columns})
    return pd.DataFrame(rows)


def _cfg(**cfg):
    return text_rank.Config(**({"corpora": ("english",), "reuse": False, "check_corpus": None, "known_ranks": (),
                                "third_ranks": (), "copying_ranks": (), "more_seeds_for": (), "one_engine": (),
                                "amended_seeds": (), "gate_generators": ()} | cfg))


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


def _calibration(learned: bool, within: bool | None = None, hats=(8, 32), exact=(True, True)) -> pd.DataFrame:
    """A calibration of known ranks 16 and 32: read as ``hats``, learned by the third declaration's criterion
    (``learned``) and by the amendment's (``within``, as ``learned`` unless given)."""
    within = learned if within is None else within
    return pd.DataFrame({"generator": ["routing", "routing"], "budget": [TOKENS[-1]] * 2, "known rank": [16, 32],
                         "r_hat": list(hats),
                         "exact": list(exact), "learned": [learned, learned], "within": [within, within]})


def test_a_persisting_gap_at_16_contradicts_by_the_third_rule_only_when_a_learned_generator_reads_32_as_32():
    cfg = _cfg()
    deciding = _deciding(_students("english", lambda r, t: 0.05), cfg)
    assert deciding.loc["english", "states"][-1] == third.PERSISTING
    assert third.low_rank("english", deciding, _calibration(True), cfg, amended=False)["outcome"] == "contradicted"
    unlearned = third.low_rank("english", deciding, _calibration(False), cfg, amended=False)
    assert unlearned["outcome"] == "undecided" and unlearned["why"].startswith("calibration: no learned generator")


def test_the_amended_rule_gates_each_verdict_on_the_calibration_case_that_would_make_it_false():
    cfg = _cfg()
    low = _deciding(_students("english", lambda r, t: 0.05 if r < 8 else 0.0), cfg)  # r̂ = 8
    full = _deciding(_students("english", lambda r, t: 0.05), cfg)  # r̂ = 32, the width-16 gap persisting
    assert low.loc["english", "r_hat"] == 8 and full.loc["english", "r_hat"] == 32

    def outcome(deciding, calib, amended=True):
        row = third.low_rank("english", deciding, calib, cfg, amended)
        return row["outcome"], row["why"]

    # both gates pass: known rank 32 read as 32 (persisting), known rank 16 read below 32, both learned within δ
    assert outcome(low, _calibration(True)) == ("supported", "")
    assert outcome(full, _calibration(True)) == ("contradicted", "")
    # a full-rank generator read below 32 makes "supported" meaningless: the third rule still says supported
    fooled = _calibration(True, hats=(8, 16))
    assert outcome(low, fooled, amended=False)[0] == "supported"
    assert outcome(low, fooled) == ("undecided", "calibration: a generator of known rank 32 learned to within δ "
                                                 "is read below 32")
    assert outcome(full, fooled)[0] == "contradicted"  # the gate of a contradiction is the rank-16 case alone
    # 32 read as 32 but not shown to persist is not read as 32
    assert outcome(low, _calibration(True, exact=(True, False)))[0] == "undecided"
    # a rank-16 generator read as 32 makes "contradicted" meaningless
    blind = _calibration(True, hats=(32, 32))
    assert outcome(full, blind) == ("undecided", "calibration: a generator of known rank 16 learned to within δ is "
                                                 "read as 32")
    assert outcome(low, blind) == ("supported", "")
    # learned by the third declaration's criterion but not within δ: neither gate has a case
    unlearned = _calibration(True, within=False)
    assert outcome(low, unlearned) == ("undecided", "calibration: no generator of known rank 32 is learned to "
                                                    "within δ")
    assert outcome(full, unlearned) == ("undecided", "calibration: no generator of known rank 16 is learned to "
                                                     "within δ")
    assert outcome(low, unlearned, amended=False)[0] == "supported"


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
        assert not row["read"] and not row["within"]  # 0.05 and 0.2 nats above the floor: more than δ


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
    assert row["excess"] == pytest.approx(0.01) and row["within"]  # at most δ above the floor
    assert not third.calibration(third.readings(stored.assign(val_loss=stored["val_loss"] + 0.002), cfg),
                                 list(RANKS)).iloc[0]["within"]
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


def test_the_amendment_was_committed_before_any_fresh_seed_was_read_and_cuts_no_stored_student():
    """The amendment's date is its first commit's (or later), and the jobs it cuts are exactly the third
    declaration's students not stored: the 89 queued (the copying generator's 29 and fresh seeds 6 and 7's 60)."""
    git = shutil.which("git")
    if git is not None and (paths.ROOT / ".git").exists():
        log = subprocess.run([git, "log", "--format=%cI", "-S", "AMENDMENT_DATE", "--reverse", "--",
                              "lib/entropic/sections/text_rank/declared.py"], cwd=paths.ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
        if log:  # committed: its first commit is no later than the date it states
            assert datetime.fromisoformat(log[0]).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") <= \
                text_rank.AMENDMENT_DATE
    uncut = text_rank.jobs(text_rank.Config(cut=()))
    kept = {job.id for job in text_rank.jobs(text_rank.Config())}
    cut = [job for job in uncut if job.id not in kept]
    folder = paths.ROOT / "results" / "paper" / "text_rank"
    assert len(cut) == 89 and not any((folder / f"{job.id}.json").exists() for job in cut)
    assert {job.params["seed"] for job in cut if job.params["corpus"] != "copying"} == {6, 7}
    assert sum(job.params["corpus"] == "copying" for job in cut) == 29


def test_the_third_declaration_adds_its_students_and_leaves_the_earlier_jobs_as_they_were():
    earlier = {job.id for job in text_rank.jobs(text_rank.Config(third_ranks=(), copying_ranks=(), fresh_seeds=()))}
    planned = text_rank.jobs(text_rank.Config(cut=()))
    new = [job for job in planned if job.id not in earlier]
    assert earlier < {job.id for job in planned} and len(new) == 2 * 18 + 2 * 18 + 6 * 6 * 3
    assert all(job.params["checkpoints"] == [1500, 3750, 4688, 5625, 6562, 7500] for job in new)
    assert {job.params["seed"] for job in new if job.params["corpus"] not in ("routing", "copying")} == {5, 6, 7}
    assert np.all([job.params["kind"] == "generated" for job in new if job.params["corpus"] in ("routing",
                                                                                                 "copying")])


def test_the_amendment_plans_its_calibration_then_the_real_corpora_at_its_budget_with_every_width_that_decides():
    cfg = text_rank.Config()
    amended = [job for job in text_rank.jobs(cfg) if job.name.endswith("-15.36M")]
    gate = [job for job in amended if job.params["corpus"] == "routing"]
    real = [job for job in amended if job.params["corpus"] != "routing"]
    assert len(gate) == len(cfg.gate_generators) * 2 * 3 and len(real) == 6 * 2 * 3
    assert amended == [job for job in text_rank.jobs(cfg) if job in amended][:len(amended)]  # calibration first
    assert text_rank.jobs(cfg)[-len(amended):] == amended and amended[:len(gate)] == gate
    assert {job.params["rank"] for job in amended} == {16, 32} and {job.params["seed"] for job in real} == {10, 11, 12}
    for job in amended:
        assert job.params["tokens"] == 15_360_000 and job.params["steps"] == 15_000
        assert job.params["checkpoints"] == [1875, 3750, 5625, 7500, 9375, 11250, 13125, 15000]
    assert all(job.params["routing_docs"] == 240_000 and job.params["kind"] == "generated" for job in gate)
    with pytest.raises(ValueError, match=r"amended_seeds .* repeats seeds"):
        text_rank.Config(amended_seeds=(5, 10))
    with pytest.raises(ValueError, match="gate_generators: a known rank 32 must be at most its keys 16"):
        text_rank.Config(gate_generators=((32, 16, 4, 6.0),))


def test_a_reading_at_the_amendments_budget_is_gated_by_the_calibration_at_that_budget_alone():
    """A rank-16 generator read below 32 at 7.68M does not open a contradiction at 15.36M: the gates read the
    calibration at the reading's own budget."""
    budget, tokens = 15_360_000, (7_680_000, 9_600_000, 11_520_000, 13_440_000, 15_360_000)
    cfg = _cfg(amended_seeds=(10, 11, 12), gate_generators=((16, 16, 4, 6.0),), third_ranks=(16,))

    def students(corpus, gap, seeds, budget_, tokens_, ranks, **columns):
        return pd.DataFrame([{"corpus": corpus, "rank": r, "seed": s, "tokens": t, "step": t // 1024,
                              "budget": budget_, "val_loss": 1.3 + 0.05 * k + (gap if r < 32 else 0.0),
                              "source": analysis.SWEEP, **columns}
                             for k, s in enumerate(seeds) for r in ranks for t in tokens_])

    english = students("english", 0.05, (10, 11, 12), budget, tokens, (16, 32))  # width 16 persists: r̂ = 32
    early = students("routing rank 16", 0.0, (0, 1, 2), TOKENS[-1], TOKENS, RANKS, floor=1.345, blind=1.6)
    late = students("routing rank 16 (16 keys)", 0.0, (0, 1, 2), budget, tokens, (16, 32), floor=1.345, blind=1.6)
    for gate, expected in ((early, "undecided"), (pd.concat([early, late]), "contradicted")):
        table = third.readings(pd.concat([english, gate]), cfg)
        deciding = table[table["decides"] & (table["corpus"] == "english")].set_index("corpus")
        assert deciding.loc["english", "budget"] == budget and deciding.loc["english", "r_hat"] == 32
        calib = third.calibration(table, list(RANKS))
        row = third.low_rank("english", deciding, calib, cfg)
        assert row["outcome"] == expected, row
        assert row["quantity"].endswith("3 seeds, 15.36M)")
    assert row["why"] == "" and calib.set_index("budget").loc[budget, "within"]


def test_the_amendments_budget_was_declared_after_its_probe_and_before_any_student_it_judges():
    git = shutil.which("git")
    if git is not None and (paths.ROOT / ".git").exists():
        log = subprocess.run([git, "log", "--format=%cI", "-S", "BUDGET_DATE", "--reverse", "--",
                              "lib/entropic/sections/text_rank/declared.py"], cwd=paths.ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
        if log:
            assert datetime.fromisoformat(log[0]).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") <= \
                text_rank.BUDGET_DATE
    cfg = text_rank.Config()
    folder = paths.ROOT / "results" / "paper" / "text_rank"
    for job in text_rank.jobs(cfg):
        path = folder / f"{job.id}.json"
        if job.params["tokens"] != cfg.amended_tokens or not path.exists():
            continue
        date = json.loads(path.read_text())["provenance"]["date"]
        probe = job.params["seed"] == cfg.probe_seed
        assert (date < text_rank.BUDGET_DATE) if probe else (date >= text_rank.BUDGET_DATE), job.id
