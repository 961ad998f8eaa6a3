"""App. B at tiny sizes, through the runner and the results store (redirected by conftest)."""

import dataclasses
import shutil

import numpy as np
import pandas as pd
import pytest

from conftest import check_verdicts
from entropic import registry
from entropic.engine.corpus import corpora
from entropic.engine.lm import measures as lm_measures
from entropic.jobs import runner, store
from entropic.report import verdicts
from entropic.report.numbers import span

pytestmark = pytest.mark.integration
section = registry.module("real_corpora")
THREE = {"corpora": ["english", "python", "json"]}


@pytest.fixture(scope="module")
def tiny():
    return runner.run("real_corpora", "tiny", progress=False)


@pytest.fixture(scope="module")
def three():
    return runner.run("real_corpora", "tiny", THREE, progress=False)


def test_with_two_corpora_the_correlations_are_reported_undefined_not_crashed(tiny):
    table = section.compare(tiny)
    check_verdicts(table)
    undefined = table[table["verdict"] == verdicts.UNDEFINED]
    assert any(q.startswith("Pearson(predicted") for q in undefined.index)
    assert table.loc[next(q for q in table.index if q.startswith("max CV_seed")), "verdict"] != verdicts.UNDEFINED


def test_with_three_corpora_every_claim_has_a_row_and_a_verdict_derived_from_its_numbers(three):
    table = section.compare(three)
    check_verdicts(table)
    assert (table["verdict"] != verdicts.UNDEFINED).all()
    assert len(table) == len(section.CLAIMS) and list(table["paper says"]) == [c.says for c in section.CLAIMS.values()]
    pearson = table.loc[next(q for q in table.index if q.startswith("Pearson(predicted"))]
    seeds = section.analysis.per_seed(three)
    widest = seeds[seeds["d_model"] == seeds["d_model"].max()]
    measured = widest.groupby("corpus")["static_kernel_rank"].mean()
    pred = three["predictor"].set_index("corpus")[section.readings.MAIN.predictor].reindex(measured.index)
    assert pearson["ours"] == pytest.approx(np.corrcoef(pred, measured)[0, 1], abs=1e-12)  # shown to 3 decimals
    assert 0 < pearson["p"] <= 1 and pearson["paper says"] == section.CLAIMS["pearson"].says


def test_the_specification_table_is_recomputed_under_every_reading(three):
    spec = section.specification(three)
    assert set(spec.index) == set(section.CLAIMS)
    readings = section.tables.readings(three)
    assert {"main", "predictor: cca_rank", "kernel: layer_kernel_rank", "full_rank: R_eff ≥ 0.9 T"} <= set(spec.columns)
    assert set(spec.columns) - {"flips on"} <= set(readings)
    # The ridge claim under two readings of "full rank", recomputed here from the stored rows:
    pred = three["predictor"]
    numerical = bool((pred["ridge_numerical_rank"] == pred["ablation_context"]).all())
    effective = bool((pred["ridge_rank"] >= 0.9 * pred["ablation_context"]).all())
    mark = {True: section.readings.HOLDS, False: section.readings.FAILS}  # a reading is a mark, never a verdict
    assert spec.loc["ridge", "main"] == mark[numerical]
    assert spec.loc["ridge", "full_rank: R_eff ≥ 0.9 T"] == mark[effective]
    flips = spec.loc["ridge", "flips on"]
    assert ("full_rank" in flips) == (numerical != effective)


