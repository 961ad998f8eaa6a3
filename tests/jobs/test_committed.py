"""The committed results are the code's: every entry under ``results/paper/`` holds the version key of the code of
this commit for its job's kind, so that no page of the paper book flags a result as computed by other code. An edit
that moves a key fails here, naming the section, the kind and the command that verifies and adopts the new key."""

import pytest

from entropic import paths, registry
from entropic.jobs import rekey

COMMITTED = paths.ROOT / "results"  # the committed store (the tests' own lives elsewhere)


@pytest.mark.parametrize("section", registry.names())
def test_every_committed_entry_holds_the_key_of_the_code_that_would_compute_it(section, monkeypatch):
    assert list((COMMITTED / "paper" / section).glob("*.json")), f"no committed entry of {section}"
    monkeypatch.setattr(paths, "RESULTS", COMMITTED)
    stale = rekey.stale_groups(section, "paper")
    assert not stale, "\n".join(
        f"{len(group.jobs)} entries of kind {group.kind} stored under {group.old}, the code's key is {group.new} "
        f"(e.g. {group.jobs[0][0].id}): `.venv/bin/python -m entropic rekey {section} --profile paper` verifies and "
        f"adopts it" for group in stale)
