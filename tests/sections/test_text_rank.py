"""The capacity sweep's rules (sections/text_rank), on doctored students: τ and r̂ as declared, the power check,
the budget check, and the three outcomes; and the section at the tiny profile through the store."""

import json
import math
import shutil
import subprocess
import zlib
from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pytest

from entropic import paths
from entropic.jobs import runner, store
from entropic.sections import text_rank
from entropic.sections.text_rank import analysis, second

# The third declaration's and the amendment's students, left out where a test reads the earlier declarations' jobs.
LATER = {"third_ranks": (), "copying_ranks": (), "fresh_seeds": (), "amended_seeds": (), "gate_generators": (),
         "probe_generators": ()}


def _students(curves: dict, tokens=(3_840_000, 7_680_000), seeds=(0, 1, 2), spread=0.002) -> pd.DataFrame:
    """Every corpus's mean loss per width (``curves``: corpus → {rank: loss}), the seeds around it ±spread."""
    rows = []
    for corpus, curve in curves.items():
        for budget in tokens:
            for rank, loss in curve.items():
                for k, seed in enumerate(seeds):
                    rows.append({"corpus": corpus, "rank": rank, "seed": seed, "step": budget // 1024,
                                 "tokens": budget, "val_loss": loss + spread * (k - 1), "kernel_rank": float(rank),
                                 "kernel_energy_rank": float(rank), "source": "doctored"})
    return pd.DataFrame(rows)


RANKS = (1, 2, 4, 8, 16, 32)
KNEE_AT_8 = {1: 2.9, 2: 2.8, 4: 2.75, 8: 2.7005, 16: 2.7002, 32: 2.7}
FLAT = {r: 1.25 for r in RANKS}
FULL = {1: 1.6, 2: 1.5, 4: 1.4, 8: 1.3, 16: 1.27, 32: 1.25}


def test_tau_is_two_standard_errors_of_a_difference_and_r_hat_the_narrowest_width_within_it():
    table = analysis.ranks(_students({"a": KNEE_AT_8, "b": FLAT, "c": FULL}), RANKS).set_index(["corpus", "tokens"])
    s = 0.002  # the seeds are mean ± 0.002: a sample standard deviation of 0.002 at every width
    assert table.loc[("a", 7_680_000), "s"] == pytest.approx(s)
    assert table.loc[("a", 7_680_000), "tau"] == pytest.approx(2 * s * math.sqrt(2 / 3))
    assert [table.loc[(c, 7_680_000), "r_hat"] for c in "abc"] == [8, 1, 32]
    assert table.loc[("a", 7_680_000), "gap_below"] == pytest.approx(0.05)
    incomplete = analysis.ranks(_students({"a": {r: v for r, v in KNEE_AT_8.items() if r != 16}}), RANKS)
    assert incomplete["r_hat"].isna().all()  # a missing width: no r̂


class _Results:
    """What ``compare`` and ``judge`` read of a section's results, doctored: one stored entry per student of
    ``students`` (the routing corpus, the calibration's ``routing rank k`` and the real corpora)."""

    def __init__(self, students: pd.DataFrame, corpora: tuple, **cfg):
        self.cfg = text_rank.Config(corpora=corpora, **({"reuse": False, "check_corpus": None, "known_ranks": (),
                                                          "more_seeds_for": (), "one_engine": ()} | cfg))
        self.entries, self.missing = [], []
        for (corpus, rank, seed), own in students.groupby(["corpus", "rank", "seed"]):
            known = corpus.rsplit(" ", 1)[1] if corpus.startswith("routing rank ") else None
            params = {"corpus": "routing" if known else corpus, "rank": rank, "seed": seed,
                      **({"routing_rank": int(known)} if known else {})}
            models = own[["corpus", "rank", "seed", "step", "tokens", "val_loss"]].assign(corpus=params["corpus"])
            kernels = own.assign(layer=0, head=0, corpus=params["corpus"])[
                ["corpus", "rank", "seed", "step", "layer", "head", "kernel_rank", "kernel_energy_rank"]]
            self.entries.append(store.Entry(f"{corpus}-r{rank}-seed{seed}", params, "key",
                                            {"models": models.to_dict("records"),
                                             "kernels": kernels.to_dict("records")},
                                            {"date": "2026-12-04 16:00 UTC", "seconds": 60.0, "threads": 1}))