def test_every_corpus_has_its_provenance_in_the_rows_and_no_machine_path(three):
    pred, models = three["predictor"], three["models"]
    assert sorted(pred["corpus"]) == sorted(THREE["corpora"])
    for frame in (pred, models):
        for column in ("source", "bytes", "sha256", "matches_pin"):
            assert frame[column].notna().all(), column
        assert "location" not in frame.columns
    for _, row in pred.iterrows():  # the pinned text where this machine has it, else a labelled local substitute
        try:
            corpora.locate_corpus(row["corpus"], substitute=False)
        except corpora.CorpusUnavailable:
            assert row["source"] == "substitute" and not row["matches_pin"], row["corpus"]
        else:
            assert row["sha256"] == corpora.PINS[row["corpus"]].sha256 and row["matches_pin"], row["corpus"]
    checkpoints = len(three.cfg.checkpoints)
    grid = section.grid.grid(three, "models")
    assert len(grid) == 3 * 2 * checkpoints  # three corpora × two seeds × the checkpoints, one width
    long = section.grid.long_rows(three, "models")
    assert len(long) == len(three.cfg.long_checkpoints()) and set(long["seed"]) == {three.cfg.long_seed}
    assert len(models) == len(grid) + len(long)  # the long run is stored beside the grid, never inside it
    facts = section.facts(three, section.specification(three))
    assert facts["n_found"] == 3 and facts["missing"] == "none" and facts["models"] == 6
    assert f"It took {long['train_seconds'].max():,.0f} s of training." in facts["long_text"]  # its own cost
    passes = section.grid.main_budget(three) / models.drop_duplicates("corpus").set_index("corpus")["chars"]
    assert facts["passes"] == f"{span(passes)} times its corpus's length"  # how many times a model reads it


def test_the_trajectory_has_one_row_per_model_with_its_checkpoints(three):
    steps = section.trajectory(three)
    assert len(steps) == 3 and (steps["checkpoints"] == len(three.cfg.checkpoints)).all()
    assert steps["Spearman(rank, loss)"].between(-1, 1).all()


