"""Each section's logic at tiny sizes: jobs, fit, compare, facts — through the results store."""

import pandas as pd
import pytest

from conftest import check_verdicts
from entropic import registry
from entropic.jobs import runner
from entropic.report import verdicts

INTERFACE = ("TITLE", "TABLE", "CLAIMS", "Config", "jobs", "fit", "compare", "facts")


def test_the_registry_finds_every_section_module_and_each_has_the_interface():
    assert {"surrogate", "ladder", "attention_native"} <= set(registry.names())
    for name in registry.names():
        module = registry.module(name)
        assert all(hasattr(module, attr) for attr in INTERFACE), name
        assert all(isinstance(c, verdicts.Claim) for c in module.CLAIMS.values())


def test_sections_never_import_each_other():
    for name in registry.names():
        source = (registry.module(name).__file__)
        text = open(source).read()
        assert all(f"sections.{other}" not in text and f"from .{other} " not in text
                   for other in registry.names() if other != name), name


@pytest.fixture(scope="module")
def tiny():
    return {name: runner.run(name, "tiny", progress=False) for name in ("surrogate", "ladder", "attention_native")}


def test_surrogate_deficiency_is_checked_at_every_rank_below_r_star(tiny):
    table = registry.module("surrogate").compare(tiny["surrogate"])
    check_verdicts(table)
    assert [q for q in table.index if q.startswith("excess at r =")] == ["excess at r = 1", "excess at r = 2"]
    assert table.loc["excess at r = 1", "claim holds"] and table.loc["excess at r = 1", "paper says"] == "28.5"
    sweep = tiny["surrogate"]["sweep"]
    assert sweep.groupby("r")["excess"].mean()[1] > 100 * abs(sweep.groupby("r")["excess"].mean()[3])


def test_paper_numbers_appear_only_for_the_papers_setting():
    custom = runner.run("surrogate", "tiny", {"r_star": 4}, progress=False)
    table = registry.module("surrogate").compare(custom)
    deficient = table.loc["excess at r < r*: the lowest seed mean"]  # Theorem 1: one claim, judged at r = 1, 2, 3
    assert deficient["paper says"] == "> floor (Theorem 1)" and pd.isna(deficient["paper value"])
    assert table["paper value"].isna().all() and table["paper says"].str.cat(table["where"]).is_unique
    facts = registry.module("surrogate").facts(custom)
    assert "2.97" not in facts["recovery_text"] and "$r^* = 4$" in facts["recovery_text"]


def test_ladder_finds_the_break_at_b1_with_a_full_rank_control(tiny):
    module = registry.module("ladder")
    table = module.compare(tiny["ladder"])
    check_verdicts(table)
    assert table["claim holds"].all()
    facts = module.facts(tiny["ladder"])
    assert facts["break"] == "B1" and facts["control_rank"] == 6  # d = 6 at the tiny profile
    assert "**B1**" in facts["conclusion"] and "not** a rank constraint" in facts["conclusion"]


def test_attention_native_grid_has_one_row_per_teacher_and_r_star(tiny):
    module = registry.module("attention_native")
    cells = module.grid(tiny["attention_native"])
    assert list(cells.index) == [("linear_qk", 1), ("linear_qk", 2), ("softmax_qk", 1), ("softmax_qk", 2)]
    assert (cells.loc[("softmax_qk", 2), "R̃_eff(K*)"] < 2)  # eq. (8): the teacher's own energy rank is below r*
    table = module.compare(tiny["attention_native"])
    check_verdicts(table)
    assert table.loc["softmax_qk: mean excess at r = r*−1", "claim holds"]
    assert set(table["verdict"]) <= set(verdicts.VERDICTS)


def test_facts_are_numbers_or_text_and_cover_the_prose(tiny):
    for name, results in tiny.items():
        facts = registry.module(name).facts(results)
        assert all(isinstance(v, (int, float, str)) for v in facts.values()), name


@pytest.fixture(scope="module")
def tiny_new():
    return {name: runner.run(name, "tiny", progress=False) for name in ("predictability", "ablation")}


def test_predictability_rows_follow_the_stated_criteria(tiny_new):
    module = registry.module("predictability")
    table = module.compare(tiny_new["predictability"])
    check_verdicts(table)
    est = tiny_new["predictability"]["estimates"]
    linear = est[est["teacher"] == "linear_qk"]
    holds = verdicts.tracks_teacher(linear["v_known_energy_rank"], linear["teacher_energy_rank"])
    assert table.loc["linear_qk: V-known R̃_eff tracks the teacher (fraction of r*)", "claim holds"] == holds
    assert set(module.table4(tiny_new["predictability"]).index.get_level_values("teacher")) == {"linear_qk",
                                                                                               "softmax_qk"}


def test_ablation_has_one_row_per_spectrum_and_recovery_tracks_the_teacher(tiny_new):
    module = registry.module("ablation")
    cells = module.per_spectrum(tiny_new["ablation"])
    assert list(cells.index) == ["sharp", "power_law", "flat"]
    assert cells.loc["flat", "R̃_eff(K*)"] == pytest.approx(2.0)  # r* = 2 at the tiny profile
    table = module.compare(tiny_new["ablation"])
    check_verdicts(table)
    assert table.loc["mean excess at r = r*−1: the lowest over the spectra", "claim holds"]
    assert table["paper says"].str.cat(table["where"]).is_unique  # one row, one verdict, per claim of the paper


def test_both_stop_rules_give_the_same_verdicts_and_close_numbers_on_the_table_3_grid(tiny):
    module = registry.module("attention_native")
    fixed = tiny["attention_native"]
    converged = runner.run("attention_native", "tiny", {"stop": "converged"}, progress=False)
    a, b = module.compare(fixed), module.compare(converged)
    assert list(a["claim holds"]) == list(b["claim holds"]) and list(a["verdict"]) == list(b["verdict"])
    ga, gb = module.grid(fixed), module.grid(converged)
    floor = module.noise_floor(fixed)
    assert ((ga["excess at r*"] - gb["excess at r*"]).abs() <= verdicts.FLOOR_BAND * floor).all()
    assert ((ga["R̃_eff(K)"] - gb["R̃_eff(K)"]).abs() <= verdicts.RECOVERY_TOLERANCE * ga["R̃_eff(K*)"]).all()
    assert converged["sweep"]["steps_run"].sum() < fixed["sweep"]["steps_run"].sum()