def _outcomes(routing: dict, corpora: dict, before: dict | None = None) -> pd.DataFrame:
    students = _students({"routing": routing, **corpora}, tokens=(7_680_000,))
    if before is not None:
        students = pd.concat([students, _students(before, tokens=(3_840_000,))])
    found = analysis.compare(_Results(students, tuple(corpora)))
    return found.set_index("quantity")


def test_each_corpus_is_supported_or_contradicted_only_when_the_power_check_reads_the_routing_rank():
    corpora = {"english": KNEE_AT_8, "json": FULL, "linux": FLAT}
    found = _outcomes(KNEE_AT_8, corpora)
    low = found[found["key"] == "low_rank"]["outcome"].tolist()
    assert low == ["supported", "contradicted", "supported"]
    blind = _outcomes(FLAT, corpora)  # the routing corpus reads r̂ = 1, not its rank 8: nothing is decided
    assert set(blind.loc[blind["key"] == "low_rank", "outcome"]) == {"undecided"}
    assert all("power" in why for why in blind.loc[blind["key"] == "low_rank", "why"])


def test_an_outcome_that_differs_at_the_budget_before_is_undecided():
    found = _outcomes(KNEE_AT_8, {"english": KNEE_AT_8, "json": FULL, "linux": FLAT},
                      before={"english": FULL, "json": FULL, "linux": FLAT})
    english = found[found.index.str.startswith("english")].iloc[0]
    assert english["outcome"] == "undecided" and english["why"].startswith("budget")


def test_separation_is_a_cv_of_r_hat_above_020_and_the_predictor_needs_a_significant_correlation(monkeypatch):
    corpora = {"english": KNEE_AT_8, "json": FULL, "linux": FLAT}
    found = _outcomes(KNEE_AT_8, corpora)
    separates = found[found["key"] == "separates"].iloc[0]
    assert separates["ours"] == pytest.approx(np.std([8, 32, 1]) / np.mean([8, 32, 1]))
    assert separates["outcome"] == "supported"
    same = _outcomes(KNEE_AT_8, {"english": FLAT, "json": FLAT, "linux": FLAT})
    assert same[same["key"] == "separates"]["outcome"].iloc[0] == "contradicted"  # CV 0: r̂ the same everywhere
    monkeypatch.setattr(analysis, "predictor", lambda _, corpora: pd.Series([3.0, 9.0, 1.0], index=list(corpora)))
    found = _outcomes(KNEE_AT_8, corpora)
    predicts = found[found["key"] == "predicts"].iloc[0]
    assert predicts["ours"] == pytest.approx(np.corrcoef([3, 9, 1], [8, 32, 1])[0, 1])
    assert predicts["outcome"] == "not significant" and predicts["why"] == ""  # 3 corpora: p ≥ 0.05, the rule's word


def _knee(at: int) -> dict:
    """A corpus whose r̂ is ``at``: every narrower width 0.1 nats above the full width's loss."""
    return {r: 1.25 + (0.1 if r < at else 0.0) for r in RANKS}


