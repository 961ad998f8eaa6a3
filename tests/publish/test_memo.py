"""A page's experiments computed once per version of the code they run (publish/memo.py): read back whole, computed
again for other arguments or other code, not for an edit of code they do not run, refused for an argument a digest
cannot name, an unreadable entry an error."""

import types

import pandas as pd
import pytest

from entropic import paths
from entropic.jobs import versions
from entropic.publish import memo


@pytest.fixture
def experiments(tmp_path, monkeypatch):
    """A module of one experiment that counts its calls, remembered under a build folder of this test's own."""
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    calls = []

    def sweep(T: int, sizes: tuple = (1, 2), sigma: float = 0.05) -> pd.DataFrame:
        calls.append((T, sizes, sigma))
        return pd.DataFrame({"r": list(sizes), "excess": [sigma * T / r for r in sizes]})

    module = types.SimpleNamespace(sweep=sweep, SIZES=(1, 2))
    return memo.Remembered(module), calls


def test_a_call_is_computed_once_and_read_back_equal(experiments):
    computed, calls = experiments
    first = computed.sweep(8, sizes=(1, 2, 4))
    again = computed.sweep(8, sizes=(1, 2, 4))
    assert calls == [(8, (1, 2, 4), 0.05)]
    pd.testing.assert_frame_equal(first, again)
    assert computed.SIZES == (1, 2)  # what is no function is the module's own


def test_other_arguments_or_other_code_compute_again_and_an_edit_elsewhere_does_not(experiments, monkeypatch):
    computed, calls = experiments
    computed.sweep(8)
    computed.sweep(8, sigma=0.1)
    computed.sweep(T=8)  # the same values named otherwise: a call of its own, computed again
    assert len(calls) == 3
    monkeypatch.setattr(versions, "library_digest", lambda: "an edited library")  # code the experiment does not reach
    computed.sweep(8)
    assert len(calls) == 3
    monkeypatch.setattr(memo, "_code_key", lambda function: "an edited experiment")
    computed.sweep(8)
    assert len(calls) == 4


def test_the_code_key_follows_what_the_function_reaches_and_not_its_comments():
    from entropic.argument import teaching
    from entropic.jobs import versions

    key = versions.code_key(teaching.static_rank_sweep)
    assert key == versions.code_key(teaching.static_rank_sweep) and len(key) == 12
    pieces = versions._Walker("entropic").visit(teaching.static_rank_sweep)
    assert any(name.endswith(".train") for name in pieces)  # the training loop it runs is part of it
    assert not any(name.endswith(".surrogate_operator_v_known") for name in pieces)  # an estimator it never calls


def test_an_argument_whose_value_no_digest_names_is_refused(experiments):
    computed, calls = experiments
    with pytest.raises(TypeError, match="call it directly"):
        computed.sweep(pd.Series([1, 2]))
    assert not calls


def test_an_unreadable_entry_is_an_error_naming_its_file_not_computed_again(experiments):
    computed, calls = experiments
    computed.sweep(8)
    stored = next((paths.BUILD / "computed").rglob("*.pickle"))
    stored.write_bytes(stored.read_bytes()[:20])
    with pytest.raises(RuntimeError, match=f"{stored.name} cannot be read .*delete it"):
        computed.sweep(8)
    assert len(calls) == 1


def test_the_computations_of_the_newest_versions_of_each_function_are_kept(experiments, monkeypatch):
    computed, _ = experiments
    memo.remembered_call(str, 1)  # a call keyed by the whole library: a kind of its own, never pruned by the others
    for k in range(memo.KEPT + 2):
        monkeypatch.setattr(memo, "_code_key", lambda function, k=k: f"version {k}")
        computed.sweep(8)
    folders = [p for p in (paths.BUILD / "computed").iterdir() if p.is_dir()]
    kept = [p for p in folders if p.name.rpartition("-")[0].endswith(".sweep")]
    assert len(kept) == memo.KEPT and len(folders) == memo.KEPT + 1
    assert f"{kept[0].name.rpartition('-')[0]}-{memo.code_version(computed.sweep.args[0])}" in {p.name for p in kept}
