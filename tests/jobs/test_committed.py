"""The committed results are the code's: every entry under ``results/paper/`` holds the version key of the code of
this commit for its job's kind, so that no page of the paper book flags a result as computed by other code. An edit
that moves a key fails here, naming the section, the kind and the command that verifies and adopts the new key."""

import json

import pytest

from entropic import paths, registry
from entropic.jobs import runner, versions


@pytest.mark.parametrize("section", registry.names())
def test_every_committed_entry_holds_the_key_of_the_code_that_would_compute_it(section):
    module, _, jobs = runner.plan(section, "paper")
    folder = paths.ROOT / "results" / "paper" / section  # the committed store (the tests' own lives elsewhere)
    keys, stale, read = {}, {}, 0
    for job in jobs:
        entry = folder / f"{job.id}.json"
        if not entry.is_file():
            continue  # not computed yet: the page says so (a stale entry is what this test is for)
        kind = job.params.get("kind")
        key = keys.setdefault(kind, versions.version_key(module, kind))
        stored, read = json.loads(entry.read_text())["key"], read + 1
        if stored != key:
            stale.setdefault((kind, stored), []).append(job.id)
    assert read, f"no committed entry of {section} under {paths.shown(folder)}"
    assert not stale, "\n".join(
        f"{len(ids)} entries of kind {kind} stored under {old}, the code's key is {keys[kind]} (e.g. {ids[0]}): "
        f"`.venv/bin/python -m entropic rekey {section} --profile paper` verifies and adopts it"
        for (kind, old), ids in stale.items())