def test_six_corpora_decide_the_predictor_by_its_permutation_p_and_show_spearman_and_appendix_b_beside(monkeypatch):
    corpora = {name: _knee(at) for name, at in zip(text_rank.Config().corpora, RANKS, strict=True)}
    monkeypatch.setattr(analysis, "predictor", lambda _, names: pd.Series([1.5, 2.0, 9.0, 3.0, 20.0, 40.0],
                                                                          index=list(names)))
    monkeypatch.setattr(analysis, "variation", lambda cfg, _: {"measures": pd.Series([0.05, 0.08]),
                                                               "predictor": 0.66})
    found = _outcomes(KNEE_AT_8, corpora)
    hats = [1, 2, 4, 8, 16, 32]
    predicts = found[found["key"] == "predicts"].iloc[0]
    r = np.corrcoef([1.5, 2.0, 9.0, 3.0, 20.0, 40.0], hats)[0, 1]
    assert predicts["ours"] == pytest.approx(r) and predicts["outcome"] == "supported"  # r ≈ 0.97, p < 0.05
    assert "Spearman ρ = 0.94)" in predicts.name  # one swapped pair of six: ρ = 1 − 6·2/210 = 0.943
    separates = found[found["key"] == "separates"].iloc[0]
    assert separates["ours"] == pytest.approx(np.std(hats) / np.mean(hats)) and separates["outcome"] == "supported"
    assert "App. B's measures at d_model = 128: 0.05–0.08, its predictor: 0.66" in separates.name


def test_the_section_runs_at_the_tiny_profile_and_reads_its_own_students():
    results = runner.run("text_rank", "tiny", progress=False)
    students = analysis.rows(results)
    # the power check, the calibration at the tiny profile's known rank 4, english with its further seed 2, the
    # third declaration's generators (routing at 3, copying at 2) and fresh seeds 3 and 4, and the amendment's probe
    # and calibration (a routing generator of 4 keys at known rank 4) and english's seeds 5 and 6 at its budget
    assert set(students["corpus"]) == {"routing", "routing rank 4", "english", "routing rank 3", "copying rank 2",
                                       "routing rank 4 (4 keys)"}
    assert set(students["rank"]) == {1, 4}
    assert set(students[students["corpus"] == "english"]["seed"]) == {0, 1, 2, 3, 4, 5, 6}
    assert set(students["budget"]) == {2560, 5120}
    assert students["kernel_energy_rank"].le(students["rank"] + 1e-6).all()  # a rank-r kernel: R̃_eff ≤ r
    assert set(analysis.first(students, results.cfg)["corpus"]) == {"routing", "english"}
    assert set(analysis.first(students, results.cfg)["seed"]) == {0, 1}  # the first declaration's seeds only
    found = text_rank.compare(results)
    assert set(found["key"]) == {"low_rank", "separates", "predicts"}
    judged = text_rank.judge(results)
    readings = judged["readings"].set_index("corpus")
    assert readings.loc["english", "seeds"] == 3 and list(judged["calibration"]["known rank"]) == [2, 4]
    facts = text_rank.facts(results, found=judged)
    assert all(isinstance(v, (int, float, str)) for v in facts.values())
    third = text_rank.judge_third(results)
    readings = third["readings"].set_index(["corpus", "reading", "budget"])
    assert readings.loc[("english", "fresh seeds", 2560), "seeds"] == (3, 4) and readings["complete"].all()
    assert readings.loc[("english", "fresh seeds", 5120), "seeds"] == (5, 6)
    assert readings.loc[("english", "fresh seeds", 5120), "decides"]  # the amendment's budget decides
    assert set(third["calibration"]["generator"]) == {"routing", "copying", "routing (4 keys)"}
    assert third["calibration"].set_index(["generator", "known rank"])["learned"].notna().loc["copying"].all()
    assert list(third["probe"]["tokens"]) == [2560, 3840, 5120]  # from half the amendment's budget on
    sentences = text_rank.third_facts(third, results.cfg)
    assert sentences["third_low_rank_sentence"].startswith("The amended rule at 0.00512M decides")
    assert "thread(s)" not in facts["cost_sentence"]