def test_a_resumed_grid_equals_an_uninterrupted_one(tmp_path, monkeypatch):
    """A training job interrupted after a checkpoint resumes from its saved state and stores exactly the
    numbers of an uninterrupted run."""
    overrides = {"corpora": ["english"], "seeds": [0]}
    whole = runner.run("real_corpora", "tiny", overrides, progress=False, force=True)
    job = next(j for j in runner.plan("real_corpora", "tiny", overrides)[2] if j.params["kind"] == "train")
    shelf = store.Store("custom", "real_corpora")
    expected = shelf.load(job).tables
    calls = []
    original = lm_measures.measure_charlm_spectra

    def stop_at_second_checkpoint(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(lm_measures, "measure_charlm_spectra", stop_at_second_checkpoint)
    with pytest.raises(runner.Interrupted, match="resumes"):
        runner.run("real_corpora", "tiny", overrides, progress=False, force=True)
    assert shelf.scratch(job).exists()  # the first checkpoint's state is on disk
    monkeypatch.setattr(lm_measures, "measure_charlm_spectra", original)
    shelf.path(job).unlink()
    resumed = runner.run("real_corpora", "tiny", overrides, progress=False)
    assert resumed.computed == 1 and not shelf.scratch(job).exists()
    stored = shelf.load(job).tables
    assert stored["heads"] == expected["heads"]  # every measure at every checkpoint, bit for bit
    assert stored["spectra"] == expected["spectra"]
    timing = ("train_seconds", "seconds_per_model")  # wall time, the one thing that differs
    assert [{k: v for k, v in r.items() if k not in timing} for r in stored["models"]] == \
        [{k: v for k, v in r.items() if k not in timing} for r in expected["models"]]
    assert len(whole.tables["models"]) == len(resumed.tables["models"])


@pytest.mark.parametrize("content, message", [(b"", "empty"), (b"\xff\xfe\x00abc", "UTF-8")])
def test_an_empty_or_binary_corpus_file_stops_the_run_before_any_training(tmp_path, content, message):
    (tmp_path / "python.txt").write_bytes(content)
    with pytest.raises(ValueError, match=rf"python\.txt.*{message}"):
        runner.run("real_corpora", "tiny", {"corpus_dir": str(tmp_path)}, progress=False)


def test_a_missing_corpus_is_reported_with_where_to_put_it(tmp_path):
    shutil.copy(corpora.shared_corpora_dir() / "english.txt", tmp_path / "english.txt")
    overrides = {"corpus_dir": str(tmp_path), "sources": ["user_dir"]}
    results = runner.run("real_corpora", "tiny", overrides, progress=False)
    found = section.availability(results.cfg)
    assert list(found["status"]) == ["found", "missing"]
    assert str(tmp_path / "python.txt") in found.loc["python", "where to put it"]
    assert list(results["predictor"]["corpus"]) == ["english"]
    facts = section.facts(results, section.specification(results))
    assert facts["missing"] == "`python`"
    check_verdicts(section.compare(results))


def test_stored_results_are_read_by_the_pinned_sha256_where_the_texts_are_absent(three, monkeypatch, tmp_path):
    monkeypatch.setenv("ENTROPIC_SHARED_CORPORA", str(tmp_path / "nowhere"))
    section.locate.cache_clear()
    try:
        reread = runner.run("real_corpora", "tiny", THREE, compute=False, progress=False)
    finally:
        section.locate.cache_clear()
    assert len(reread.entries) == len(three.entries) and not reread.missing


def test_when_no_corpus_is_found_the_run_stops_saying_where_to_put_them(tmp_path):
    with pytest.raises(ValueError, match=r"no corpus found.*english\.txt.*python\.txt"):
        runner.plan("real_corpora", "tiny", {"corpus_dir": str(tmp_path), "sources": ["user_dir"]})


def test_bad_parameters_fail_before_any_work():
    with pytest.raises(ValueError, match="heads"):
        runner.plan("real_corpora", "tiny", {"d_models": [18]})
    with pytest.raises(ValueError, match="klingon"):
        runner.plan("real_corpora", "tiny", {"corpora": ["klingon"]})
    with pytest.raises(ValueError, match="tail_fraction"):
        runner.plan("real_corpora", "tiny", {"tail_fraction": 1.5})
    with pytest.raises(ValueError, match="whole numbers of steps"):
        runner.plan("real_corpora", "tiny", {"budgets": [1000]})
    with pytest.raises(ValueError, match="long_tokens"):
        runner.plan("real_corpora", "tiny", {"long_tokens": 2560})  # the long run's rows would join the grid
    with pytest.raises(ValueError, match="long_corpus"):
        runner.plan("real_corpora", "tiny", {"long_corpus": "json"})


def test_a_dataclass_reading_changes_one_choice(three):
    main = section.analysis.MAIN
    layer = dataclasses.replace(main, kernel="layer_kernel_rank")
    assert section.analysis.cells(three, layer)["CV_seed"].notna().all()


def test_readings_recomputed_from_the_stored_spectra_equal_those_measured_on_the_model(three):
    spectra = three["spectra"]
    assert set(spectra["matrix"]) == set(lm_measures.SPECTRA)
    d_h = three.cfg.d_models[0] // three.cfg.heads
    assert (spectra[spectra["matrix"] == "W_QK"]["values"].map(len) == d_h).all()  # rank ≤ d_h: d_h values kept
    table = section.spectra_table(three)
    assert len(table) == 3 * three.cfg.layers  # every (corpus, layer) of the one width, final checkpoint
    np.testing.assert_allclose(table["R_eff(W_QK), eq. 1, from the spectra"],
                               table["R_eff(W_QK), eq. 1, as measured"], rtol=1e-5)
    heads = section.grid.heads(three)  # per head and checkpoint: eq. 1 from the spectra = eq. 1 measured
    np.testing.assert_allclose(heads["spectrum_kernel_rank"], heads["static_kernel_rank"], rtol=1e-5)
    assert (heads["energy_kernel_rank"] <= heads["static_kernel_rank"] + 1e-9).all()  # eq. 2 ≤ eq. 1
    layer = heads.groupby(["budget", "corpus", "seed", "step", "layer"])["layer_energy_kernel_rank"].nunique()
    assert (layer == 1).all()  # a per-layer reading is the same in every head's row


def _two_budgets(results, shift_small: float, shift_large: float):
    """The results with a doctored grid at two budgets (the stored one and three times its tokens), layer 1's
    kernel rank moved by a shift per budget (so the layer claim can hold at one budget and fail at the other)."""
    small = results.cfg.budgets[0]
    large = 3 * small
    tables = dict(results.tables)
    for name in ("models", "heads"):
        frame = section.grid.grid(results, name)
        copies = []
        for budget, shift in ((small, shift_small), (large, shift_large)):
            copy = frame.assign(budget=budget)
            if name == "heads":
                copy.loc[copy["layer"] == 1, "static_kernel_rank"] += shift
            copies.append(copy)
        tables[name] = pd.concat(copies, ignore_index=True)
    cfg = dataclasses.replace(results.cfg, budgets=(small, large))
    return dataclasses.replace(results, tables=tables, cfg=cfg), small, large


@pytest.mark.parametrize("holds_at", ["small", "large"])
def test_a_verdict_that_flips_with_the_budget_is_marked_in_the_main_table(three, holds_at):
    from entropic.publish import page

    heads = section.grid.grid(three, "heads")
    final = heads[np.isclose(heads["fraction"], 1.0)].groupby(["corpus", "layer"])["static_kernel_rank"].mean()
    gap = float((final.unstack()[1] - final.unstack()[0]).min())  # layer 1 − layer 0, smallest over corpora
    hold, fail = 5.0 - gap, -5.0 - gap  # shifts of layer 1 after which the claim holds, or fails
    doctored, small, large = _two_budgets(three, *((hold, fail) if holds_at == "small" else (fail, hold)))
    assert section.budgets(doctored)["complete"].all()
    table = section.compare(doctored)
    row = table.loc[next(q for q in table.index if q.startswith("min over corpora: layer 1"))]
    marks = {small: "✓" if holds_at == "small" else "✗", large: "✓" if holds_at == "large" else "✗"}
    assert row["by budget"] == f"differs: {marks[small]} at {small / 1e6:g}M; {marks[large]} at {large / 1e6:g}M"
    assert "fails" not in row["note"] and "holds" not in row["note"]  # a budget is a reading: marks, no verdict
    assert row["claim holds"] == (holds_at == "large")  # the main table judges the largest complete budget
    text = page.comparison_markdown(table, "Cap.", "tbl-x")
    assert row["note"] and "¹" in text and row["note"] in text  # marked in the main table, listed under it
    unchanged = table.loc[next(q for q in table.index if q.startswith("max CV_seed"))]
    assert unchanged["by budget"] == "same at every budget" and not unchanged["note"]


def test_the_pooled_correlation_is_pearson_over_every_cell_with_its_critical_r():
    from entropic.engine import statistics
    from entropic.sections.real_corpora import across_corpora

    rng = np.random.default_rng(0)
    x = rng.normal(size=18)
    y = 0.9 * x + 0.3 * rng.normal(size=18)
    r, p, _, _, n = across_corpora.pooled(x, y)
    assert n == 18 and r == pytest.approx(np.corrcoef(x, y)[0, 1]) and p < 0.05
    r0, p0, *_ = across_corpora.pooled(x, rng.normal(size=18))
    assert abs(r0) < statistics.critical_r(18) and p0 > 0.05  # no relationship: below the |r| 18 points need
    assert across_corpora.pooled(x[:2], y[:2]) is None
    assert statistics.critical_r(6) == pytest.approx(0.811, abs=1e-3)
    assert statistics.critical_r(18) == pytest.approx(0.468, abs=1e-3)
    assert abs(-0.272) < statistics.critical_r(6)  # the paper's own r would not be significant with six corpora


@pytest.mark.parametrize("value, change, outcome", [
    (12.6, 0.30, "supports"),  # inside the range at the paper's rounding: supports, however fast it moves
    (19.5, float("nan"), "supports"),
    (25.0, -0.019, "contradicts"),  # outside and settled (less than 2 % over the last doubling)
    (12.4, 0.001, "contradicts"),
    (25.0, -0.021, "undecided: still moving"),  # outside and still moving
    (25.0, float("nan"), "undecided: still moving"),  # no earlier doubling: not known to be settled
])
def test_the_long_run_is_read_by_the_declared_rule(value, change, outcome):
    assert section.long_run.outcome(value, change, 13.0, 19.0) == outcome


def test_the_long_run_is_read_at_every_doubling_and_judged_at_its_last_checkpoint(three):
    import matplotlib.pyplot as plt

    table = section.long_run_trajectory(three)
    heads = section.grid.long_rows(three, "heads")
    assert len(table) == len(three.cfg.long_checkpoints()) * three.cfg.layers
    by = table.set_index(["step", "layer"])["R_eff (eq. 1)"]
    for (step, layer), value in by.items():  # the mean over heads of eq. 1, as stored
        own = heads[(heads["step"] == step) & (heads["layer"] == layer)]
        assert value == pytest.approx(own["static_kernel_rank"].mean())
    doubled = table.dropna(subset=["change over the last doubling"])
    assert len(doubled) and all(row["change over the last doubling"] == pytest.approx(
        row["R_eff (eq. 1)"] / by[(row["step"] // 2, row["layer"])] - 1) for _, row in doubled.iterrows())
    judged = section.long_run_verdicts(three)
    last = table[table["step"] == table["step"].max()].set_index("layer")
    assert list(judged["layer"]) == list(section.long_run.RANGES)
    for _, row in judged.iterrows():
        assert row["ours"] == last.loc[row["layer"], "R_eff (eq. 1)"] and row["tokens"] == three.cfg.long_tokens
    labels = section.figure_long_run(three).legends[0].get_texts()
    assert f"layer 0, grid ({len(three.cfg.seeds)} seeds)" in [t.get_text() for t in labels]
    plt.close("all")


def test_the_long_run_says_where_its_validation_loss_is_lowest(three):
    long = section.grid.long_rows(three, "models")
    tokens = sorted(long["tokens"].unique())
    models = three["models"].copy()  # doctored: the loss is lowest at the second checkpoint, then rises
    models.loc[long.index, "val_loss"] = long["tokens"].map({t: 3.0 + abs(k - 1) for k, t in enumerate(tokens)})
    spec = section.specification(three)
    text = section.facts(dataclasses.replace(three, tables={**three.tables, "models": models}), spec)["long_text"]
    assert f"lowest at {tokens[1] / 1e6:g}M tokens (3 nats per character" in text and "over-fitted" in text
    assert "over-fitted" not in section.facts(three, spec)["long_text"]  # the stored tiny run's loss falls to its end


def test_ours_cells_have_the_unit_and_the_precision_of_the_papers(three):
    from entropic.publish import page
    from entropic.report.numbers import with_decimals

    table = section.compare(three)
    check_verdicts(table)
    row = {q.split(" ")[0]: r for q, r in table.iterrows()}
    layers = table.loc[next(q for q in table.index if q.startswith("layer 0 within"))]
    assert layers["ours shown"].startswith("layer 0: ") and ", layer 1: " in layers["ours shown"]  # a range by a range
    T = int(three["predictor"]["ablation_context"].iloc[0])
    assert row["ridge"]["ours shown"].endswith(f" of {T}")  # a rank of T beside "full rank"
    shown = page.comparison_markdown(table, "App. B", "tbl-x")  # ours at the paper's precision: 0.087 → 3 decimals
    worst = row["max"]["ours"]
    assert f"| {with_decimals(worst, 3)} |" in shown or f"| {with_decimals(worst, 3)} (p" in shown


def test_the_prose_names_readings_by_their_marks_never_by_a_second_verdict(three):
    import re

    facts = section.facts(three, section.specification(three))
    verdict_words = re.compile(r"\b(fails|holds|reproduced|not significant|undecided)\b")
    for key in ("entropy_text", "ridge_text", "long_text", "trajectory_text", "spec_flipping"):
        assert not verdict_words.search(facts[key]), (key, facts[key])
    assert not re.search(r"`[a-z_]+`", facts["spec_flipping"])  # claims in words, not code names


def test_the_corpora_table_reads_the_stored_results_and_says_apart_which_texts_this_machine_lacks(monkeypatch,
                                                                                                  tmp_path):
    here = runner.run("real_corpora", "paper", compute=False, progress=False, log=lambda *_: None)
    table = section.corpora_table(here)
    monkeypatch.setenv("ENTROPIC_SHARED_CORPORA", str(tmp_path / "nowhere"))
    monkeypatch.setenv("ENTROPIC_CACHE", str(tmp_path / "cache"))
    section.locate.cache_clear()
    try:
        alone = section.corpora_table(runner.run("real_corpora", "paper", compute=False, progress=False,
                                                 log=lambda *_: None))
    finally:
        section.locate.cache_clear()
    stored = ["stored from", "bytes", "sha256", "matches pin"]
    assert alone[stored].equals(table[stored]) and table["matches pin"].all()  # the results', wherever the texts are
    assert (alone["on this machine"] == "missing (make corpora fetches it)").all()