def test_the_outcomes_table_leads_with_the_outcome_and_the_tolerance_readings_say_what_they_would_move(monkeypatch):
    monkeypatch.setattr(analysis, "predictor", lambda _, names: pd.Series([3.0, 9.0, 1.0], index=list(names)))
    corpora = {"english": KNEE_AT_8, "json": FULL, "linux": {**FULL, 16: 1.252}}  # linux: 16 is 0.002 above 32
    results = _Results(_students({"routing": KNEE_AT_8, **corpora}, tokens=(7_680_000,)), tuple(corpora))
    table = text_rank.outcomes(text_rank.compare(results))
    assert list(table.columns) == ["outcome", "claim", "measured", "ours"]  # the outcome first; nothing open
    table = table.set_index("claim")
    assert table.loc["(c) across corpora", "outcome"] == "not significant"  # three corpora: p ≥ 0.05
    assert list(table.index) == ["(a) english", "(a) json", "(a) linux", "(b) across corpora", "(c) across corpora"]
    assert table.loc["(a) linux", "outcome"] == "supported" and table.loc["(a) linux", "ours"] == 16
    assert table.loc["(a) json", "measured"].startswith("r̂ = 32 of 32")
    # τ = 0.00327: at τ/2 linux's 16 is outside (r̂ = 32, the outcome flips), at 2τ its 8 is still 0.05 above
    sentence = text_rank.facts(results)["first_tolerance_sentence"]
    assert "r̂ moves in 1 of 3 corpora (linux 32 and 16)" in sentence
    assert "(a)'s outcome differs under one of them for linux." in sentence


# --- the second declaration ---------------------------------------------------------------------------------------


def _losses(curve: dict, seeds: int = 3, spread: float = 0.002) -> list[np.ndarray]:
    return [np.array([loss + spread * (k - (seeds - 1) / 2) for k in range(seeds)]) for loss in curve.values()]


def test_the_second_reading_pools_a_loss_that_rises_with_the_width_before_it_reads_r_hat():
    # 4 dips below 8 and 16: the fit pools the three, so width 4 is not read as within τ on the strength of one dip
    wavy = {1: 1.30, 2: 1.24, 4: 1.20, 8: 1.215, 16: 1.212, 32: 1.20}
    reading = second.read(_losses(wavy), list(RANKS))
    assert reading["fitted"] == pytest.approx([1.30, 1.24, 1.209, 1.209, 1.209, 1.20])
    assert np.all(np.diff(reading["fitted"]) <= 0)
    assert reading["tau"] == pytest.approx(2 * 0.002 * math.sqrt(2 / 3))
    assert reading["r_hat"] == 32  # the raw means would read 4, the one width that dips into τ
    raw = analysis.ranks(_students({"a": wavy}), RANKS)
    assert raw.loc[raw["tokens"] == 7_680_000, "r_hat"].iloc[0] == 4


def test_resamples_are_seeded_by_the_corpus_name_and_give_an_interval_of_grid_widths():
    losses = _losses(KNEE_AT_8, spread=0.01)
    a = second.resample(losses, list(RANKS), second.seed_of("english"))
    b = second.resample(losses, list(RANKS), second.seed_of("english"))
    c = second.resample(losses, list(RANKS), second.seed_of("json"))
    assert len(a) == second.RESAMPLES and (a == b).all() and not (a == c).all()
    assert second.seed_of("english") == zlib.crc32(b"english")
    low, high = second.interval(a)
    assert low in RANKS and high in RANKS and low <= second.read(losses, list(RANKS))["r_hat"] <= high
    assert second.interval(np.array([1] * 6 + [4] * 88 + [32] * 6)) == (1, 32)  # 5th and 95th percentiles
    assert second.interval(np.array([1] * 4 + [4] * 92 + [32] * 4)) == (4, 4)


def _judged(curves: dict, spread=0.002, **cfg) -> dict:
    students = _students(curves, tokens=(7_680_000,), spread=spread)
    return second.judge(_Results(students, tuple(c for c in curves if not c.startswith("routing")), **cfg))


def test_a_corpus_within_the_seeds_spread_is_undecided_and_a_clear_one_decided():
    # english's knee is 0.05 nats deep; json's 16 lies 0.004 above its 32 with seeds 0.004 apart: a knife edge
    found = _judged({"routing": KNEE_AT_8, "english": KNEE_AT_8, "json": {**FULL, 16: 1.254}}, spread=0.004)
    rows = found["outcomes"].set_index("key").loc["low_rank"].set_index("quantity")
    english = rows[rows.index.str.startswith("english")].iloc[0]
    json_ = rows[rows.index.str.startswith("json")].iloc[0]
    assert english["outcome"] == "supported" and english["why"] == ""
    assert found["readings"].set_index("corpus").loc["english", "agreement"] >= second.AGREEMENT
    assert json_["outcome"] == "undecided" and json_["why"].startswith("within the seeds' spread")
    agreement = found["readings"].set_index("corpus").loc["json", "agreement"]
    assert 0.5 < agreement < second.AGREEMENT and f"{second.percent(agreement)} of resamples agree" in json_["why"]


def test_a_contradiction_needs_the_calibration_to_tell_its_largest_known_rank_from_the_full_width():
    knee_16 = {r: 2.7 + (0.1 if r < 16 else 0.0) for r in RANKS}
    told = _judged({"routing": KNEE_AT_8, "routing rank 16": knee_16, "linux": FULL}, known_ranks=(16,))
    assert told["outcomes"].iloc[0]["outcome"] == "contradicted"
    assert list(told["calibration"]["read"]) == [True, True] and told["range"] == (8, 16)
    # a sweep that reads 32 at the known rank 16 (within one grid step, so the rank counts as read) cannot tell 16
    # from 32: a real corpus's 32 is then no contradiction
    late = _judged({"routing": KNEE_AT_8, "routing rank 16": FULL, "linux": FULL}, known_ranks=(16,))
    linux = late["outcomes"].iloc[0]
    assert linux["outcome"] == "undecided" and linux["why"].startswith("calibration: at known rank 16 only 0 %")
    assert late["calibration"].set_index("known rank").loc[16, "read"]
    # one that reads 1 there misses the rank (the range stops at 8), but does tell 16 from 32, as declared
    blind = _judged({"routing": KNEE_AT_8, "routing rank 16": FLAT, "linux": FULL}, known_ranks=(16,))
    calib = blind["calibration"].set_index("known rank")
    assert not calib.loc[16, "read"] and calib.loc[16, "r_hat"] == 1 and blind["range"] == (8, 8)
    assert blind["outcomes"].iloc[0]["outcome"] == "contradicted"
    waiting = _judged({"routing": KNEE_AT_8, "linux": FULL}, known_ranks=(16,))  # rank 16 not stored yet
    assert waiting["outcomes"].iloc[0]["why"] == "calibration: the known ranks are not all stored yet"


def test_the_calibrated_range_is_the_span_of_known_ranks_read_without_a_gap():
    frame = pd.DataFrame({"known rank": [2, 8, 16], "complete": [True] * 3, "read": [True, False, True]})
    assert second.calibrated_range(frame) is None  # 8 is missed between two ranks read
    assert second.calibrated_range(frame.assign(read=[True, True, False])) == (2, 8)
    assert second.calibrated_range(frame.assign(complete=[True, True, False])) is None


def test_separation_is_judged_on_its_resampled_interval_against_the_larger_bar(monkeypatch):
    corpora = {name: _knee(at) for name, at in zip(text_rank.Config().corpora, RANKS, strict=True)}
    monkeypatch.setattr(analysis, "variation", lambda cfg, _: {"measures": pd.Series([0.05, 0.334]),
                                                               "predictor": 0.66})
    found = _judged({"routing": KNEE_AT_8, **corpora}, known_ranks=())
    separates = found["outcomes"].set_index("key").loc["separates"]
    hats = [1, 2, 4, 8, 16, 32]
    assert separates["ours"] == pytest.approx(np.std(hats) / np.mean(hats)) and separates["bar"] == 0.334
    assert separates["interval"][0] > 0.334 and separates["outcome"] == "supported"
    monkeypatch.setattr(analysis, "variation", lambda cfg, _: {"measures": pd.Series([2.0]), "predictor": 0.66})
    found = _judged({"routing": KNEE_AT_8, **corpora}, known_ranks=())
    assert found["outcomes"].set_index("key").loc["separates", "outcome"] == "undecided"  # bar 2: above the interval


def test_more_seeds_and_one_engine_give_a_corpus_its_deciding_reading_and_the_others_beside(monkeypatch):
    cfg = text_rank.Config(more_seeds_for=("music",), one_engine=("music",))
    assert second.variants(cfg, "music") == [((0, 1, 2, 3, 4), second.ONE_ENGINE), ((0, 1, 2, 3, 4), second.MIXED),
                                             ((0, 1, 2), second.MIXED)]
    assert second.variants(cfg, "english") == [((0, 1, 2), second.MIXED)]
    assert second.variants(cfg, "routing") == [((0, 1, 2), analysis.SWEEP)]
    students = pd.concat([_students({"music": FULL}, tokens=(7_680_000,), seeds=(0, 1, 2, 3, 4)),
                          _students({"music": {32: 1.30}}, tokens=(7_680_000,), seeds=(0, 1, 2, 3, 4))
                          .assign(source=analysis.APP_B)])
    students.loc[students["source"] == "doctored", "source"] = analysis.SWEEP
    table = second.readings(students, cfg, 7_680_000, None).set_index(["corpus", "full width", "seeds"])
    assert table.loc[("music", second.ONE_ENGINE, 5), "r_hat"] == 32  # its own full width: 16 is 0.02 above
    assert table.loc[("music", second.MIXED, 5), "r_hat"] == 16  # App. B's full width is 0.05 higher: 16 pools with it
    assert table.loc[("music", second.ONE_ENGINE, 5), "decides"]
    assert not table.loc[("music", second.MIXED, 3), "decides"]


def test_the_second_declaration_leaves_every_job_of_the_first_as_it_was_stored():
    cfg = text_rank.Config(**LATER)  # the third's and the amendment's students: their own tests
    first = text_rank.Config(known_ranks=(), more_seeds_for=(), one_engine=(), **LATER)
    planned = {job.id for job in text_rank.jobs(cfg)}
    assert {job.id for job in text_rank.jobs(first)} < planned
    stored = {path.stem for path in (paths.ROOT / "results" / "paper" / "text_rank").glob("*.json")}
    assert {job.id for job in text_rank.jobs(first)} <= stored  # the first declaration's 109 students, unchanged
    new = planned - {job.id for job in text_rank.jobs(first)}
    assert len(new) == 2 * 18 + 3 * 5 * 2 + 3 * 5  # calibration, seeds 3 and 4, one-engine full widths


def test_the_second_declaration_was_committed_before_any_student_it_asks_for_was_trained():
    git = shutil.which("git")
    if git is None or not (paths.ROOT / ".git").exists():
        pytest.skip("no git history to date the declaration by")
    log = subprocess.run([git, "log", "--format=%cI", "-S", "SECOND_DATE", "--reverse", "--",
                          "lib/entropic/sections/text_rank/declared.py"], cwd=paths.ROOT, capture_output=True,
                         text=True, check=True).stdout.split()
    declared = datetime.fromisoformat(log[0]).astimezone(UTC)
    assert declared.strftime("%Y-%m-%d %H:%M UTC") <= text_rank.SECOND_DATE
    cfg = text_rank.Config(**LATER)
    first = {job.id for job in text_rank.jobs(text_rank.Config(known_ranks=(), more_seeds_for=(), one_engine=(),
                                                               **LATER))}
    for job in text_rank.jobs(cfg):
        path = paths.ROOT / "results" / "paper" / "text_rank" / f"{job.id}.json"
        if job.id not in first and path.exists():
            trained = json.loads(path.read_text())["provenance"]["date"]
            assert trained >= text_rank.SECOND_DATE, job.id
